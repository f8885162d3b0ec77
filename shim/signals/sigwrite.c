/* The result file at a terminating signal (signals.h): the writer
 * helper turns the journal into the result file while the dying process
 * waits for it. Everything the handler needs (the writer's path, argv and
 * environment, the helper's stacks, the journal's name) is prepared at
 * Init; in the handler only async-signal-safe calls run (pipe2, clone,
 * execve, poll, read, waitpid, write, stat), and nothing is allocated. */
#include "signals.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static struct {
    char *argv[6];          /* writer --journal JOURNAL --deadline SECONDS */
    char *argv_into[7];     /* writer --into-stdin --journal ...: the result made at a user change */
    char deadline[32];
    char **envp;
    void *map;
    char *journal;
    char *output;           /* the cycle's result (os/anchor.c: one made for it) */
    char *problem;          /* why the writer cannot run, or NULL */
    double timeout_s;
} prep;

/* The handler's buffers: static, never on the (maybe small) stack. */
static char out_buf[4096 + 64];  /* the writer's stdout: its proof, the path it wrote */
static char err_buf[1024];  /* the last bytes of its stderr */
static char line[3 * 4096 + 512];

static char oom_problem[] = "out of memory at likwid_markerInit";

void sl_sigwrite_prepare(const char *journal, const char *output, const char *writer_override,
                         double timeout_s)
{
    /* Made aside, then put in place with every signal blocked: a later
     * cycle's Init, or a forked child's first marker call, replaces what
     * an earlier Init prepared, which the handler may be reading. */
    char *problem = NULL;
    char *writer = sl_helper_path(writer_override, "scope-likwid-write", &problem);
    char *journal_copy = strdup(journal), *output_copy = strdup(output);
    char **envp = sl_helper_environ();
    void *map = sl_child_map();
    if (writer && (!journal_copy || !output_copy || !envp || !map)) {
        free(problem);
        problem = oom_problem;
    }
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    char *old_writer = prep.argv[0], *old_journal = prep.journal, *old_problem = prep.problem;
    char *old_output = prep.output;
    char **old_envp = prep.envp;
    void *old_map = prep.map;
    prep.problem = problem;
    prep.journal = journal_copy;
    prep.output = output_copy;
    prep.envp = envp;
    prep.map = map;
    prep.timeout_s = timeout_s;
    prep.argv[0] = writer;
    prep.argv[1] = "--journal";
    prep.argv[2] = prep.journal;
    prep.argv[3] = "--deadline";
    snprintf(prep.deadline, sizeof prep.deadline, "%g", timeout_s);
    prep.argv[4] = prep.deadline;
    prep.argv[5] = NULL;
    prep.argv_into[0] = writer;
    prep.argv_into[1] = "--into-stdin";
    memcpy(prep.argv_into + 2, prep.argv + 1, 5 * sizeof prep.argv[0]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(old_writer);
    free(old_journal);
    free(old_output);
    if (old_problem != oom_problem)
        free(old_problem);
    sl_env_free(old_envp);
    sl_child_unmap(old_map);
}

/* ---- one line, built without stdio ---- */

typedef struct text {
    size_t n;
} text;

static void put(text *t, const char *s)
{
    while (s && *s && t->n + 2 < sizeof line)
        line[t->n++] = *s++;
}

static void put_int(text *t, long v)
{
    char d[24];
    int k = 0;
    unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
    do
        d[k++] = (char)('0' + u % 10);
    while ((u /= 10) && k < (int)sizeof d);
    if (v < 0)
        put(t, "-");
    while (k > 0) {
        char c[2] = {d[--k], '\0'};
        put(t, c);
    }
}

static void say(text *t)
{
    line[t->n++] = '\n';
    sl_log_line_raw(line, t->n);
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGTERM: return "Terminated";
    case SIGINT: return "Interrupt";
    case SIGHUP: return "Hangup";
    case SIGXCPU: return "CPU time limit exceeded";
    case SIGUSR2: return "User defined signal 2";
    default: return "signal";
    }
}

static const char *err_name(int e)
{
    switch (e) {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case ENOMEM: return "Cannot allocate memory";
    case EAGAIN: return "Resource temporarily unavailable";
    case EMFILE: return "Too many open files";
    default: return "error";
    }
}

