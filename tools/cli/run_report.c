/* What the application's processes wrote, as they told `scope-likwid run`
 * through its report file (run_report.h). */
#include "run_report.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "fileio.h"
#include "recover.h"
#include "vec.h"

char *sl_run_report_create(void)
{
    const char *tmp = getenv("TMPDIR");
    const char *dirs[] = {tmp && tmp[0] == '/' ? tmp : NULL, "/tmp"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char *p = NULL;
        if (!dirs[i] || asprintf(&p, "%s/scope-likwid-run-report.XXXXXX", dirs[i]) < 0)
            continue;
        int fd = mkstemp(p);
        if (fd >= 0) {
            close(fd);
            return p;
        }
        free(p);
    }
    return NULL;
}

/* One line of the report: KIND \t PID \t PATH; 0 when it is not one. */
static int report_line(char *l, const char **kind, long *pid, const char **path)
{
    char *t1 = strchr(l, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2 || !t2[1])
        return 0;
    *t1 = *t2 = '\0';
    char *end;
    *pid = strtol(t1 + 1, &end, 10);
    *kind = l;
    *path = t2 + 1;
    return end != t1 + 1 && !*end;
}

/* A process of APP that said it started timing (Init), and what became of
 * it. */
typedef struct started_proc {
    long pid;
    const char *output, *journal;   /* in the report's text; journal NULL: none */
    int done;                       /* it wrote a result or a rescue file */
} started_proc;

/* The latest process of that pid still without a result (a pid that
 * called exec starts again under the same pid). */
static started_proc *open_proc(started_proc *v, size_t n, long pid)
{
    for (size_t i = n; i-- > 0;)
        if (v[i].pid == pid && !v[i].done)
            return &v[i];
    return NULL;
}

/* Whether process pid left a batch file (the one copy of its calls when
 * it had no journal: batch_left makes its result). */
static int batch_of(const started_proc *batches, size_t n, long pid)
{
    for (size_t i = 0; i < n; i++)
        if (batches[i].pid == pid && access(batches[i].output, F_OK) == 0)
            return 1;
    return 0;
}

/* A batch of Init..Close cycles whose process ended before the batch's
 * Close (killed, or between cycles) left its batch file (SHIM.md,
 * "Several Init..Close cycles"): it becomes the result it names. A process
 * that still runs (a daemon) delivers its batch itself. */
static void batch_left(long pid, const char *path)
{
    static const char suffix[] = ".batch.rescue";
    size_t len = strlen(path);
    if (access(path, F_OK) != 0 || len <= sizeof suffix - 1 ||
        strcmp(path + len - (sizeof suffix - 1), suffix) != 0)
        return;     /* delivered (or not a batch file's name) */
    if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
        sl_error("run", "process %ld still runs: its Init..Close cycles since its last result "
                 "are in %s until it delivers them", pid, path);
        return;
    }
    char *output = strndup(path, len - (sizeof suffix - 1));
    char *written = NULL;
    int rc = output ? sl_rescue_to_result(path, output, &written) : -ENOMEM;
    if (rc == 0) {
        unlink(path);
        sl_error("run", "result in %s (Init..Close cycles of process %ld, from the batch file it "
                 "left: it ended before the batch's Close)", written ? written : output, pid);
    } else {
        sl_error("run", "%s: the batch file of process %ld could not be turned into a result "
                 "(%s): convert it with 'scope-likwid convert %s -o %s'", path, pid,
                 strerror(-rc), path, output ? output : "OUTPUT.h5");
    }
    free(written);
    free(output);
}

size_t sl_run_report_results(const char *report, int wait_status)
{
    char *text = NULL;
    size_t len = 0;
    if (sl_read_file(report, (size_t)1 << 24, &text, &len) != 0)
        return 0;
    started_proc *procs = NULL, *batches = NULL;
    size_t n = 0, cap = 0, nbatch = 0, batch_cap = 0;
    for (char *l = text, *e; l && *l; l = e ? e + 1 : NULL) {
        e = strchr(l, '\n');
        if (e)
            *e = '\0';
        const char *kind, *path;
        long pid;
        if (!report_line(l, &kind, &pid, &path))
            continue;
        started_proc *p = open_proc(procs, n, pid);
        if (!strcmp(kind, "batch")) {
            if (SL_VEC_RESERVE(batches, batch_cap, nbatch, 1) == 0)
                batches[nbatch++] = (started_proc){pid, path, NULL, 0};
            continue;
        }
        if (!strcmp(kind, "init")) {
            if (SL_VEC_RESERVE(procs, cap, n, 1) == 0)
                procs[n++] = (started_proc){pid, path, NULL, 0};
            continue;
        }
        if (!strcmp(kind, "journal")) {
            if (p)
                p->journal = path;
            continue;
        }
        if (p)
            p->done = 1;
        struct stat st;
        /* another name than the one asked for: that one is taken */
        int taken = p && strcmp(p->output, path) != 0 && stat(p->output, &st) == 0;
        if (!strcmp(kind, "wrote") && stat(path, &st) == 0 && taken)
            sl_error("run", "result in %s (%s exists: never overwritten)", path, p->output);
        else if (!strcmp(kind, "wrote") && stat(path, &st) == 0)
            sl_error("run", "result in %s", path);
        else if (!strcmp(kind, "rescue") && stat(path, &st) == 0)
            sl_error("run", "no result file written; the timing is in %s (the line above says "
                     "how to convert it)", path);
    }
    char why[128];
    if (WIFSIGNALED(wait_status))
        snprintf(why, sizeof why, "was killed by signal %d (%s)", WTERMSIG(wait_status),
                 strsignal(WTERMSIG(wait_status)));
    else
        snprintf(why, sizeof why, "ended without likwid_markerClose");
    for (size_t i = 0; i < n; i++) {
        if (procs[i].done)
            continue;
        /* a batch's journal replaces its batch file (recover removes it) */
        if (procs[i].journal && access(procs[i].journal, F_OK) == 0)
            sl_recover_journal(procs[i].journal, why);
        else if (!batch_of(batches, nbatch, procs[i].pid))
            sl_error("run", "process %ld ended without writing %s and left no journal", procs[i].pid,
                     procs[i].output);
    }
    for (size_t i = 0; i < nbatch; i++)
        batch_left(batches[i].pid, batches[i].output);
    free(batches);
    free(procs);
    free(text);
    return n;
}
