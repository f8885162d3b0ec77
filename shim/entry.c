/* The exported entry points: the marker API in C and gfortran's names, and
 * the exec and fork wrappers. */
#include "shim.h"
#include "rebind.h"
#include "anchor.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ==== wrap c ==== */

/* LIKWID's C marker API, defined here so that the preloaded shim sees every
 * call (Fortran ones too: LIKWID's Fortran entry points call these through
 * the PLT). One definition per row of SL_MARKER_FNS (marker_fns.h), each a
 * tail call of the internal path; only these, the Fortran names and the
 * exec family are exported (the version script is generated from the same
 * list). */
#define SL_EXPORT __attribute__((visibility("default")))

/* The errno column of SL_MARKER_FNS: KEEP entry points give the caller
 * back the errno it had (the shim's work at Init and Close, helpers and
 * files, and LIKWID's own, must not show: the application's next perror
 * would lie); HOT ones (Start, Stop) make no call that sets it and stay a
 * plain tail call. */
#define SL_ERRNO_SAVE_KEEP int saved_errno_ = errno;
#define SL_ERRNO_SAVE_HOT
#define SL_ERRNO_RESTORE_KEEP errno = saved_errno_;
#define SL_ERRNO_RESTORE_HOT

/* A void function has no result to hold: the keyword by return type. */
#define SL_RESULT_void(call) call;
#define SL_RESULT_int(call) int result_ = call;
#define SL_RETURN_void
#define SL_RETURN_int return result_;

#define SL_C_ENTRY(cname, member, ret, params, args, fname, fshape, errno_) \
    SL_EXPORT ret cname params;                                             \
    ret cname params                                                        \
    {                                                                       \
        SL_ERRNO_SAVE_##errno_                                              \
        SL_RESULT_##ret(sl_shim_##member args)                              \
        SL_ERRNO_RESTORE_##errno_                                           \
        SL_RETURN_##ret                                                     \
    }
SL_MARKER_FNS(SL_C_ENTRY)

/* ==== wrap fortran ==== */

/* LIKWID's gfortran entry points (module likwid, likwid.f90): subroutines
 * named lower-case with a trailing underscore; each CHARACTER(*) argument
 * brings a hidden length (size_t since gfortran 8) after the others. Tags
 * arrive blank-padded: trailing blanks are trimmed. Everything goes through
 * the same internal path as the C entry points, which forwards to LIKWID's
 * REAL C functions; LIKWID's own Fortran functions are never called (they
 * would call the C names through the PLT, i.e. us again: double counting). */
#define SL_EXPORT __attribute__((visibility("default")))
#define STACK_TAG 256

SL_EXPORT void likwid_markergetregion_(const char *tag, int *nr_events, double *events,
                                       double *time, int *count, size_t len);

/* A NUL-terminated, blank-trimmed copy: in buf when it fits (no malloc on
 * the hot path for tags up to 256 bytes), else on the heap (*heap set). */
static const char *ctag(const char *tag, size_t len, char *buf, char **heap)
{
    *heap = NULL;
    if (!tag)
        return NULL;
    while (len > 0 && tag[len - 1] == ' ')
        len--;
    char *dst = buf;
    if (len >= STACK_TAG) {
        dst = *heap = malloc(len + 1);
        if (!dst)
            return NULL;
    }
    memcpy(dst, tag, len);
    dst[len] = '\0';
    return dst;
}

/* The rows of SL_MARKER_FNS (marker_fns.h) by gfortran shape: NONE calls
 * the internal path as it is, TAG with the tag made a C string; OWN is
 * written below. */
#define SL_F_ENTRY_NONE(fname, member, errno_) \
    SL_EXPORT void fname(void);                \
    void fname(void)                           \
    {                                          \
        SL_ERRNO_SAVE_##errno_                 \
        sl_shim_##member();                    \
        SL_ERRNO_RESTORE_##errno_              \
    }
#define SL_F_ENTRY_TAG(fname, member, errno_)            \
    SL_EXPORT void fname(const char *tag, size_t len);   \
    void fname(const char *tag, size_t len)              \
    {                                                    \
        SL_ERRNO_SAVE_##errno_                           \
        char buf[STACK_TAG], *heap;                      \
        sl_shim_##member(ctag(tag, len, buf, &heap));    \
        free(heap);                                      \
        SL_ERRNO_RESTORE_##errno_                        \
    }
