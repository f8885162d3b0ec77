/* Is a file one of ours (only the root attribute "format" is read), or one
 * of scope-profiler's (its structure, h5_sp.c)? */
#include "h5probe.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_guard.h"
#include "h5_sp.h"
#include "h5_util.h"

/* The root attribute "format" equals SL_H5_FORMAT (fixed or variable
 * length string). */
static int format_is_ours(hid_t f)
{
    if (H5Aexists(f, SL_H5N_format) <= 0)
        return 0;
    hid_t a = H5Aopen(f, SL_H5N_format, H5P_DEFAULT);
    hid_t t = a < 0 ? H5I_INVALID_HID : H5Aget_type(a);
    int ours = 0;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
        char want[] = SL_H5_FORMAT;
        if (H5Tis_variable_str(t) > 0) {
            char *v = NULL;
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(t));
            if (H5Aread(a, mt, &v) >= 0 && v) {
                ours = !strcmp(v, want);
                H5free_memory(v);
            }
            H5Tclose(mt);
        } else if (H5Tget_size(t) < 64) {
            char v[64] = "";
            if (H5Aread(a, t, v) >= 0)
                ours = !strncmp(v, want, sizeof want);
        }
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return ours;
}

sl_h5_probed sl_h5_probe(const char *path)
{
    sl_h5_errsave es;
    sl_h5_silence(&es);
    sl_h5_probed kind = SL_H5_PROBED_NOT_HDF5;
    /* libhdf5 reads the format attribute's string from the global heap,
     * where a damaged file can crash it: a file that says it is HDF5 but
     * fails the guard is taken as ours, for the reader to say what is wrong */
    sl_diag quiet;
    sl_diag_init(&quiet);
    int sound = H5Fis_hdf5(path) > 0 ? sl_h5_guard_file(path, &quiet) == 0 : -1;
    sl_h5_guard_done();
    sl_diag_free(&quiet);
    if (sound == 0) {
        H5Eclear2(H5E_DEFAULT);
        sl_h5_restore(&es);
        return SL_H5_PROBED_OURS;
    }
    hid_t f = sound > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : H5I_INVALID_HID;
    if (f >= 0) {
        kind = format_is_ours(f) ? SL_H5_PROBED_OURS
               : sl_h5_sp_file(f) ? SL_H5_PROBED_SP
                                  : SL_H5_PROBED_OTHER;
        H5Fclose(f);
    }
    H5Eclear2(H5E_DEFAULT);
    sl_h5_restore(&es);
    return kind;
}

const char *sl_h5_unreadable_why(const char *path, char *buf, size_t size)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char sb[48];
    struct stat st;
    snprintf(buf, size, "not an HDF5 file");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return buf;
    ssize_t got = fstat(fd, &st) ? -1 : pread(fd, sb, sizeof sb, 0);
    close(fd);
    if (got < 8 || memcmp(sb, sig, 8))
        return buf;
    /* The end-of-file address follows the base address (format spec,
     * superblock versions 0-3): byte 40, 44 or 28. */
    size_t at = sb[8] == 0 ? 40 : sb[8] == 1 ? 44 : sb[8] <= 3 ? 28 : 0;
    if (!at || (size_t)got < at + 8) {
        snprintf(buf, size, "cut short (%jd bytes, within the superblock)", (intmax_t)st.st_size);
        return buf;
    }
    uint64_t end = 0;
    for (int i = 7; i >= 0; i--)
        end = end << 8 | sb[at + i];
    if (end != UINT64_MAX && end > (uint64_t)st.st_size)
        snprintf(buf, size, "cut short (%jd of the %" PRIu64 " bytes its superblock records)",
                 (intmax_t)st.st_size, end);
    return buf;
}
