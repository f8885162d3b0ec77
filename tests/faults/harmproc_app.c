/* What services, sandboxes, containers and crash handlers do around the
 * marker API (harmproc.sh). stdout is deterministic, so a run with the shim can
 * be compared byte for byte with one without it.
 *
 *   harmproc_app pid1            run as a PID namespace's init (unshare -p -f):
 *                            times "work" 9 times, sends itself SIGTERM
 *                            (ignored: PID 1 left at SIG_DFL), times "work"
 *                            11 more times, prints what Start and Stop
 *                            returned, Closes
 *   harmproc_app seccomp close|exit|term
 *                            times "work" 3 times, then sandboxes itself
 *                            (no_new_privs, a seccomp filter that kills the
 *                            process at fork, vfork, a clone without
 *                            CLONE_THREAD, execve, execveat; clone3 gets
 *                            ENOSYS), times "work" twice more; then Close
 *                            (close), returns without Close (exit), or
 *                            raises SIGTERM inside "inside" (term)
 *   harmproc_app close2          times "work" 5 times; two threads call Close at
 *                            once (main 5 ms later); main returns as soon
 *                            as its own Close did
 *   harmproc_app forkclose       times "work" 5 times; a manager thread forks
 *                            workers (which wait until killed) while main
 *                            Closes; then main kills and reaps them and
 *                            prints how many there were (at least one)
 *   harmproc_app forkafter       times "setup" once, Closes, forks 3 workers
 *                            that each Init, time "worker" 4 times and
 *                            Close; prints their exit statuses
 *   harmproc_app altstack        a SIGSEGV handler on an 8 KiB alternate stack
 *                            calls Close, writes a line to stderr and
 *                            re-raises; times "work" 3 times, then faults
 *                            inside "inside"
 *   harmproc_app altstack-exit   the same, the handler calls exit(3) instead
 *   harmproc_app drop STEP[+STEP...]
 *                            times "work" 3 times, then takes the steps:
 *                            nobody (drops root for uid and gid 65534
 *                            through libc: setgroups, setgid, setuid),
 *                            nobody-raw (the same by system calls, past
 *                            libc), chroot (into its working directory),
 *                            jail=DIR (chroot into DIR), closefrom
 *                            (closes every descriptor from 3 up), term
 *                            (SIGTERM inside "inside"); times "work"
 *                            twice more and Closes
 *   harmproc_app vfull KIB       times "work" 3 times, takes all the address
 *                            space (ulimit -v) but KIB KiB, and Closes
 *   harmproc_app vroom           times "work" 3 times, prints how much
 *                            address space (ulimit -v) is left, in KiB
 *                            ("room KIB"), and Closes
 *   harmproc_app bigenv          times "work" 3 times, sets a 200 KiB
 *                            environment variable, times "work" twice more,
 *                            Closes
 *   harmproc_app plain           times "work" 3 times and Closes
 *   harmproc_app rusage          times "work" 5 times, Closes, prints its
 *                            children's resource usage (it has none)
 *   harmproc_app killclose       times "work" 5 times; a thread SIGKILLs the
 *                            process 300 ms into main's Close
 *   harmproc_app supervise CMD...
 *                            a supervisor: a child subreaper that runs CMD,
 *                            reaps every process that ends below it, names
 *                            each one it never started, and prints how CMD
 *                            ended (its exit status, or 128 + signal) */

#include <errno.h>
#include <likwid-marker.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static int start_rc, stop_rc;

static void work_region(const char *tag, int calls)
{
    for (int i = 0; i < calls; i++) {
        start_rc = likwid_markerStartRegion(tag);
        double s = 0;
        for (int k = 0; k < 20000; k++)
            s += (double)k * 0.5;
        sink = s;
        stop_rc = likwid_markerStopRegion(tag);
    }
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int pid1_mode(void)
{
    likwid_markerInit();
    work_region("work", 9);
    kill(getpid(), SIGTERM);
    nap_ms(50);
    work_region("work", 11);
    printf("harm_app: pid %d; the last Start returned %d, the last Stop %d\n", (int)getpid(),
           start_rc, stop_rc);
    likwid_markerClose();
    printf("harm_app: closed\n");
    return 0;
}

/* ---- a sandbox installed after setup ---- */

#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define KILL BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

static int sandbox(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        ALLOW,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        ALLOW,
        KILL,
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fork, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_vfork, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
        KILL,
        ALLOW,
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("harm_app: seccomp");
        return -1;
    }
    return 0;
}

static int seccomp_mode(const char *how)
{
    likwid_markerInit();
    work_region("work", 3);
    if (sandbox() != 0)
        return 2;
    work_region("work", 2);
    printf("harm_app: sandboxed\n");
    fflush(stdout);
    if (strcmp(how, "close") == 0)
        likwid_markerClose();
    else if (strcmp(how, "term") == 0) {
        likwid_markerStartRegion("inside");
        raise(SIGTERM);
    }
    printf("harm_app: %s done\n", how);
    return 0;
}

/* ---- two threads close ---- */

static pthread_barrier_t both;

static void *closer(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&both);
    likwid_markerClose();
    return NULL;
}