#define SL_F_ENTRY_OWN(fname, member, errno_)
#define SL_F_ENTRY(cname, member, ret, params, args, fname, fshape, errno_) \
    SL_F_ENTRY_##fshape(fname, member, errno_)
SL_MARKER_FNS(SL_F_ENTRY)

void likwid_markergetregion_(const char *tag, int *nr_events, double *events, double *time,
                             int *count, size_t len)
{
    SL_ERRNO_SAVE_KEEP
    char buf[STACK_TAG], *heap;
    sl_shim_get(ctag(tag, len, buf, &heap), nr_events, events, time, count);
    free(heap);
    SL_ERRNO_RESTORE_KEEP
}

/* ==== own addresses ==== */

/* Every entry point's own address, by the name a relocation gives it: an
 * object bound past the global scope has its slots rewritten to these
 * (rebind.c). Hidden aliases: no other definition in the process can
 * stand in for them. */
#define SL_OWN_ALIAS(cname, member, ret, params, args, fname, fshape, errno_)                 \
    extern __typeof__(cname) sl_own_##cname __attribute__((alias(#cname), visibility("hidden"))); \
    extern __typeof__(fname) sl_own_##fname __attribute__((alias(#fname), visibility("hidden")));
SL_MARKER_FNS(SL_OWN_ALIAS)
#define SL_OWN_ROW(cname, member, ret, params, args, fname, fshape, errno_) \
    {#cname, (void (*)(void))sl_own_##cname}, {#fname, (void (*)(void))sl_own_##fname},
const sl_own_entry sl_own_entries[] = {SL_MARKER_FNS(SL_OWN_ROW)};
const size_t sl_own_nentries = sizeof sl_own_entries / sizeof sl_own_entries[0];

/* ==== wrap exec ==== */

/* The exec family, wrapped: exec replaces the process's image, and no exit
 * hook or destructor of the old image runs, so the result of the run so far
 * is delivered here, before the real call (close.c, sl_exec_begin): the
 * image before the exec is a run of its own, the new image (the same
 * program again, or another one) starts its own at its Init. Nothing else
 * changes: the real function gets the caller's arguments and returns its
 * result and errno. Only the initialising process delivers: a forked or
 * vfork()ed child (another pid) passes straight through. The real
 * functions are looked up once, when the shim is loaded (not in a child
 * of a threaded process, where dlsym could wait for a lock nobody holds).
 * posix_spawn, system and popen start a new process and leave this image
 * alone: they are not wrapped. */
#define SL_EXPORT __attribute__((visibility("default")))

typedef int (*path_env_fn)(const char *, char *const[], char *const[]);
typedef int (*path_fn)(const char *, char *const[]);
typedef int (*fd_env_fn)(int, char *const[], char *const[]);

/* One row per wrapped function: name, type of the real one. The execl*
 * forms end in the real execv/execvp/execve. */
#define SL_EXEC_FUNCS(X) \
    X(execve, path_env_fn) \
    X(execvpe, path_env_fn) \
    X(execv, path_fn) \
    X(execvp, path_fn) \
    X(fexecve, fd_env_fn)

static struct {
#define X(name, type) type name;
    SL_EXEC_FUNCS(X)
#undef X
} real;

/* Also from the first Init (sl_entry_at_load): a library's constructor
 * may call Init before ours ran. */
__attribute__((constructor)) void sl_entry_at_load(void)
{
    if (real.execve)
        return;
    void *p;
#define X(name, type) \
    p = dlsym(RTLD_NEXT, #name); \
    memcpy(&real.name, &p, sizeof p);
    SL_EXEC_FUNCS(X)
#undef X
}

/* The real call between the delivery and, when it returns (it failed),
 * sl_exec_failed; errno as the real function left it. */
#define CALL_REAL(what, fn, ...) \
    do { \
        sl_exec_begin(what); \
        int rc_ = fn ? fn(__VA_ARGS__) : (errno = ENOSYS, -1); \
        sl_exec_failed(what); \
        return rc_; \
    } while (0)

SL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    CALL_REAL(path, real.execve, path, argv, envp);
}

SL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    CALL_REAL(file, real.execvpe, file, argv, envp);
}

