/* scope-likwid recover [DIR|JOURNAL...]: the journals of processes that
 * were killed, crashed or ended without likwid_markerClose become result
 * files (docs/SHIM.md, "When the process is killed"). Idempotent: a
 * recovered journal is removed; a journal whose process still runs is never
 * touched. */
#include "cmds.h"
#include "recover.h"

#include <dirent.h>
#include <getopt.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "h5write.h"
#include "journal.h"
#include "journal_recover.h"
#include "slurm_job.h"
#include "name_fit.h"
#include "run.h"
#include "wire.h"
#include "fileio.h"

static const char usage[] =
    "usage: scope-likwid recover [--finished JOB|all]... [DIR|JOURNAL...]\n"
    "Turns the journals (*.journal) of processes that ended without\n"
    "likwid_markerClose (killed, crashed, or _exit) into result files, marked\n"
    "partial. DIR: every journal in it (default: the current directory).\n"
    "A journal whose process may still run is left alone, with one line: one\n"
    "of this host whose process runs, and one written on another host, boot\n"
    "or pid namespace unless its Slurm job step has ended (squeue, sacct) or\n"
    "--finished names its job. A recovered journal is removed, so running\n"
    "recover again does nothing.\n"
    "      --finished JOB  the processes of batch job JOB have all ended (all:\n"
    "                      of every journal given); repeatable\n"
    "  -h, --help          this help\n"
    "Exit status: 0 when every journal was recovered, left alone or had\n"
    "nothing to do, 1 when one could not be read or written (it is kept),\n"
    "2 usage error.\n";

/* What the owner said with --finished (the jobs that have ended). */
static struct {
    char **jobs;
    size_t n;
    int all;
} finished;

static void print_diag(const sl_diag *d)
{
    for (size_t i = 0; i < d->kept; i++)
        sl_error("recover", "%s", d->lines[i]);
}

static int named_finished(const char *job)
{
    for (size_t i = 0; job[0] && i < finished.n; i++)
        if (!strcmp(finished.jobs[i], job))
            return 1;
    return 0;
}

/* A journal written elsewhere (where: sl_jrn_locate's words): its process
 * may still run there, unless its owner said it ended (--finished) or
 * Slurm says its step has. 1 with *because set (for the recovered line),
 * or 0 after the one line saying why it is left alone. */
static int owner_says_ended(const char *path, const sl_jrn_info *info, const char *where,
                            char *because, size_t cap)
{
    if (finished.all || named_finished(info->job)) {
        snprintf(because, cap, "%s; --finished %s", where, finished.all ? "all" : info->job);
        return 1;
    }
    if (!info->job[0]) {
        sl_error("recover", "%s: %s, by process %lld of no Slurm job: it may still run there: "
                 "left alone (recover it there, or give --finished all once it has ended)", path,
                 where, (long long)info->pid);
        return 0;
    }
    char slurm[512];
    int v = sl_slurm_step_ended(info->cluster, info->job, info->step, slurm, sizeof slurm);
    if (v == SL_SLURM_ENDED) {
        snprintf(because, cap, "%s; %s", where, slurm);
        return 1;
    }
    sl_error("recover", "%s: %s, by process %lld; %s: left alone%s%s%s", path, where,
             (long long)info->pid, slurm, v == SL_SLURM_RUNS ? "" : " (--finished ",
             v == SL_SLURM_RUNS ? "" : info->job,
             v == SL_SLURM_RUNS ? "" : " once it has ended)");
    return 0;
}

/* How long recover waits for a writer still turning the rescue file into
 * the result (it holds a lock on the file while it works). */
#define WRITER_WAIT_S 60

static int already_delivered(const char *path)
{
    sl_jrn_set_state(path, SL_JRN_RECOVERED);
    unlink(path);
    sl_error("recover", "%s: result already delivered (its writer finished): journal removed",
             path);
    return 0;
}

int sl_rescue_to_result(const char *rescue, const char *output, char **written)
{
    *written = NULL;
    sl_diag d;
    sl_diag_init(&d);
    char *buf = NULL;
    size_t len = 0;
    sl_run run;
    int rc = sl_run_init(&run);
    if (rc == 0 && (rc = sl_read_file(rescue, (size_t)4 << 30, &buf, &len)) == 0)
        rc = sl_wire_read_run(buf, len, rescue, &run, &d);
    free(buf);
    if (rc == 0)
        rc = sl_h5_write(output, &run, 1, written, &d);
    sl_run_free(&run);
    print_diag(&d);
    sl_diag_free(&d);
    if (rc != 0) {
        free(*written);
        *written = NULL;
    }
    return rc;
}

