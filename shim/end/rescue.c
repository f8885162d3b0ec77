/* The rescue file: the whole run in the wire format, created owner-only
 * and exclusively, SIGXFSZ held back while it is written. */
#include "end.h"
#include "name_fit.h"
#include "trusted_dir.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The rescue file (end.h). */
static int write_rescue_at(const char *path, const sl_run *run)
{
    int fd = sl_at_create_private(path, O_WRONLY);
    /* Every descriptor taken: the journal's kept one is the spare. */
    if (fd < 0 && errno == EMFILE && sl_journal_spare_fd())
        fd = sl_at_create_private(path, O_WRONLY);
    if (fd < 0)
        return -errno;
    /* The owner's alone whatever the umask (it holds the command line and
     * the environment's SLURM_ values; the writer and convert must read
     * it). */
    fchmod(fd, SL_MODE_PRIVATE);
    int rc = sl_wire_write_run(fd, run);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0)
        sl_at_unlink(path);
    return rc;
}

/* Writes at the derived name (kept within NAME_MAX: the application's
 * output name may be 255 bytes): 0 with *out set, or -errno. */
static int write_at(const char *dir, const char *base, const char *suffix, const sl_run *run,
                    char **out)
{
    char *path = dir ? sl_name_fit_in(dir, "", base, suffix) : sl_name_fit(base, "", suffix);
    if (!path)
        return errno == ENAMETOOLONG ? -ENAMETOOLONG : -ENOMEM;
    int rc = write_rescue_at(path, run);
    if (rc == 0)
        *out = path;
    else
        free(path);
    return rc;
}

static char *write_guarded(const sl_run *run, const char *output, pid_t pid, char *why,
                           size_t why_len)
{
    char *path = NULL;
    int rc = write_at(NULL, output, ".rescue", run, &path);
    if (rc == 0)
        return path;
    snprintf(why, why_len, "%s.rescue: %s", output, strerror(-rc));
    const char *base = strrchr(output, '/');
    base = base ? base + 1 : output;
    /* TMPDIR, then /tmp: only where no other user can change what is in it */
    const char *dirs[] = {sl_spare_dir(0), sl_spare_dir(1)};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i])
            continue;
        for (int k = 0; k < 100; k++) {
            char suffix[64];
            snprintf(suffix, sizeof suffix, ".%lld.%d.rescue", (long long)pid, k);
            rc = write_at(dirs[i], base, suffix, run, &path);
            if (rc == 0)
                return path;
            if (rc != -EEXIST)
                break;
        }
    }
    return NULL;
}

/* A file-size limit (ulimit -f) answers a too-large write with SIGXFSZ,
 * whose default action kills the application (fault-output-fsize-limit):
 * held back while the shim writes, the write fails with EFBIG instead. */
char *sl_rescue_write(const sl_run *run, const char *output, pid_t pid, char *why,
                      size_t why_len)
{
    sl_sig_held g;
    sl_sig_hold(SIGXFSZ, &g);
    char *path = write_guarded(run, output, pid, why, why_len);
    sl_sig_release(&g, 1);
    return path;
}

int sl_rescue_write_held(const char *path, const sl_run *run)
{
    sl_sig_held g;
    sl_sig_hold(SIGXFSZ, &g);
    int rc = write_rescue_at(path, run);
    sl_sig_release(&g, 1);
    return rc;
}