SL_EXPORT int execv(const char *path, char *const argv[])
{
    CALL_REAL(path, real.execv, path, argv);
}

SL_EXPORT int execvp(const char *file, char *const argv[])
{
    CALL_REAL(file, real.execvp, file, argv);
}

SL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    CALL_REAL("a descriptor (fexecve)", real.fexecve, fd, argv, envp);
}

/* The argument count of an execl* call, its terminating NULL included. */
static size_t count_args(const char *arg0, va_list ap)
{
    size_t n = 1;
    for (const char *a = arg0; a; a = va_arg(ap, const char *))
        n++;
    return n;
}

/* The execl* forms gather their arguments in an array: up to SMALL_ARGS on
 * the stack (no frame of the shim is large or unbounded), more on the heap
 * (freed when the exec fails); then the real execv, execvp or execve
 * (execle's envp follows the NULL), as CALL_REAL. */
#define SMALL_ARGS 32

enum execl_kind { EXECL_V, EXECL_VP, EXECL_VE };

static int execl_family(enum execl_kind kind, const char *file, const char *arg0, va_list ap)
{
    va_list count;
    va_copy(count, ap);
    size_t n = count_args(arg0, count);
    va_end(count);
    char *small[SMALL_ARGS], **argv = n <= SMALL_ARGS ? small : malloc(n * sizeof(char *));
    if (!argv)
        return errno = ENOMEM, -1;
    argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, char *);
    sl_exec_begin(file);
    int rc;
    if (kind == EXECL_VE) {
        char *const *envp = va_arg(ap, char *const *);
        rc = real.execve ? real.execve(file, argv, envp) : (errno = ENOSYS, -1);
    } else {
        path_fn fn = kind == EXECL_VP ? real.execvp : real.execv;
        rc = fn ? fn(file, argv) : (errno = ENOSYS, -1);
    }
    sl_exec_failed(file);
    if (argv != small) {
        int e = errno;
        free(argv);
        errno = e;
    }
    return rc;
}

SL_EXPORT int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    int rc = execl_family(EXECL_V, path, arg0, ap);
    va_end(ap);
    return rc;
}

SL_EXPORT int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    int rc = execl_family(EXECL_VP, file, arg0, ap);
    va_end(ap);
    return rc;
}

SL_EXPORT int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    int rc = execl_family(EXECL_VE, path, arg0, ap);
    va_end(ap);
    return rc;
}

/* ==== fork ==== */

/* A process forked after Init (docs/SHIM.md, "Forked children"). The child
 * is a process of its own: when it times regions it gets its own result
 * file ("<parent's output stem>.pid<PID>.h5", parent_pid set), its own
 * journal and empty tables. The parent's timing stays the parent's: the
 * child never writes into the parent's journal (shared with it: MAP_SHARED)
 * nor into its tables. A parent that ended after the fork without
 * delivering (the daemon pattern: fork, then _exit in the parent) leaves
 * its journal; its child turns it into the parent's result at its own
 * Close or exit, once it has seen the parent end (it was reparented).
 *
 * Nothing is done in the child before it times: the atfork handler only
 * forgets the tables and marks the mode FORKED (not ACTIVE: the hot path
 * takes its cold branch), and the first Init, ThreadInit, Register or
 * Start adopts the child (sl_fork_adopt). A child that never times (it
 * execs, or only passes through) writes nothing. The hot path is as
 * before: no pid check in Start or Stop. */
static void atfork_child(void)
{
    int m = atomic_load(&sl_mode);
    if (m == SL_MODE_ACTIVE) {
        sl_rt_fork_child();
        atomic_store(&sl_mode, SL_MODE_FORKED);
    } else if (m == SL_MODE_CLOSED) {
        /* Forked during or after Close: the parent's run is over. The child
         * passes through as one that never called Init, until it calls
         * Init itself (a driver that profiled its setup, closed, and forks
         * workers that time their own Init..Close): then it is adopted. */
        sl_rt_fork_child();
        atomic_store(&sl_mode, SL_MODE_FORKED_CLOSED);
    }
}