static void put_sig(text *t, int sig)
{
    put(t, "signal ");
    put_int(t, sig);
    put(t, " (");
    put(t, sig_name(sig));
    put(t, ")");
}

/* The one line when the result could not be written. */
static void say_not_written(int sig, const char *reason, long num, const char *tail,
                            const char *more)
{
    text t = {0};
    put(&t, "scope-likwid: could not write the result at ");
    put_sig(&t, sig);
    put(&t, " (");
    put(&t, reason);
    if (num >= 0)
        put_int(&t, num);
    put(&t, tail);
    put(&t, more);
    put(&t, "); the timing is in ");
    put(&t, prep.journal);
    put(&t, ": recover it with 'scope-likwid recover ");
    put(&t, prep.journal);
    put(&t, "'");
    say(&t);
}

void sl_sigwrite_hint(int sig)
{
    struct stat sb;
    if (!prep.journal || sl_at_stat(prep.journal, &sb, 0) != 0)
        return;     /* no journal left to recover from: nothing true to say */
    text t = {0};
    put(&t, "scope-likwid: ");
    put_sig(&t, sig);
    put(&t, " while the shim was finishing: if the result file is missing, recover the "
            "timing with 'scope-likwid recover ");
    put(&t, prep.journal ? prep.journal : "DIR");
    put(&t, "'");
    say(&t);
}

/* ---- running the writer ---- */

static void append(char *buf, size_t cap, size_t *len, const char *src, size_t n)
{
    if (*len + n >= cap) {
        /* err_buf keeps its tail; out_buf is long enough for one path */
        size_t drop = *len + n - (cap - 1);
        if (drop > *len)
            drop = *len;
        memmove(buf, buf + drop, *len - drop);
        *len -= drop;
        if (n >= cap)
            src += n - (cap - 1), n = cap - 1;
    }
    memcpy(buf + *len, src, n);
    *len += n;
    buf[*len] = '\0';
}

/* The writer's two pipes and how much of each buffer is filled. */
typedef struct answer {
    int fds[2];
    size_t lens[2];
} answer;

/* One ready pipe of the writer read into its buffer (sl_child_read's
 * take): 1 when it ended. */
static int take_answer(void *ctx, int i)
{
    answer *a = ctx;
    char chunk[256];
    ssize_t r = read(a->fds[i], chunk, sizeof chunk);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0)
        return 1;
    if (i == 0)
        append(out_buf, sizeof out_buf, &a->lens[0], chunk, (size_t)r);
    else
        append(err_buf, sizeof err_buf, &a->lens[1], chunk, (size_t)r);
    return 0;
}

/* Reads both pipes until EOF, the writer's end (a process forked
 * meanwhile may hold the pipes) or the deadline; 0 at the deadline. */
static int read_answer(sl_child *c, int out, int err, sl_deadline *d)
{
    answer a = {{out, err}, {0, 0}};
    int fds[2] = {out, err};
    out_buf[0] = err_buf[0] = '\0';
    return sl_child_read(c, fds, d, take_answer, &a);
}

/* The last line of s (the path the writer names after its proof), its
 * end of line cut in place. */
static char *last_line(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '\n')
        s[--n] = '\0';
    char *nl = strrchr(s, '\n');
    return nl ? nl + 1 : s;
}

/* The last non-empty line of err_buf, in place. */
static const char *last_err_line(void)
{
    size_t end = strlen(err_buf);
    while (end > 0 && (err_buf[end - 1] == '\n' || err_buf[end - 1] == ' '))
        err_buf[--end] = '\0';
    char *nl = strrchr(err_buf, '\n');
    return nl ? nl + 1 : err_buf;
}

/* The writer started on the journal with its two pipes (out[0], err[0]
 * the read ends, or -1); 0, or 1 when it could not be (said). */
