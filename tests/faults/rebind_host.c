/* A host, linked with LIKWID, that loads the plugin of harm_plugin.c bound
 * past the global scope (RTLD_DEEPBIND), for tests/faults/rebind.sh. Its
 * own Init and Close go through the global scope (the preloaded shim);
 * the plugin's calls reach the shim only when the shim rewrote its slots.
 * stdout is the same with the shim as without.
 *
 *   rebind_host seen PATH     dlopen(PATH, RTLD_DEEPBIND) before Init, then
 *                             Init, plugin_regions(10), Close
 *   rebind_host unseen PATH   the same, loaded with dlmopen(LM_ID_BASE),
 *                             which the shim does not wrap: found at Init
 *   rebind_host unseen-lazy PATH  the same with RTLD_LAZY: at Init none of
 *                             its slots is bound yet
 *   rebind_host threads PATH  loaded as unseen; a thread calls
 *                             plugin_regions(1) without pause while main
 *                             calls Init (the rewrite), waits 50 ms, stops
 *                             the thread and calls Close
 *   rebind_host seccomp-errno PATH  a seccomp filter makes mprotect with
 *                             PROT_WRITE fail (EPERM); then PATH loaded
 *                             with RTLD_DEEPBIND and its plugin_run()
 *   rebind_host seccomp-kill PATH COPY  PATH loaded with RTLD_DEEPBIND and
 *                             run; then a filter that kills the process at
 *                             mprotect with PROT_WRITE; then COPY (another
 *                             file, the same plugin) loaded and run
 *   rebind_host bare NAME plain|deep  dlopen(NAME, RTLD_NOW [|
 *                             RTLD_DEEPBIND]) and its plugin_run(): NAME
 *                             without '/' (searched along RUNPATH,
 *                             LD_LIBRARY_PATH) or with $ORIGIN */
#include <dlfcn.h>
#include <errno.h>
#include <likwid-marker.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#endif

static void *sym(void *h, const char *name)
{
    void *p = h ? dlsym(h, name) : NULL;
    if (!p)
        printf("no %s\n", name);
    return p;
}

static int run(void *h)
{
    int (*fn)(void);
    void *p = sym(h, "plugin_run");
    memcpy(&fn, &p, sizeof fn);
    return fn ? fn() : -1;
}

static void regions(void *h, int n)
{
    void (*fn)(int);
    void *p = sym(h, "plugin_regions");
    memcpy(&fn, &p, sizeof fn);
    if (fn)
        fn(n);
}

/* unseen: 1 dlmopen RTLD_NOW, 2 dlmopen RTLD_LAZY. */
static void *load(const char *path, int unseen)
{
    int flags = (unseen == 2 ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL | RTLD_DEEPBIND;
    void *h = unseen ? dlmopen(LM_ID_BASE, path, flags) : dlopen(path, flags);
    printf("%s %s\n", unseen ? "dlmopen" : "dlopen", h ? "ok" : "failed");
    return h;
}

static int around_init(const char *path, int unseen)
{
    void *h = load(path, unseen);
    LIKWID_MARKER_INIT;
    regions(h, 10);
    LIKWID_MARKER_CLOSE;
    return h ? 0 : 1;
}

static _Atomic int stop;

static void *hammer(void *h)
{
    void (*fn)(int);
    void *p = dlsym(h, "plugin_regions");
    memcpy(&fn, &p, sizeof fn);
    while (fn && !stop)
        fn(1);
    return NULL;
}

static int threads(const char *path)
{
    void *h = load(path, 1);
    pthread_t t;
    if (!h || pthread_create(&t, NULL, hammer, h) != 0)
        return 1;
    struct timespec ms10 = {0, 10000000}, ms50 = {0, 50000000};
    nanosleep(&ms10, NULL);
    LIKWID_MARKER_INIT;
    nanosleep(&ms50, NULL);
    stop = 1;
    pthread_join(t, NULL);
    LIKWID_MARKER_CLOSE;
    printf("threads done\n");
    return 0;
}

/* mprotect with PROT_WRITE: ret (SECCOMP_RET_ERRNO | EPERM, or
 * SECCOMP_RET_KILL_PROCESS); everything else allowed. */
static int forbid_mprotect_write(unsigned ret)
{
#if defined(__x86_64__)
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, ret),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
        return 0;
    perror("rebind_host: seccomp");
#else
    (void)ret;
    fprintf(stderr, "rebind_host: no seccomp filter for this architecture\n");
#endif
    return -1;
}

static int seccomp_errno(const char *path)
{
#if defined(__x86_64__)
    if (forbid_mprotect_write(SECCOMP_RET_ERRNO | EPERM) != 0)
        return 2;
#endif
    printf("plugin_run: %d\n", run(load(path, 0)));
    return 0;
}

static int seccomp_kill(const char *path, const char *copy)
{
    printf("plugin_run: %d\n", run(load(path, 0)));
#if defined(__x86_64__)
    if (forbid_mprotect_write(SECCOMP_RET_KILL_PROCESS) != 0)
        return 2;
#endif
    printf("plugin_run: %d\n", run(load(copy, 0)));
    return 0;
}

static int bare(const char *name, const char *how)
{
    int deep = strcmp(how, "deep") == 0;
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL | (deep ? RTLD_DEEPBIND : 0));
    printf("dlopen %s\n", h ? "ok" : "failed");
    if (!h)
        return 1;
    printf("plugin_run: %d\n", run(h));
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : "";
    const char *arg2 = argc > 3 ? argv[3] : "";
    if (strcmp(mode, "seen") == 0)
        return around_init(arg, 0);
    if (strcmp(mode, "unseen") == 0 || strcmp(mode, "unseen-lazy") == 0)
        return around_init(arg, mode[6] ? 2 : 1);
    if (strcmp(mode, "threads") == 0)
        return threads(arg);
    if (strcmp(mode, "seccomp-errno") == 0)
        return seccomp_errno(arg);
    if (strcmp(mode, "seccomp-kill") == 0)
        return seccomp_kill(arg, arg2);
    if (strcmp(mode, "bare") == 0)
        return bare(arg, arg2);
    fprintf(stderr, "usage: rebind_host seen|unseen|unseen-lazy|threads|seccomp-errno|seccomp-kill|bare ...\n");
    return 2;
}