static int close2_mode(void)
{
    likwid_markerInit();
    work_region("work", 5);
    pthread_barrier_init(&both, NULL, 2);
    pthread_t t;
    if (pthread_create(&t, NULL, closer, NULL) != 0)
        return 2;
    pthread_barrier_wait(&both);
    nap_ms(5);    /* mostly the other thread's Close comes first */
    likwid_markerClose();
    printf("harm_app: main closed\n");
    return 0;     /* the other thread may still be in Close */
}

/* ---- a manager thread forks while main closes ---- */

#define MAX_WORKERS 4096
static pid_t workers[MAX_WORKERS];
static volatile int nworkers, closing_done;

static void *manager(void *arg)
{
    (void)arg;
    while (!closing_done && nworkers < MAX_WORKERS) {
        pid_t p = fork();
        if (p == 0) {
            for (;;)
                pause();
        }
        if (p > 0)
            workers[nworkers++] = p;
        nap_ms(2);
    }
    return NULL;
}

static int forkclose_mode(void)
{
    likwid_markerInit();
    work_region("work", 5);
    pthread_t t;
    if (pthread_create(&t, NULL, manager, NULL) != 0)
        return 2;
    while (nworkers == 0)
        nap_ms(1);
    likwid_markerClose();
    closing_done = 1;
    pthread_join(t, NULL);
    for (int i = 0; i < nworkers; i++) {
        kill(workers[i], SIGKILL);
        while (waitpid(workers[i], NULL, 0) < 0 && errno == EINTR)
            ;
    }
    printf("harm_app: closed while forking: %s\n", nworkers > 0 ? "yes" : "no");
    return 0;
}

/* ---- children forked after Close time on their own ---- */