static int writer_start(int sig, sl_child *c, int out[2], int err[2], int into)
{
    if (sl_spawn_pipe(out) != 0)
        out[0] = out[1] = -1;
    if (sl_spawn_pipe(err) != 0)
        err[0] = err[1] = -1;
    int rc = sl_child_start(c, prep.map, prep.argv[0], into >= 0 ? prep.argv_into : prep.argv,
                            prep.envp, into, out[1], err[1], prep.timeout_s,
                            SL_CHILD_OUTLIVE_TERM);
    for (int i = 0; i < 2; i++) {
        int *p = i ? err : out;
        if (p[1] >= 0)
            close(p[1]);
        if (rc != 0 && p[0] >= 0)
            close(p[0]);
    }
    if (rc == -SL_ESANDBOX) {
        say_not_written(sig, "writer not started: ", -1, SL_SANDBOX_WHY, "");
        return 1;
    }
    if (rc != 0) {
        say_not_written(sig, "writer could not be started: ", -1, err_name(-rc), "");
        return 1;
    }
    return 0;
}

/* Its answer read and its end waited for, within the deadline; 0 with
 * *st its status, or 1 when it timed out (killed, said). */
static int writer_wait(int sig, sl_child *c, int out0, int err0, int *st)
{
    sl_deadline d;
    double wait = prep.timeout_s + WRITER_GRACE_S;
    sl_deadline_start(&d, wait);
    int in_time = read_answer(c, out0, err0, &d);
    if (out0 >= 0)
        close(out0);
    if (err0 >= 0)
        close(err0);
    int ended = 0;
    while (in_time && (ended = sl_child_poll(c, st, 0)) == 0) {
        int ms = sl_deadline_ms(&d);
        if (ms == 0)
            break;
        struct timespec nap = {0, (ms < 2 ? ms : 2) * 1000000L};
        nanosleep(&nap, NULL);
    }
    if (ended == 1)
        return 0;
    sl_child_kill(c);
    sl_child_poll(c, st, 1);
    /* the time waited, to a tenth ("3.5 s", "11 s") */
    long tenths = (long)(wait * 10 + 0.5);
    char frac[8] = " s";
    if (tenths % 10) {
        frac[0] = '.';
        frac[1] = (char)('0' + tenths % 10);
        memcpy(frac + 2, " s", 3);
    }
    say_not_written(sig, "writer timed out after ", tenths / 10, frac, "");
    return 1;
}

/* What the writer said, checked (its proof): the one line. */
static void writer_said(int sig, int st, int out0, int into, const char *made)
{
    if (WIFSIGNALED(st)) {
        say_not_written(sig, "writer killed by signal ", WTERMSIG(st), "", "");
        return;
    }
    if (WEXITSTATUS(st) != 0) {
        const char *l = last_err_line();
        say_not_written(sig, "writer exited with status ", WEXITSTATUS(st), *l ? ": " : "", l);
        return;
    }
    const char *path = last_line(out_buf);
    struct stat sb;
    text t = {0};
    if (out0 < 0) {
        put(&t, "scope-likwid: wrote the result of ");
        put(&t, prep.journal);
        put(&t, " (its name is not known: no descriptor was left for the writer's answer)");
    } else if (into >= 0 ? !strcmp(path, made) && !sl_proof_check_fd(into, out_buf,
                                                                        strlen(out_buf))
                         : *path && sl_at_stat(path, &sb, 0) == 0 && S_ISREG(sb.st_mode) &&
                               !sl_proof_check(path, out_buf, strlen(out_buf))) {
        put(&t, "scope-likwid: wrote ");
        put(&t, path);
        sl_run_report("wrote", path);   /* run names it, as after a Close */
    } else {
        const char *l = last_err_line();
        say_not_written(sig, "the writer named no written file", -1, *l ? ": " : "", l);
        return;
    }
    say(&t);
}

void sl_sigwrite_run(int sig)
{
    if (prep.problem || !prep.argv[0]) {
        say_not_written(sig, "writer ", -1, prep.problem ? prep.problem : "not found", "");
        return;
    }
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    sl_child c;
    /* a result made before a change of user is filled through stdin */
    const char *made = NULL;
    int into = sl_anchor_result(prep.output, &made);
    if (writer_start(sig, &c, out, err, into) != 0)
        return;
    int st = 0;
    if (writer_wait(sig, &c, out[0], err[0], &st) != 0)
        return;
    writer_said(sig, st, out[0], into, made);
}