/* Children that end without delivering. A child that times ends, like
 * any process, at its Close, exit hook or signal handler; one that ends
 * with _exit (a multiprocessing pool's worker: os._exit after its last
 * task) leaves its journal. Each adopted child notes its pid and journal
 * in a small table shared by every process forked after Init (MAP_SHARED
 * at the first Init, before any fork); at its own Close or exit the parent
 * turns the journals of its children that ended meanwhile into their
 * results (scope-likwid-write --child), and names those of children still
 * running. */
#define KIN_SLOTS 64
#define KIN_PATH 500

typedef struct kin_slot {
    _Atomic pid_t pid;          /* 0: free */
    pid_t parent;
    _Atomic int ready;          /* journal filled in */
    char journal[KIN_PATH];
} kin_slot;

static kin_slot *kin;

void sl_fork_arm(void)
{
    static int armed;
    if (!armed && pthread_atfork(NULL, NULL, atfork_child) == 0)
        armed = 1;
    if (!kin) {
        void *p = mmap(NULL, KIN_SLOTS * sizeof(kin_slot), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        kin = p == MAP_FAILED ? NULL : p;
    }
}

/* In an adopted child, once its journal exists. */
static void kin_register(void)
{
    const char *j = sl_journal_path();
    size_t n = strlen(j);
    if (!kin || n == 0 || n >= KIN_PATH)
        return;
    for (int i = 0; i < KIN_SLOTS; i++) {
        pid_t free_slot = 0;
        if (!atomic_compare_exchange_strong(&kin[i].pid, &free_slot, sl_g.pid))
            continue;
        kin[i].parent = sl_g.parent_pid;
        memcpy(kin[i].journal, j, n + 1);
        atomic_store(&kin[i].ready, 1);
        return;
    }
}

static void kin_free(kin_slot *k)
{
    atomic_store(&k->ready, 0);
    atomic_store(&k->pid, 0);
}

/* Whether process pid has ended: gone, or a zombie its parent has not
 * reaped yet (its journal is final either way). */
static int ended(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char state = sl_proc_state(pid);
    return state == 'Z' || state == 'X';
}

/* scope-likwid-write MODE JOURNAL PID (--child, --orphan): the path it
 * wrote (newly allocated), or NULL with *why (newly allocated, may be
 * NULL) saying what failed. */
static char *journal_writer(const char *mode, const char *journal, pid_t pid, char **why)
{
    char *missing = NULL;
    char *writer = sl_helper_path(sl_g.cfg.writer, "scope-likwid-write", &missing);
    *why = missing;
    if (!writer)
        return NULL;
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)pid);
    const char *argv[] = {writer, mode, journal, num, NULL};
    sl_spawn_result res = {0};
    sl_helper_run(argv, sl_g.cfg.timeout_s + 2, &res);
    char *last = res.outcome == SL_SPAWN_EXITED && res.exit_code == 0
                     ? sl_last_line(res.out, res.out_len)
                     : NULL;
    const char *not_ours = last && *last ? sl_proof_check(last, res.out, res.out_len) : NULL;
    if (not_ours) {
        free(last);
        last = NULL;
        if (asprintf(why, "named a file that is not a result it wrote: %s", not_ours) < 0)
            *why = NULL;
    } else if (!last || !*last) {
        free(last);
        last = NULL;
        *why = sl_spawn_describe(&res, sl_g.cfg.timeout_s + 2);
    }
    sl_spawn_result_free(&res);
    free(writer);
    return last;
}

