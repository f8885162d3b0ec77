/* errno_app [MARKERFILE]: calls every marker entry point, C and gfortran
 * names, with errno set to a value no call of them sets, and prints each
 * call that returned with another errno. The entry points are looked up in
 * the global scope (the preloaded shim's first, else LIKWID's), so the
 * program runs with any LIKWID 5.x and with LIKWID 5.5's WriteFile, which
 * 5.2 lacks (then that call is left out). Exit status 1 when a call
 * changed errno. Nothing after Close but WriteFile: LIKWID 5.5 crashes
 * on a Start after its Close. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SENTINEL ENOTRECOVERABLE

static int changed, calls;

/* One direct reference: the program needs liblikwid (the linker would
 * drop a library only dlsym uses). */
extern void likwid_markerInit(void);
void (*volatile sl_errno_app_needs_likwid)(void) = likwid_markerInit;

static void *fn(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p)
        printf("errno_app: %s not found: left out\n", name);
    return p;
}

/* Calls name with (args), when it exists, with errno = SENTINEL. */
#define CALL(name, type, args)                                                                    \
    do {                                                                                         \
        type f_;                                                                                 \
        void *p_ = fn(name);                                                                     \
        if (!p_)                                                                                 \
            break;                                                                               \
        memcpy(&f_, &p_, sizeof p_);                                                             \
        errno = SENTINEL;                                                                        \
        f_ args;                                                                         \
        int e_ = errno;                                                                          \
        calls++;                                                                                 \
        if (e_ != SENTINEL) {                                                                    \
            printf("errno_app: %s changed errno to %d (%s)\n", name, e_, strerror(e_));         \
            changed = 1;                                                                         \
        }                                                                                        \
    } while (0)

typedef void (*void_fn)(void);
typedef int (*tag_fn)(const char *);
typedef void (*get_fn)(const char *, int *, double *, double *, int *);
typedef void (*ftag_fn)(const char *, size_t);
typedef void (*fget_fn)(const char *, int *, double *, double *, int *, size_t);

static void regions(const char *tag, const char *ftag)
{
    int n = 4, count = 0;
    double ev[4], t = 0;
    CALL("likwid_markerThreadInit", void_fn, ());
    CALL("likwid_markerRegisterRegion", tag_fn, (tag));
    for (int i = 0; i < 3; i++) {
        CALL("likwid_markerStartRegion", tag_fn, (tag));
        CALL("likwid_markerStopRegion", tag_fn, (tag));
    }
    CALL("likwid_markerGetRegion", get_fn, (tag, &n, ev, &t, &count));
    CALL("likwid_markerResetRegion", tag_fn, (tag));
    CALL("likwid_markerthreadinit_", void_fn, ());
    CALL("likwid_markerregisterregion_", ftag_fn, (ftag, strlen(ftag)));
    CALL("likwid_markerstartregion_", ftag_fn, (ftag, strlen(ftag)));
    CALL("likwid_markerstopregion_", ftag_fn, (ftag, strlen(ftag)));
    n = 4;
    CALL("likwid_markergetregion_", fget_fn, (ftag, &n, ev, &t, &count, strlen(ftag)));
    CALL("likwid_markerresetregion_", ftag_fn, (ftag, strlen(ftag)));
}

static void *worker(void *arg)
{
    (void)arg;
    regions("worker", "fworker   ");
    return NULL;
}

int main(int argc, char **argv)
{
    CALL("likwid_markerInit", void_fn, ());
    CALL("likwid_markerinit_", void_fn, ());
    regions("main", "fmain  ");
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) == 0)
        pthread_join(th, NULL);
    CALL("likwid_markerNextGroup", void_fn, ());
    CALL("likwid_markernextgroup_", void_fn, ());
    const char *copy = argc > 1 ? argv[1] : "errno_app_copy.txt";
    CALL("likwid_markerWriteFile", tag_fn, (copy));
    /* one Close (a second one crashes LIKWID 5.2): the C one, the gfortran
     * one is generated from the same row shape as ThreadInit's */
    CALL("likwid_markerClose", void_fn, ());
    CALL("likwid_markerWriteFile", tag_fn, (copy));
    CALL("likwid_markerwritefile_", ftag_fn, (copy, strlen(copy)));
    printf("errno_app: %d calls, %s\n", calls, changed ? "errno changed" : "errno kept");
    return changed;
}
