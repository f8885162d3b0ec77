/* scope-likwid-write RESCUEFILE OUTPUT.h5: turns the shim's rescue file (a
 * wire-encoded run, docs/WIRE.md) into the HDF5 result file. It runs as a
 * separate process so HDF5 never enters the application. It holds a lock
 * (flock) on the rescue file while it works and removes the file once the
 * result is in place, then names it on stdout: a writer left running by a shim
 * killed meanwhile still delivers, and `scope-likwid recover` (which waits
 * for the lock) finds no rescue file and makes no second result.
 *
 * scope-likwid-write --journal JOURNAL [--deadline SECONDS]: what the
 * shim's signal handler runs while the process it belongs to waits to die
 * of a terminating signal: the journal (marked with the signal) becomes
 * the result file, as `scope-likwid recover` would make it, and is
 * removed. It stops by itself at its deadline (write_deadline.h: SECONDS,
 * and half of Slurm's KillWait in a Slurm job, from the signal), leaving
 * the journal and nothing else.
 *
 * scope-likwid-write --orphan JOURNAL PARENT_PID: what the shim in a
 * forked child runs at its Close once its parent (PARENT_PID, the
 * journal's process) has ended without delivering (the daemon pattern:
 * fork, then _exit in the parent): the journal, still marked running,
 * becomes the parent's result file and is removed. The journal is locked
 * (flock) while it is read, so of several children only one writes it.
 *
 * scope-likwid-write --child JOURNAL CHILD_PID: the same for the journal a
 * forked child (CHILD_PID) left when it ended without delivering (_exit:
 * a multiprocessing pool's worker), run by the shim in its parent at the
 * parent's Close or exit.
 * Either way the path written is printed on stdout.
 *
 * scope-likwid-write --into-stdin ...: any of the above, the result written
 * into the file open on stdin (made for it by the shim before the process
 * changed its user, when it still could create it) instead of a new file;
 * its name (the rescue file's OUTPUT.h5, the journal's result) is printed
 * as the path written.
 *
 * scope-likwid-write --await SECONDS PID: started by the shim of process
 * PID at the start of a counting Close, so that its start (HDF5 and its
 * libraries loaded) runs while the collector does: RESCUEFILE and
 * OUTPUT.h5 come on stdin, a line each, within SECONDS; "taken" on stdout
 * once they have, then as above. Without them in time, or once PID has
 * ended, it writes nothing (exit 1). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "diag.h"
#include "fileio.h"
#include "h5write.h"
#include "journal.h"
#include "journal_recover.h"
#include "mac.h"
#include "run.h"
#include "wire.h"
#include "write_deadline.h"
#include "write_groups.h"
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

/* --into-stdin: the result goes into the file on stdin. */
static int into_stdin;

/* sl_h5_write, or into the file on stdin. */
static int write_result(const char *path, const sl_run *run, char **written, sl_diag *d)
{
    return into_stdin ? sl_h5_write_fd(STDIN_FILENO, path, run, 1, d)
                      : sl_h5_write(path, run, 1, written, d);
}

/* The proof that we wrote it, for the shim that gave us a key (core/trust/mac.h):
 * a line before the path. Nothing without a key (run by hand). */
static void prove(const char *written)
{
    const char *hex = getenv(SL_WRITE_KEY_ENV);
    sl_mac_key key;
    struct stat st;
    if (!hex || sl_mac_key_parse(hex, &key) != 0 ||
        (into_stdin ? fstat(STDIN_FILENO, &st) : stat(written, &st)) != 0)
        return;
    char tag[SL_MAC_TAG_HEX + 1];
    sl_mac_tag_hex(sl_mac_file(&key, &st), tag);
    printf("%s%s\n", SL_PROOF_PREFIX, tag);
}

/* The path written on stdout (after its proof), the writer's warnings on
 * stderr. */
static int report(sl_diag *d, const char *written)
{
    prove(written);
    int ok = printf("%s\n", written) > 0 && fflush(stdout) == 0;
    if (!ok)
        return fail(d, "cannot write to stdout");
    for (size_t i = 0; i < d->kept; i++)
        fprintf(stderr, "scope-likwid-write: %s\n", d->lines[i]);
    sl_diag_free(d);
    return 0;
}

/* orphan_of: 0 for --journal, else the journal's process (--orphan: the
 * parent of the one running us; --child, by_parent set: its child).
 * deadline_s: --journal's --deadline (0: none given). */
