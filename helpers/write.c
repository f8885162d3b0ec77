/* scope-likwid-write RESCUEFILE OUTPUT.h5: turns the shim's rescue file (a
 * wire-encoded run, docs/WIRE.md) into the HDF5 result file. It runs as a
 * separate process so HDF5 never enters the application. It leaves the
 * rescue file in place: the shim deletes it after checking our answer. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fileio.h"
#include "h5write.h"
#include "run.h"
#include "wire.h"
#include "h5_quiet.h"

/* Rescue files are text; anything this large is not one of ours. */
#define MAX_RESCUE_BYTES ((size_t)4 << 30)

static int fail(sl_diag *d, const char *what)
{
    for (size_t i = 0; i < d->kept; i++)
        fprintf(stderr, "scope-likwid-write: %s\n", d->lines[i]);
    if (d->count > d->kept)
        fprintf(stderr, "scope-likwid-write: (%zu more messages)\n", d->count - d->kept);
    if (what)
        fprintf(stderr, "scope-likwid-write: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    sl_h5_quiet_process();  /* our messages say what is wrong (h5_quiet.h) */
    /* Past a file-size limit, fail with EFBIG and remove the temporary file
     * instead of dying of SIGXFSZ and leaving it behind. */
    signal(SIGXFSZ, SIG_IGN);
    sl_diag diag;
    sl_diag_init(&diag);
    if (argc != 3)
        return fail(&diag, "usage: scope-likwid-write RESCUEFILE OUTPUT.h5");
    const char *in = argv[1], *out = argv[2];

    char *buf;
    size_t len;
    int rc = sl_read_file(in, MAX_RESCUE_BYTES, &buf, &len);
    if (rc < 0) {
        fprintf(stderr, "scope-likwid-write: %s: %s\n", in, strerror(-rc));
        return 1;
    }
    sl_run run;
    if (sl_run_init(&run) < 0) {
        free(buf);
        return fail(&diag, "out of memory");
    }
    rc = sl_wire_read_run(buf, len, in, &run, &diag);
    free(buf);
    if (rc < 0) {
        sl_run_free(&run);
        return fail(&diag, "rescue file not decoded, nothing written");
    }
    char *written = NULL;
    rc = sl_h5_write(out, &run, 1, &written, &diag);
    sl_run_free(&run);
    if (rc < 0) {
        free(written);
        char what[256];
        snprintf(what, sizeof what, "%s: not written: %s", out, strerror(-rc));
        int r = fail(&diag, what);
        sl_diag_free(&diag);
        return r;
    }
    /* the name actually used ("out.1.h5" when "out.h5" existed) */
    int ok = printf("%s\n", written ? written : out) > 0 && fflush(stdout) == 0;
    free(written);
    if (!ok)
        return fail(&diag, "cannot write to stdout");
    /* warnings the writer reported on success */
    for (size_t i = 0; i < diag.kept; i++)
        fprintf(stderr, "scope-likwid-write: %s\n", diag.lines[i]);
    sl_diag_free(&diag);
    return 0;
}