/* At this process's Close or exit: its children's journals. */
static void deliver_children(void)
{
    pid_t me = getpid();
    for (int i = 0; kin && i < KIN_SLOTS; i++) {
        kin_slot *k = &kin[i];
        pid_t child = atomic_load(&k->pid);
        if (!child || child == me || !atomic_load(&k->ready))
            continue;
        if (k->parent != me)
            continue;
        struct stat st;
        if (stat(k->journal, &st) != 0) {
            kin_free(k);    /* delivered by the child itself */
            continue;
        }
        if (!ended(child)) {
            sl_log_warn("process %lld (forked from this one) still runs: if it ends without "
                        "likwid_markerClose, recover its timing with 'scope-likwid recover %s'",
                        (long long)child, k->journal);
            continue;
        }
        char *why = NULL;
        char *last = journal_writer("--child", k->journal, child, &why);
        if (last)
            sl_log_info("wrote %s (the timing of process %lld, forked from this one, which ended "
                        "without likwid_markerClose)", last, (long long)child);
        else if (stat(k->journal, &st) == 0)
            sl_log_warn("process %lld (forked from this one) ended without likwid_markerClose; "
                        "its journal %s could not be turned into its result (writer %s): "
                        "recover it with 'scope-likwid recover %s'", (long long)child,
                        k->journal, why ? why : "not found", k->journal);
        free(last);
        free(why);
        kin_free(k);
    }
}

int sl_fork_adopt(void)
{
    int m = SL_MODE_FORKED;
    if (!atomic_compare_exchange_strong(&sl_mode, &m, SL_MODE_ADOPTING)) {
        /* Another thread of the child adopts it: wait for the outcome. */
        while ((m = atomic_load(&sl_mode)) == SL_MODE_ADOPTING)
            sched_yield();
        return m;
    }
    pid_t self = getpid();
    char *out = sl_output_derived(sl_g.output, "pid", self);
    const char *pj = sl_journal_path();
    char *parent_journal = pj[0] ? strdup(pj) : NULL;
    if (!out) {
        sl_log_warn("out of memory in a forked child (pid %lld): its calls pass through untimed",
                    (long long)self);
        free(parent_journal);
        atomic_store(&sl_mode, SL_MODE_PASS);
        return SL_MODE_PASS;
    }
    sl_journal_fork_forget();
    /* A grandchild: the journal its grandparent left is its parent's care. */
    free(sl_g.parent_journal);
    sl_g.parent_journal = parent_journal;
    sl_g.parent_pid = sl_g.pid;
    sl_g.pid = self;
    /* The parent's names, in the child's copy of its heap. */
    if (sl_g.first_output != sl_g.output)
        free(sl_g.first_output);
    free(sl_g.output);
    sl_g.output = sl_g.first_output = out;
    sl_g.cycle = 1;
    sl_cycle_fork_child();
    sl_close_rearm();
    atomic_store(&sl_next_group_calls, 0);
    sl_run_meta_start();
    sl_anchor_take(out);
    sl_survive_begin(out, self, sl_g.parent_pid, sl_g.mpi, sl_g.rank, sl_g.origin_unix_ns, sl_g.tsc,
                     sl_g.cfg.writer, sl_g.cfg.timeout_s);
    kin_register();
    sl_log_debug("forked child of process %lld: output %s", (long long)sl_g.parent_pid, out);
    atomic_store(&sl_mode, SL_MODE_ACTIVE);
    return SL_MODE_ACTIVE;
}

static void deliver_parent(void);

void sl_fork_deliver_parent(void)
{
    if (getpid() != sl_g.pid)
        return;
    deliver_children();
    deliver_parent();
}

static void deliver_parent(void)
{
    char *journal = sl_g.parent_journal;
    if (!journal || getpid() != sl_g.pid)
        return;
    sl_g.parent_journal = NULL;     /* once */
    struct stat st;
    /* The parent still runs (its Close or exit delivers), or delivered. */
    if (getppid() == sl_g.parent_pid || stat(journal, &st) != 0) {
        free(journal);
        return;
    }
    char *why = NULL;
    char *last = journal_writer("--orphan", journal, sl_g.parent_pid, &why);
    if (last) {
        sl_log_info("wrote %s (the timing of process %lld, which ended after fork without "
                    "likwid_markerClose)", last, (long long)sl_g.parent_pid);
        sl_run_report("wrote", last);
    } else if (stat(journal, &st) == 0) {
        /* Not delivered by another child meanwhile: say where it is. */
        sl_log_warn("process %lld ended after fork without likwid_markerClose; its journal %s "
                    "could not be turned into its result (writer %s): recover it with "
                    "'scope-likwid recover %s'", (long long)sl_g.parent_pid, journal,
                    why ? why : "not found", journal);
    }
    free(last);
    free(why);
    free(journal);
}