static int from_journal(const char *path, long long orphan_of, int by_parent, double deadline_s,
                        sl_diag *d)
{
    sl_jrn_info info;
    /* Held until we exit: a second child's writer waits, then finds the
     * journal recovered (or gone) and writes nothing. */
    int lock_fd = orphan_of ? sl_open_regular(path, O_RDONLY, NULL) : -1;
    if (orphan_of && (lock_fd < 0 || flock(lock_fd, LOCK_EX) != 0))
        return fail(d, "the journal is gone (delivered): nothing written");
    if (sl_journal_read_info(path, &info, d) != 0)
        return fail(d, "journal not read, nothing written");
    if (orphan_of) {
        /* The child saw its parent end (it was reparented); a journal still
         * running is what that parent left. Any other state: its own Close,
         * exit hook, signal handler or a recover took care of it. */
        if (info.state != SL_JRN_RUNNING || info.pid != orphan_of)
            return fail(d, "the journal is not the running journal of that process: nothing "
                           "written");
    } else if (info.state != SL_JRN_SIGNALED) {
        /* Only the shim's handler runs us this way, after marking the
         * signal; the process is alive (it waits for us), so no liveness
         * check. */
        return fail(d, "--journal: the journal is not marked with a signal: use scope-likwid "
                       "recover");
    } else if (deadline_s > 0) {
        char why[512], what[1024];
        double left = sl_wd_budget(info.signal_ns, deadline_s, why, sizeof why);
        if (left < 0.1) {
            snprintf(what, sizeof what, "no time left within the deadline (%s): nothing written, "
                     "the journal %s is kept", why, path);
            return fail(d, what);
        }
        sl_wd_arm(left, why, path);
    }
    char boot[48];
    sl_jrn_clock clk = sl_jrn_reader_clock(boot, sizeof boot);
    sl_run run;
    int rc = sl_run_init(&run);
    if (rc == 0)
        rc = sl_journal_read(path, &clk, &run, &info, d);
    const char *by = by_parent   ? "the shim in its parent process"
                     : orphan_of ? "the shim in a forked child"
                                 : "the shim's signal handler";
    const char *why = by_parent   ? "ended without likwid_markerClose (_exit, a crash or SIGKILL)"
                      : orphan_of ? "ended after fork without likwid_markerClose (_exit, a crash "
                                    "or SIGKILL)"
                                  : NULL;
    char *status = rc == 0 ? sl_jrn_partial_status(&info, by, why) : NULL;
    if (rc == 0 && (!status || sl_set_string(&run.likwid_status, status) != 0))
        rc = -ENOMEM;
    free(status);
    char *written = NULL;
    if (rc == 0)
        rc = write_result(info.output, &run, &written, d);
    sl_run_free(&run);
    if (rc != 0) {
        free(written);
        char what[4200];
        snprintf(what, sizeof what, "%s: not written: %s", info.output, strerror(-rc));
        return fail(d, what);
    }
    sl_jrn_set_state(path, SL_JRN_RECOVERED);
    sl_jrn_drop_batch_file(&info);
    unlink(path);
    rc = report(d, written ? written : info.output);
    free(written);
    return rc;
}

/* --await: the two paths from stdin (a line each) within seconds, while
 * process pid lives (a pidfd: no stale pid is ever waited for once the
 * process it named ended), into given[1] and given[2]; 0, -1 (not in
 * time, or not two lines), or -2 (the process ended first). */
static int await_paths(double seconds, long long pid, char **given)
{
    int pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, (pid_t)pid, 0) : -1;
    if (pid > 0 && pidfd < 0 && errno == ESRCH)
        return -2;
    int gone = 0;
    enum { MAX = 2 * PATH_MAX + 2 };
    char *buf = malloc(MAX + 1);
    size_t len = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int lines = 0;
    while (buf && lines < 2 && len < MAX) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = seconds - (double)(now.tv_sec - t0.tv_sec) -
                      (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                               {.fd = pidfd, .events = POLLIN}};
        int pr = left > 0 ? poll(pf, pidfd >= 0 ? 2 : 1,
                                 left > 1e6 ? 1000000000 : (int)(left * 1000) + 1) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr > 0 && !pf[0].revents) {
            gone = 1;   /* the process ended */
            break;
        }
        ssize_t n = pr > 0 ? read(STDIN_FILENO, buf + len, MAX - len) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            lines += buf[len + (size_t)i] == '\n';
        len += (size_t)n;
    }
    if (pidfd >= 0)
        close(pidfd);
    char *nl = lines >= 2 ? memchr(buf, '\n', len) : NULL;
    if (!nl || memchr(buf, '\0', len) || nl == buf || nl[1] == '\n') {
        free(buf);
        return gone ? -2 : -1;
    }
    *nl = '\0';
    *strchr(nl + 1, '\n') = '\0';
    given[1] = buf;
    given[2] = nl + 1;
    return 0;
}