/* A process that died while its writer ran (SL_JRN_DELIVERING): the writer
 * removes the rescue file once the result is in place, so a rescue file
 * that is gone means delivered; one that stays (the writer failed or was
 * killed too) is the whole result, counters included, and becomes the
 * result file. 0 or 1 when done (the status of recover), -1 to read the
 * journal instead (the rescue file cannot be read). */
static int from_rescue_at(const char *path, const sl_jrn_info *info, const char *rescue)
{
    struct stat st;
    int fd = sl_open_regular(rescue, O_RDONLY, &st);
    if (fd == -ENOENT)
        return already_delivered(path);
    if (fd >= 0 && st.st_uid != geteuid()) {
        close(fd);
        fd = -EPERM;
    }
    if (fd < 0) {
        sl_error("recover", "%s: the rescue file %s is not a regular file of yours (%s): reading "
                 "the journal instead", path, rescue, strerror(-fd));
        return -1;
    }
    int locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!locked)
        sl_error("recover", "%s: a writer is still at work on %s: waiting for it", path, rescue);
    for (int i = 0; !locked && i < WRITER_WAIT_S * 10; i++) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
        locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
    }
    if (!locked) {
        close(fd);
        sl_error("recover", "%s: the writer still works on %s after %d s: left alone", path,
                 rescue, WRITER_WAIT_S);
        return 1;
    }
    struct stat now, ours;
    if (stat(rescue, &now) != 0 || fstat(fd, &ours) != 0 || now.st_dev != ours.st_dev ||
        now.st_ino != ours.st_ino) {
        close(fd);
        return already_delivered(path);    /* removed while we waited */
    }
    close(fd);
    char *written = NULL;
    int rc = sl_rescue_to_result(rescue, info->output, &written);
    if (rc != 0) {
        sl_error("recover", "%s: the rescue file %s could not be turned into the result (%s): "
                 "reading the journal instead", path, rescue, strerror(-rc));
        return -1;
    }
    unlink(rescue);
    sl_jrn_set_state(path, SL_JRN_RECOVERED);
    unlink(path);
    sl_error("recover", "recovered %s: its writer had not finished: wrote %s from the rescue "
             "file %s (removed)", path, written ? written : info->output, rescue);
    free(written);
    return 0;
}

/* The rescue file the header names, taken only when it is one beside the
 * journal (recover_owner.c). */
static int from_rescue(const char *path, const sl_jrn_info *info, const sl_jrn_place *place)
{
    char *rescue = sl_recover_rescue_ok(place, info->rescue);
    if (!rescue) {
        sl_error("recover", "%s: its header names the rescue file %s, which is not one beside "
                 "it: reading the journal instead", path, info->rescue);
        return -1;
    }
    int rc = from_rescue_at(path, info, rescue);
    free(rescue);
    return rc;
}

/* The names recover writes and removes (the result, a batch file beside
 * it): those of the journal's location, never its header's. */
static void take_place(sl_jrn_info *info, const sl_jrn_place *place)
{
    snprintf(info->output, sizeof info->output, "%s", place->output);
}

/* One journal recover may act on (recover_owner.c): the names it writes
 * and removes are place's, derived from where the journal is. */
