/* Helper processes: output, exit codes, signals, timeouts, SIGCHLD ignored,
 * no SIGCHLD sent and never seen by the caller's wait(), blocked signals in
 * the caller, inherited descriptors; LD_PRELOAD cleaning. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim_test_util.h"
#include "spawn.h"

static char *dir;

static void setup(void)
{
    dir = tu_tempdir();
    cr_assert_not_null(dir);
}

static sl_spawn_result run(const char *body, double timeout)
{
    char *path = tu_script(dir, "helper.sh", body);
    cr_assert_not_null(path);
    const char *argv[] = {path, "arg one", NULL};
    char *envp[] = {"HELPER_ENV=yes", NULL};
    sl_spawn_result res;
    int rc = sl_spawn_run(argv, envp, timeout, 0, &res);
    cr_assert_eq(rc, 0, "spawn failed: %s", strerror(-rc));
    free(path);
    return res;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void assert_no_children(void)
{
    errno = 0;
    cr_assert_eq(waitpid(-1, NULL, WNOHANG | __WALL), -1, "a child (zombie) is left behind");
    cr_assert_eq(errno, ECHILD);
}

Test(spawn, output_and_exit_0, .init = setup)
{
    sl_spawn_result r = run("echo \"out $1 $HELPER_ENV\"; echo 'some error' >&2; exit 0", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
    cr_assert_eq(r.exit_code, 0);
    cr_assert_str_eq(r.out, "out arg one yes\n");
    cr_assert_eq(r.out_len, strlen("out arg one yes\n"));
    cr_assert_str_eq(r.err, "some error\n");
    char *d = sl_spawn_describe(&r, 5);
    cr_assert_str_eq(d, "exited with status 0: some error");
    free(d);
    sl_spawn_result_free(&r);
    assert_no_children();
}

Test(spawn, exit_1_names_last_stderr_line, .init = setup)
{
    sl_spawn_result r = run("echo first >&2; echo 'the reason' >&2; echo; exit 1", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
    cr_assert_eq(r.exit_code, 1);
    char *d = sl_spawn_describe(&r, 5);
    cr_assert_str_eq(d, "exited with status 1: the reason");
    free(d);
    sl_spawn_result_free(&r);
}

Test(spawn, killed_by_sigsegv, .init = setup)
{
    sl_spawn_result r = run("echo 'about to crash' >&2; kill -SEGV $$; sleep 5", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_SIGNALED);
    cr_assert_eq(r.signal, SIGSEGV);
    char *d = sl_spawn_describe(&r, 5);
    cr_assert_str_eq(d, "killed by signal 11 (stderr: about to crash)");
    free(d);
    sl_spawn_result_free(&r);
    assert_no_children();
}

Test(spawn, hang_is_killed_at_deadline, .init = setup)
{
    double t0 = now_s();
    sl_spawn_result r = run("echo partial; exec sleep 30", 0.3);
    double took = now_s() - t0;
    cr_assert_eq(r.outcome, SL_SPAWN_TIMED_OUT);
    cr_assert_geq(took, 0.29);
    cr_assert_lt(took, 3.0, "took %g s", took);
    cr_assert_str_eq(r.out, "partial\n");
    char *d = sl_spawn_describe(&r, 0.3);
    cr_assert_str_eq(d, "timed out after 0.3 s");
    free(d);
    sl_spawn_result_free(&r);
    assert_no_children();
}

Test(spawn, hang_after_closing_pipes, .init = setup)
{
    /* EOF on both pipes, but the process goes on: the deadline still holds. */
    double t0 = now_s();
    sl_spawn_result r = run("exec >/dev/null 2>&1; exec sleep 30", 0.3);
    cr_assert_eq(r.outcome, SL_SPAWN_TIMED_OUT);
    cr_assert_lt(now_s() - t0, 3.0);
    sl_spawn_result_free(&r);
    assert_no_children();
}