/* RESCUEFILE OUTPUT.h5: the result written from the rescue file, which goes
 * once the result is in place; the name used on stdout. */
static int from_rescue(const char *in, const char *out, sl_diag *diag)
{
    /* Held until we exit (no CLOEXEC needed: we start nothing). */
    int lock_fd = open(in, O_RDONLY | O_CLOEXEC);
    if (lock_fd >= 0)
        flock(lock_fd, LOCK_EX);

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
        return fail(diag, "out of memory");
    }
    rc = sl_wire_read_run(buf, len, in, &run, diag);
    free(buf);
    if (rc < 0) {
        sl_run_free(&run);
        return fail(diag, "rescue file not decoded, nothing written");
    }
    if (sl_write_groups(&run, diag) < 0) {
        sl_run_free(&run);
        return fail(diag, "out of memory");
    }
    char *written = NULL;
    rc = write_result(out, &run, &written, diag);
    sl_run_free(&run);
    if (rc < 0) {
        free(written);
        char what[256];
        snprintf(what, sizeof what, "%s: not written: %s", out, strerror(-rc));
        int r = fail(diag, what);
        sl_diag_free(diag);
        return r;
    }
    /* Delivered: the rescue file has done its work, whether or not the
     * name reaches the shim (a shim killed meanwhile reads nothing; one
     * that reads no name says where to look). */
    unlink(in);
    /* the name actually used ("out.1.h5" when "out.h5" existed) */
    rc = report(diag, written ? written : out);
    free(written);
    return rc;
}

int main(int argc, char **argv)
{
    sl_h5_quiet_process();  /* our messages say what is wrong (h5_quiet.h) */
    /* Past a file-size limit, fail with EFBIG and remove the temporary file
     * instead of dying of SIGXFSZ and leaving it behind. */
    signal(SIGXFSZ, SIG_IGN);
    /* The shim that reads our stdout may be gone (killed during Close):
     * the line is lost, the result stays (EPIPE, not death). */
    signal(SIGPIPE, SIG_IGN);
    sl_diag diag;
    sl_diag_init(&diag);
    if (argc > 1 && strcmp(argv[1], "--into-stdin") == 0) {
        into_stdin = 1;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    char *given[4] = {argv[0], NULL, NULL, NULL};
    if (argc == 4 && strcmp(argv[1], "--await") == 0) {
        int rc = await_paths(atof(argv[2]), atoll(argv[3]), given);
        if (rc != 0)
            return fail(&diag, rc == -2 ? "--await: the process ended before it gave RESCUEFILE "
                                          "and OUTPUT.h5: nothing written"
                                        : "--await: no RESCUEFILE and OUTPUT.h5 lines on stdin "
                                          "in time: nothing written");
        argc = 3;
        if (printf("taken\n") < 0 || fflush(stdout) != 0)
            return fail(&diag, "cannot write to stdout");
        argv = given;
    }
    if (argc == 3 && strcmp(argv[1], "--journal") == 0)
        return from_journal(argv[2], 0, 0, 0, &diag);
    if (argc == 5 && strcmp(argv[1], "--journal") == 0 && strcmp(argv[3], "--deadline") == 0 &&
        atof(argv[4]) > 0)
        return from_journal(argv[2], 0, 0, atof(argv[4]), &diag);
    int child = argc == 4 && strcmp(argv[1], "--child") == 0;
    if (argc == 4 && (child || strcmp(argv[1], "--orphan") == 0) && atoll(argv[3]) > 0)
        return from_journal(argv[2], atoll(argv[3]), child, 0, &diag);
    if (argc != 3)
        return fail(&diag, "usage: scope-likwid-write [--into-stdin] RESCUEFILE OUTPUT.h5 | --await SECONDS PID | "
                           "--journal JOURNAL [--deadline SECONDS] | --orphan JOURNAL PARENT_PID | "
                           "--child JOURNAL CHILD_PID");
    return from_rescue(argv[1], argv[2], &diag);
}
