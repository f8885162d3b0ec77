/* The exec family, wrapped: exec replaces the process's image, and no exit
 * hook or destructor of the old image runs, so the result of the run so far
 * is delivered here, before the real call (exit_hook.c, sl_exec_begin): the
 * image before the exec is a run of its own, the new image (the same
 * program again, or another one) starts its own at its Init. Nothing else
 * changes: the real function gets the caller's arguments and returns its
 * result and errno. Only the initialising process delivers: a forked or
 * vfork()ed child (another pid) passes straight through. The real
 * functions are looked up once, when the shim is loaded (not in a child
 * of a threaded process, where dlsym could wait for a lock nobody holds).
 * posix_spawn, system and popen start a new process and leave this image
 * alone: they are not wrapped. */
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

__attribute__((constructor)) static void find_real_exec(void)
{
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
 * (freed when the exec fails). */
#define SMALL_ARGS 32

static char **gather(char **small, size_t n)
{
    return n <= SMALL_ARGS ? small : malloc(n * sizeof(char *));
}

#define GATHER(argv, n, arg0, ap) \
    do { \
        argv[0] = (char *)arg0; \
        for (size_t i_ = 1; i_ < n; i_++) \
            argv[i_] = va_arg(ap, char *); \
    } while (0)

/* As CALL_REAL, for a gathered argv. */
#define CALL_GATHERED(what, fn, small, argv, ...) \
    do { \
        sl_exec_begin(what); \
        int rc_ = fn ? fn(__VA_ARGS__) : (errno = ENOSYS, -1); \
        sl_exec_failed(what); \
        if (argv != small) { \
            int e_ = errno; \
            free(argv); \
            errno = e_; \
        } \
        return rc_; \
    } while (0)

SL_EXPORT int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    size_t n = count_args(arg0, ap);
    va_end(ap);
    char *small[SMALL_ARGS], **argv = gather(small, n);
    if (!argv)
        return errno = ENOMEM, -1;
    va_start(ap, arg0);
    GATHER(argv, n, arg0, ap);
    va_end(ap);
    CALL_GATHERED(path, real.execv, small, argv, path, argv);
}

SL_EXPORT int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    size_t n = count_args(arg0, ap);
    va_end(ap);
    char *small[SMALL_ARGS], **argv = gather(small, n);
    if (!argv)
        return errno = ENOMEM, -1;
    va_start(ap, arg0);
    GATHER(argv, n, arg0, ap);
    va_end(ap);
    CALL_GATHERED(file, real.execvp, small, argv, file, argv);
}

SL_EXPORT int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    size_t n = count_args(arg0, ap);
    va_end(ap);
    char *small[SMALL_ARGS], **argv = gather(small, n);
    if (!argv)
        return errno = ENOMEM, -1;
    va_start(ap, arg0);
    GATHER(argv, n, arg0, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    CALL_GATHERED(path, real.execve, small, argv, path, argv, envp);
}