Test(spawn, sigchld_ignored_still_gives_status, .init = setup)
{
    /* SIG_IGN auto-reaps only children that send SIGCHLD: ours sends none. */
    signal(SIGCHLD, SIG_IGN);
    sl_spawn_result r = run("echo answer; exit 3", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
    cr_assert_eq(r.exit_code, 3);
    cr_assert_str_eq(r.out, "answer\n");
    sl_spawn_result_free(&r);
    assert_no_children();
}

static volatile sig_atomic_t chld_seen;
static void count_chld(int sig)
{
    (void)sig;
    chld_seen++;
}

Test(spawn, no_sigchld_and_invisible_to_wait, .init = setup)
{
    struct sigaction sa = {.sa_handler = count_chld};
    sigaction(SIGCHLD, &sa, NULL);
    for (int i = 0; i < 3; i++) {
        sl_spawn_result r = run("exit 0", 5);
        cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
        sl_spawn_result_free(&r);
    }
    cr_assert_eq(chld_seen, 0, "the helper sent SIGCHLD %d times", (int)chld_seen);
    /* The caller has no child of its own: wait() says so, as without us. */
    errno = 0;
    cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
    cr_assert_eq(errno, ECHILD);
    assert_no_children();
}

static void *waiter(void *arg)
{
    int st;
    *(pid_t *)arg = wait(&st);
    return NULL;
}

Test(spawn, blocked_wait_reaps_only_its_own, .init = setup)
{
    /* A supervisor thread in wait(): the helper runs and ends meanwhile;
     * the supervisor gets its own child, which ends after the helper. */
    int gate[2];
    cr_assert_eq(pipe(gate), 0);
    pid_t own = fork();
    if (own == 0) {
        char c;
        close(gate[1]);
        while (read(gate[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(7);
    }
    close(gate[0]);
    pid_t got = 0;
    pthread_t th;
    pthread_create(&th, NULL, waiter, &got);
    struct timespec settle = {0, 50000000};
    nanosleep(&settle, NULL);
    sl_spawn_result r = run("exit 4", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED, "the helper's status was taken from us");
    cr_assert_eq(r.exit_code, 4);
    sl_spawn_result_free(&r);
    close(gate[1]);
    pthread_join(th, NULL);
    cr_assert_eq(got, own, "wait() returned %d, not the caller's own child %d", (int)got,
                 (int)own);
    assert_no_children();
}

static void *spawn_with_all_blocked(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sl_spawn_result *r = malloc(sizeof *r);
    *r = run("exec grep -E '^(SigBlk|SigIgn):' /proc/self/status", 5);
    return r;
}

Test(spawn, caller_blocks_and_ignores_signals, .init = setup)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    pthread_t th;
    void *ret;
    pthread_create(&th, NULL, spawn_with_all_blocked, NULL);
    pthread_join(th, &ret);
    sl_spawn_result *r = ret;
    cr_assert_eq(r->outcome, SL_SPAWN_EXITED);
    unsigned long long blk = 1, ign = 1;
    cr_assert_eq(sscanf(r->out, "SigBlk: %llx SigIgn: %llx", &blk, &ign), 2, "%s", r->out);
    cr_assert_eq(blk, 0, "the helper inherited the blocked signals: %s", r->out);
    /* (the test's own parent may ignore glibc's internal signals: only ours count) */
    cr_assert_eq(ign & ((1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1))), 0,
                 "the helper inherited ignored signals: %s", r->out);
    sl_spawn_result_free(r);
    free(r);
}

Test(spawn, blocked_caller_still_times_out, .init = setup)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sl_spawn_result r = run("exec sleep 30", 0.2);
    cr_assert_eq(r.outcome, SL_SPAWN_TIMED_OUT);
    sl_spawn_result_free(&r);
    assert_no_children();
}

Test(spawn, no_extra_descriptors, .init = setup)
{
    int fd = open("/dev/null", O_RDONLY);   /* deliberately not O_CLOEXEC */
    cr_assert_geq(fd, 0);
    cr_assert_eq(dup2(fd, 57), 57);
    sl_spawn_result r = run("for f in /proc/$$/fd/*; do echo \"${f##*/} $(readlink $f)\"; done", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
    cr_assert_null(strstr(r.out, "57 "), "fd 57 was inherited:\n%s", r.out);
    /* stdin is /dev/null, stdout and stderr are our pipes */
    cr_assert_not_null(strstr(r.out, "0 /dev/null\n"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "1 pipe:"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "2 pipe:"), "%s", r.out);
    sl_spawn_result_free(&r);
    close(fd);
    close(57);
}

Test(spawn, closed_stdio_in_caller, .init = setup)
{
    /* An application without stdin/stdout: our pipes must not land on 0-2. */
    close(0);
    close(1);
    sl_spawn_result r = run("echo fine; echo err >&2", 5);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
    cr_assert_str_eq(r.out, "fine\n");
    cr_assert_str_eq(r.err, "err\n");
    sl_spawn_result_free(&r);
}

Test(spawn, output_capped, .init = setup)
{
    char *path = tu_script(dir, "big.sh", "head -c 100000 /dev/zero; echo done >&2");
    const char *argv[] = {path, NULL};
    char *envp[] = {NULL};
    sl_spawn_result r;
    cr_assert_eq(sl_spawn_run(argv, envp, 5, 1000, &r), 0);
    cr_assert_eq(r.outcome, SL_SPAWN_EXITED);
    cr_assert_eq(r.out_len, 1000);
    cr_assert(r.truncated);
    cr_assert_str_eq(r.err, "done\n");
    sl_spawn_result_free(&r);
    free(path);
}

Test(spawn, missing_program, .init = setup)
{
    const char *argv[] = {"/nonexistent/scope-likwid-collect", NULL};
    char *envp[] = {NULL};
    sl_spawn_result r;
    cr_assert_eq(sl_spawn_run(argv, envp, 5, 0, &r), -ENOENT);
    cr_assert_eq(r.outcome, SL_SPAWN_FAILED);
    char *d = sl_spawn_describe(&r, 5);
    cr_assert_str_eq(d, "could not be started: No such file or directory");
    free(d);
    sl_spawn_result_free(&r);
}

Test(spawn, last_line)
{
    char *l = sl_last_line("a\nb\n\n  \n", 8);
    cr_assert_str_eq(l, "b");
    free(l);
    l = sl_last_line("", 0);
    cr_assert_str_eq(l, "");
    free(l);
}

/* ---- LD_PRELOAD ---- */

static char *clean(const char *v, const char *self)
{
    int oom = 0;
    char *s = sl_ld_preload_clean(v, self, &oom);
    cr_assert_eq(oom, 0);
    return s;
}

Test(ld_preload, ours_removed_others_kept)
{
    char *s = clean("/usr/lib/liblikwidpin.so /opt/sl/lib/libscope_likwid.so", NULL);
    cr_assert_str_eq(s, "/usr/lib/liblikwidpin.so");
    free(s);
    s = clean("libfoo.so:/b/shim/libscope_likwid.so:libbar.so", NULL);
    cr_assert_str_eq(s, "libfoo.so:libbar.so");
    free(s);
    s = clean("libscope_likwid.so.0 libscope_likwid_extra.so", NULL);
    cr_assert_str_eq(s, "libscope_likwid_extra.so");
    free(s);
}

Test(ld_preload, empty_result_is_null)
{
    cr_assert_null(clean("/x/libscope_likwid.so", NULL));
    cr_assert_null(clean("libscope_likwid.so  : libscope_likwid.so", NULL));
    cr_assert_null(clean("", NULL));
}

Test(ld_preload, removed_by_real_path, .init = setup)
{
    char lib[512], link[512], v[1200];
    snprintf(lib, sizeof lib, "%s/renamed.so", dir);
    snprintf(link, sizeof link, "%s/alias.so", dir);
    close(open(lib, O_CREAT | O_WRONLY, 0644));
    cr_assert_eq(symlink(lib, link), 0);
    snprintf(v, sizeof v, "%s libother.so", link);
    char *s = clean(v, lib);
    cr_assert_str_eq(s, "libother.so");
    free(s);
}

/* A variable longer than execve takes (set by the application after
 * Init) is left out of a helper's environment; the others are kept. */
Test(ld_preload, helper_env_leaves_out_huge)
{
    size_t n = 200 << 10;
    char *big = malloc(n + 5);
    cr_assert_not_null(big);
    memcpy(big, "BIG=", 4);
    memset(big + 4, 'x', n);
    big[n + 4] = '\0';
    char *environ_[] = {"A=1", big, "B=2", NULL};
    char **env = sl_helper_env(environ_, NULL);
    cr_assert_not_null(env);
    cr_assert_str_eq(env[0], "A=1");
    cr_assert_str_eq(env[1], "B=2");
    cr_assert_str_eq(env[2], "SCOPE_LIKWID_DISABLE=1");
    cr_assert_null(env[3]);
    sl_env_free(env);
    free(big);
}

Test(ld_preload, helper_env)
{
    char *environ_[] = {"A=1", "LD_PRELOAD=/p/liblikwidpin.so:/q/libscope_likwid.so",
                        "SCOPE_LIKWID_DISABLE=0", "LIKWID_FILEPATH=/tmp/x", NULL};
    char **env = sl_helper_env(environ_, NULL);
    cr_assert_not_null(env);
    size_t n = 0;
    int disable = 0, preload = 0;
    for (; env[n]; n++) {
        if (strncmp(env[n], "SCOPE_LIKWID_DISABLE=", 21) == 0) {
            cr_assert_str_eq(env[n], "SCOPE_LIKWID_DISABLE=1");
            disable++;
        }
        if (strncmp(env[n], "LD_PRELOAD=", 11) == 0) {
            cr_assert_str_eq(env[n], "LD_PRELOAD=/p/liblikwidpin.so");
            preload++;
        }
    }
    cr_assert_eq(disable, 1);
    cr_assert_eq(preload, 1);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(env[0], "A=1");
    cr_assert_str_eq(env[2], "LIKWID_FILEPATH=/tmp/x");
    sl_env_free(env);

    char *only_ours[] = {"LD_PRELOAD=/q/libscope_likwid.so", NULL};
    env = sl_helper_env(only_ours, NULL);
    cr_assert_str_eq(env[0], "SCOPE_LIKWID_DISABLE=1");
    cr_assert_null(env[1], "an empty LD_PRELOAD is unset");
    sl_env_free(env);
}
