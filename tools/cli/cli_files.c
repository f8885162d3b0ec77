/* Reading a result file and replacing an output file (cli_files.h). */
#include "cli_files.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"
#include "diag.h"
#include "h5probe.h"
#include "schema.h"
#include "name_fit.h"
#include "sandbox.h"

sl_file_kind sl_file_probe(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return SL_FILE_MISSING;
    if (S_ISDIR(st.st_mode))
        return SL_FILE_DIRECTORY;
    switch (sl_h5_probe(path)) {
    case SL_H5_PROBED_OURS:
        return SL_FILE_RESULT;
    case SL_H5_PROBED_SP:
        return SL_FILE_SP;
    case SL_H5_PROBED_OTHER:
        return SL_FILE_OTHER_HDF5;
    default:
        return SL_FILE_NOT_HDF5;
    }
}

int sl_file_refuse(const char *cmd, const char *path, sl_file_kind kind)
{
    if (kind == SL_FILE_DIRECTORY)
        sl_error(cmd, "%s: a directory: expected a scope-likwid result file", path);
    else if (kind == SL_FILE_NOT_HDF5)
        sl_error(cmd, "%s: %s: expected a scope-likwid result file", path,
                 sl_h5_unreadable_why(path, (char[96]){0}, 96));
    else if (kind == SL_FILE_OTHER_HDF5)
        sl_error(cmd, "%s: " SL_H5_NEITHER, path);
    else
        return 0;
    return 1;
}

int sl_read_result(const char *cmd, const char *path, sl_runset *set)
{
    sl_diag diag;
    sl_diag_init(&diag);
    sl_sandbox_reading(path);
    int rc = sl_h5_read(path, set, &diag);
    if (rc == -ENOMEM && sl_sandbox_mem_limit()) { /* the limit reached, not the file's fault */
        sl_error(cmd, "%s: damaged (needs more memory than %zu MiB)", path,
                 sl_sandbox_mem_limit() >> 20);
    } else if (rc < 0 && !sl_file_refuse(cmd, path, sl_file_probe(path))) {
        /* the reader's first complaint would be "not an HDF5 file" or a
         * missing /format: the probe says what the file is instead */
        for (size_t i = 0; i < diag.kept; i++)
            sl_error(cmd, "%s", diag.lines[i]);
        if (!diag.kept)
            sl_error(cmd, "%s: cannot read: %s: expected a scope-likwid result file", path,
                     strerror(-rc));
    }
    sl_diag_free(&diag);
    return rc;
}

int sl_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && !strcasecmp(s + n - k, suffix);
}

int sl_out_file_write(const char *path, int sync, sl_out_fill fill, void *ctx)
{
    /* dirname and basename may modify their argument: one copy each */
    char *d = strdup(path), *b = strdup(path);
    char *tmp = NULL;
    int rc = d && b ? 0 : -ENOMEM;
    if (!rc) {
        const char *dir = dirname(d), *base = basename(b);
        /* Within NAME_MAX whatever the name's length (name_fit.h). */
        if (!(tmp = sl_name_fit_in(dir, ".", base, ".tmpXXXXXX")))
            rc = -ENOMEM;
    }
    int fd = rc ? -1 : mkstemp(tmp);
    if (!rc && fd < 0)
        rc = -errno;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f) {
        rc = -errno;
        close(fd);
        unlink(tmp);
    }
    if (f) {
        mode_t um = umask(0);
        umask(um);
        if (fchmod(fd, 0666 & ~um))
            rc = -errno;
        if (!rc)
            rc = fill(f, ctx);
        if (!rc && (fflush(f) || ferror(f) || (sync && fsync(fd))))
            rc = -(errno ? errno : EIO);
        if (fclose(f) && !rc)
            rc = -(errno ? errno : EIO);
        if (!rc && rename(tmp, path))
            rc = -errno;
        if (rc)
            unlink(tmp);
    }
    free(tmp);
    free(d);
    free(b);
    return rc;
}