static int recover_one(const char *path, const char *why, const sl_jrn_place *place)
{
    sl_diag d;
    sl_diag_init(&d);
    sl_jrn_info info;
    if (sl_journal_read_info(path, &info, &d) != 0) {
        print_diag(&d);
        sl_diag_free(&d);
        return 1;
    }
    char where[512], because[1100] = "";
    int here = sl_jrn_locate(&info, where, sizeof where) == SL_JRN_HERE;
    if (here && sl_jrn_writer_alive(&info)) {
        sl_error("recover", "%s: process %lld still runs: left alone", path,
                (long long)info.pid);
        sl_diag_free(&d);
        return 0;
    }
    int delivered = info.state == SL_JRN_CLOSED || info.state == SL_JRN_RECOVERED;
    if (!here && !delivered && !owner_says_ended(path, &info, where, because, sizeof because)) {
        sl_diag_free(&d);
        return 0;
    }
    /* The result goes beside the journal, whatever its header says. */
    if (!sl_recover_same_output(place, info.output))
        sl_error("recover", "%s: its header names %s as the result; the result goes beside the "
                 "journal: %s", path, info.output, place->output);
    take_place(&info, place);
    if (delivered) {
        /* Its result was delivered; only the removal did not happen. */
        sl_jrn_drop_batch_file(&info);
        unlink(path);
        sl_error("recover", "%s: result already delivered: journal removed", path);
        sl_diag_free(&d);
        return 0;
    }
    if (info.state == SL_JRN_DELIVERING && info.rescue[0]) {
        int done = from_rescue(path, &info, place);
        if (done == 0)
            sl_jrn_drop_batch_file(&info);  /* the delivery held the batch */
        if (done >= 0) {
            sl_diag_free(&d);
            return done;
        }
    }
    char boot[48];
    sl_jrn_clock clk = sl_jrn_reader_clock(boot, sizeof boot);
    sl_run run;
    int rc = sl_run_init(&run);
    if (rc == 0)
        rc = sl_journal_read(path, &clk, &run, &info, &d);
    take_place(&info, place);   /* read again with the header */
    char *status = rc == 0 ? sl_jrn_partial_status(&info, "scope-likwid recover", why) : NULL;
    if (rc == 0 && (!status || sl_set_string(&run.likwid_status, status) != 0))
        rc = -ENOMEM;
    char *written = NULL;
    if (rc == 0)
        rc = sl_h5_write(info.output, &run, 1, &written, &d);
    sl_run_free(&run);
    free(status);
    print_diag(&d);
    sl_diag_free(&d);
    if (rc != 0) {
        sl_error("recover", "%s: not recovered: %s (the journal is kept)", path,
                strerror(-rc));
        free(written);
        return 1;
    }
    sl_jrn_set_state(path, SL_JRN_RECOVERED);
    sl_jrn_drop_batch_file(&info);
    unlink(path);
    sl_error("recover", "recovered %s%s%s%s: wrote %s", path, because[0] ? " (" : "", because,
             because[0] ? ")" : "", written ? written : info.output);
    free(written);
    return 0;
}

int sl_recover_journal(const char *path, const char *why)
{
    return sl_recover_guarded(path, why, recover_one);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && strcmp(s + a - b, suf) == 0;
}

static int recover_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        sl_error("recover", "%s: %s", dir, strerror(errno));
        return 1;
    }
    int failed = 0, n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!has_suffix(e->d_name, ".journal"))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        n++;
        failed |= sl_recover_journal(path, NULL) == 1;  /* a skipped one is not ours to fail on */
    }
    closedir(d);
    if (!n)
        sl_error("recover", "no journal in %s", dir);
    return failed;
}

static int recover_operands(int argc, char **argv);

int sl_cmd_recover(int argc, char **argv)
{
    enum { OPT_FINISHED = 256 };
    static const struct option opts[] = {
        {"finished", required_argument, NULL, OPT_FINISHED},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 0;
    char **jobs = calloc((size_t)argc + 1, sizeof *jobs);
    if (!jobs)
        return sl_error("recover", "out of memory"), SL_EXIT_FAIL;
    finished.jobs = jobs;
    while ((c = sl_getopt("recover", argc, argv, ":h", opts)) != SL_OPT_END) {
        if (c == OPT_FINISHED) {
            if (!optarg[0])
                return free(jobs), sl_usage_error("recover", "--finished '': expected a job id "
                                                  "or all");
            if (!strcmp(optarg, "all"))
                finished.all = 1;
            else
                jobs[finished.n++] = optarg;
            continue;
        }
        free(jobs);
        if (c != 'h')
            return SL_EXIT_USAGE;
        fputs(usage, stdout);
        return SL_EXIT_OK;
    }
    int rc = recover_operands(argc, argv);
    free(jobs);
    finished.jobs = NULL;
    finished.n = 0;
    finished.all = 0;
    return rc;
}

static int recover_operands(int argc, char **argv)
{
    if (optind >= argc)
        return recover_dir(".") ? SL_EXIT_FAIL : SL_EXIT_OK;
    int failed = 0;
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            sl_error("recover", "%s: %s", argv[i], strerror(errno));
            failed = 1;
        } else if (S_ISDIR(st.st_mode)) {
            failed |= recover_dir(argv[i]);
        } else {
            failed |= sl_recover_journal(argv[i], NULL) != 0;
        }
    }
    return failed ? SL_EXIT_FAIL : SL_EXIT_OK;
}
