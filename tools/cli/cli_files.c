/* Reading a result file and replacing an output file (cli_files.h). */
#include "cli_files.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "sandbox.h"

int sl_read_result(const char *path, sl_runset *set)
{
    sl_diag diag;
    sl_diag_init(&diag);
    sl_sandbox_reading(path);
    int rc = sl_h5_read(path, set, &diag);
    if (rc == -ENOMEM && sl_sandbox_mem_limit()) /* the limit reached, not the file's fault */
        fprintf(stderr, "%s: damaged (needs more memory than %zu MiB)\n", path,
                sl_sandbox_mem_limit() >> 20);
    else if (rc < 0) {
        for (size_t i = 0; i < diag.kept; i++)
            fprintf(stderr, "%s\n", diag.lines[i]);
        if (!diag.kept)
            fprintf(stderr, "%s: cannot read: %s: expected a scope-likwid result file\n", path,
                    strerror(-rc));
    }
    sl_diag_free(&diag);
    return rc;
}

int sl_out_file_write(const char *path, int sync, sl_out_fill fill, void *ctx)
{
    /* dirname and basename may modify their argument: one copy each */
    char *d = strdup(path), *b = strdup(path);
    char *tmp = NULL;
    int rc = d && b ? 0 : -ENOMEM;
    if (!rc) {
        const char *dir = dirname(d), *base = basename(b);
        size_t len = strlen(dir) + strlen(base) + 16;
        if (!(tmp = malloc(len)))
            rc = -ENOMEM;
        else
            snprintf(tmp, len, "%s/.%s.tmpXXXXXX", dir, base);
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
