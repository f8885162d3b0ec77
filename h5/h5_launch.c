/* Which launch a result file is from (its /metadata run_id), read before
 * merging: scope-likwid merge groups its inputs by it. */
#include "h5merge.h"
#include "h5_guard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_util.h"

int sl_h5_launch(const char *path, char **run_id, sl_diag *diag)
{
    *run_id = NULL;
    sl_h5_errsave quiet;
    sl_h5_silence(&quiet);
    sl_h5_guard_done();
    int rc = 0;
    hid_t f = -1;
    if (H5Fis_hdf5(path) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        if (access(path, R_OK) < 0)
            sl_diag_add(diag, path, 0, "cannot open: %s", strerror(errno));
        else
            sl_diag_add(diag, path, 0, "not an HDF5 file: expected a scope-likwid result file");
        rc = -EINVAL;
    } else if ((rc = sl_h5_guard_file(path, diag)) == 0 &&
               (f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        sl_diag_add(diag, path, 0, "cannot open: expected a readable HDF5 file");
        rc = -EINVAL;
    }
    if (!rc) {
        sl_diag ignored;
        sl_diag_init(&ignored);
        sl_h5r r = {path, &ignored, 2};
        htri_t has = H5Lexists(f, SL_H5N_metadata, sl_h5_guard_lapl());
        hid_t g = has > 0 ? H5Gopen2(f, SL_H5N_metadata, H5P_DEFAULT) : -1;
        if (g >= 0 && sl_h5r_str(&r, g, "/" SL_H5N_metadata, SL_H5_FIELD(META_RUN_ID), run_id))
            *run_id = NULL;     /* unreadable: merge itself says why */
        if (g >= 0)
            H5Gclose(g);
        sl_diag_free(&ignored);
        H5Eclear2(H5E_DEFAULT);
        if (!*run_id && !(*run_id = strdup("")))
            rc = -ENOMEM;
    }
    if (f >= 0)
        H5Fclose(f);
    sl_h5_guard_done();
    sl_h5_restore(&quiet);
    return rc;
}