static int forkafter_mode(void)
{
    likwid_markerInit();
    work_region("setup", 1);
    likwid_markerClose();
    fflush(stdout);
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            likwid_markerInit();
            work_region("worker", 4);
            likwid_markerClose();
            exit(0);
        }
    }
    for (int i = 0; i < 3; i++) {
        int st = -1;
        while (kids[i] > 0 && waitpid(kids[i], &st, 0) < 0 && errno == EINTR)
            ;
        printf("harm_app: worker %d exited %d\n", i, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    return 0;
}

/* ---- a crash handler on a small alternate stack ---- */

static int crash_exits;    /* altstack-exit: the handler calls exit(3) */

static void crash_handler(int sig)
{
    if (crash_exits) {
        static const char line[] = "harm_app: crash handler: exit(3)\n";
        ssize_t w = write(STDERR_FILENO, line, sizeof line - 1);
        (void)w;
        exit(3);
    }
    likwid_markerClose();
    static const char line[] = "harm_app: crash handler: closed, re-raising\n";
    ssize_t w = write(STDERR_FILENO, line, sizeof line - 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

static int *volatile nowhere;

static int altstack_mode(void)
{
    static char alt[8192];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = crash_handler;
    sa.sa_flags = SA_ONSTACK;
    if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGSEGV, &sa, NULL) != 0)
        return 2;
    likwid_markerInit();
    work_region("work", 3);
    printf("harm_app: faulting\n");
    fflush(stdout);
    likwid_markerStartRegion("inside");
    *nowhere = 1;
    return 0;
}

/* ---- a service drops its privileges after setup ---- */

/* One step of drop: 0, or -1 (said). */
static int drop_step(const char *step)
{
    int rc = 0;
    if (!strcmp(step, "nobody"))
        rc = setgroups(0, NULL) || setgid(65534) || setuid(65534) ? -1 : 0;
    else if (!strcmp(step, "nobody-raw"))
        rc = syscall(SYS_setgroups, 0, NULL) || syscall(SYS_setresgid, 65534, 65534, 65534) ||
                     syscall(SYS_setresuid, 65534, 65534, 65534)
                 ? -1 : 0;
    else if (!strcmp(step, "chroot"))
        rc = chroot(".") || chdir("/") ? -1 : 0;
    else if (!strncmp(step, "jail=", 5))
        rc = chroot(step + 5) || chdir("/") ? -1 : 0;
    else if (!strcmp(step, "closefrom"))
        closefrom(3);
    else if (!strcmp(step, "term")) {
        likwid_markerStartRegion("inside");
        raise(SIGTERM);     /* dies of it, as without the shim */
    }
    else
        errno = EINVAL, rc = -1;
    if (rc)
        fprintf(stderr, "harm_app: %s: %s\n", step, strerror(errno));
    return rc;
}

static int dropprivs_mode(const char *how)
{
    likwid_markerInit();
    work_region("work", 3);
    char steps[4096];
    snprintf(steps, sizeof steps, "%s", how);
    for (char *save = NULL, *s = strtok_r(steps, "+", &save); s; s = strtok_r(NULL, "+", &save))
        if (drop_step(s) != 0)
            return 2;
    work_region("work", 2);
    likwid_markerClose();
    printf("harm_app: %s: closed\n", strncmp(how, "jail=", 5) ? how : "jail");
    return 0;
}

/* ---- the address space nearly full at Close ---- */

/* Takes what is left of the address space (ulimit -v) but `spare_kib` KiB
 * in PROT_NONE mappings (nothing is touched), then Closes. */
static void *take(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int vfull_mode(long spare_kib)
{
    likwid_markerInit();
    work_region("work", 3);
    size_t spare = (size_t)spare_kib << 10;
    void *reserve = spare ? take(spare) : NULL;
    for (size_t step = (size_t)1 << 30; step >= 4096; step /= 2)
        while (take(step))
            ;
    if (reserve)
        munmap(reserve, spare);     /* exactly spare_kib left */
    likwid_markerClose();
    printf("harm_app: closed with %ld KiB of address space left\n", spare_kib);
    return 0;
}

/* The address space left: taken in ever smaller steps, counted, given back. */
static size_t room_left(void)
{
    enum { MAX_TAKEN = 1 << 16 };
    static void *taken[MAX_TAKEN];
    static size_t sizes[MAX_TAKEN];
    size_t n = 0, sum = 0;
    for (size_t step = (size_t)1 << 30; step >= 4096; step /= 2)
        while (n < MAX_TAKEN && (taken[n] = take(step)) != NULL) {
            sizes[n++] = step;
            sum += step;
        }
    while (n > 0) {
        n--;
        munmap(taken[n], sizes[n]);
    }
    return sum;
}

static int vroom_mode(void)
{
    likwid_markerInit();
    work_region("work", 3);
    printf("room %zu\n", room_left() >> 10);
    likwid_markerClose();
    return 0;
}

static int vfull_arg(const char *kib)
{
    return vfull_mode(atol(kib));
}

/* ---- a 200 KiB environment variable ---- */

static int bigenv_mode(void)
{
    likwid_markerInit();
    work_region("work", 3);
    size_t n = 200 << 10;
    char *v = malloc(n + 1);
    if (!v)
        return 2;
    memset(v, 'x', n);
    v[n] = '\0';
    setenv("HARM_BIG", v, 1);
    free(v);
    work_region("work", 2);
    likwid_markerClose();
    printf("harm_app: closed with a %zu-byte variable\n", strlen(getenv("HARM_BIG")));
    return 0;
}

/* ---- what the application's children cost, and a supervisor ---- */

static int plain_mode(void)
{
    likwid_markerInit();
    work_region("work", 3);
    likwid_markerClose();
    return 0;
}

static int rusage_mode(void)
{
    likwid_markerInit();
    work_region("work", 5);
    likwid_markerClose();
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    printf("children: utime %ld.%06ld stime %ld.%06ld maxrss %ld minflt %ld majflt %ld "
           "nvcsw %ld nivcsw %ld inblock %ld oublock %ld\n",
           (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
           (long)ru.ru_stime.tv_usec, ru.ru_maxrss, ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw,
           ru.ru_nivcsw, ru.ru_inblock, ru.ru_oublock);
    return 0;
}

static void *kill_soon(void *arg)
{
    (void)arg;
    nap_ms(300);
    kill(getpid(), SIGKILL);
    return NULL;
}

static int killclose_mode(void)
{
    likwid_markerInit();
    work_region("work", 5);
    pthread_t t;
    pthread_create(&t, NULL, kill_soon, NULL);
    likwid_markerClose();
    pthread_join(t, NULL);
    return 0;
}

static int supervise(char **cmd)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    pid_t child = fork();
    if (child == 0) {
        execvp(cmd[0], cmd);
        _exit(127);
    }
    int code = -1;
    for (;;) {
        int st;
        pid_t w = wait(&st);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            break;
        if (w == child)
            code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        else
            printf("supervisor: reaped process %ld, which it never started\n", (long)w);
    }
    printf("supervisor: the command ended with %d\n", code);
    return 0;
}

static int altstack_exit_mode(void)
{
    crash_exits = 1;
    return altstack_mode();
}

/* The modes: name, the function without an argument, or with one. */
static const struct {
    const char *name;
    int (*plain)(void);
    int (*with_arg)(const char *);
} modes[] = {
    {"pid1", pid1_mode, NULL},
    {"seccomp", NULL, seccomp_mode},
    {"close2", close2_mode, NULL},
    {"forkclose", forkclose_mode, NULL},
    {"forkafter", forkafter_mode, NULL},
    {"altstack", altstack_mode, NULL},
    {"altstack-exit", altstack_exit_mode, NULL},
    {"bigenv", bigenv_mode, NULL},
    {"drop", NULL, dropprivs_mode},
    {"vfull", NULL, vfull_arg},
    {"vroom", vroom_mode, NULL},
    {"plain", plain_mode, NULL},
    {"rusage", rusage_mode, NULL},
    {"killclose", killclose_mode, NULL},
};

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(m, "supervise") && argc > 2)
        return supervise(argv + 2);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(m, modes[i].name) != 0)
            continue;
        if (modes[i].plain)
            return modes[i].plain();
        if (argc > 2)
            return modes[i].with_arg(argv[2]);
    }
    fprintf(stderr, "harm_app: unknown mode '%s'\n", m);
    return 2;
}
