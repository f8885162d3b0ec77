/* The exported exec family: the image so far delivered, then libc's call. */

#include "face.h"
#include <errno.h>
#include <stdlib.h>

/* The exec family, wrapped: exec replaces the process's image, and no exit
 * hook or destructor of the old image runs, so the result of the run so far
 * is delivered here, before the real call (end/ending.c, sl_exec_begin): the
 * image before the exec is a run of its own, the new image (the same
 * program again, or another one) starts its own at its Init. Nothing else
 * changes: the real function gets the caller's arguments and returns its
 * result and errno. Only the initialising process delivers: a forked or
 * vfork()ed child (another pid) passes straight through. The real
 * functions are looked up once, when the shim is loaded (not in a child
 * of a threaded process, where dlsym could wait for a lock nobody holds).
 * posix_spawn, system and popen start a new process and leave this image
 * alone: they are not wrapped. */

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
    CALL_REAL(path, sl_real_exec()->execve, path, argv, envp);
}

SL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    CALL_REAL(file, sl_real_exec()->execvpe, file, argv, envp);
}

SL_EXPORT int execv(const char *path, char *const argv[])
{
    CALL_REAL(path, sl_real_exec()->execv, path, argv);
}

SL_EXPORT int execvp(const char *file, char *const argv[])
{
    CALL_REAL(file, sl_real_exec()->execvp, file, argv);
}

SL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    CALL_REAL("a descriptor (fexecve)", sl_real_exec()->fexecve, fd, argv, envp);
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
        rc = sl_real_exec()->execve ? sl_real_exec()->execve(file, argv, envp) : (errno = ENOSYS, -1);
    } else {
        sl_path_fn fn = kind == EXECL_VP ? sl_real_exec()->execvp : sl_real_exec()->execv;
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

/* One row per execl form: its name and the real call it ends in. */
#define SL_EXECL_FUNCS(X) \
    X(execl, EXECL_V) \
    X(execlp, EXECL_VP) \
    X(execle, EXECL_VE)

#define X(name, kind) \
    SL_EXPORT int name(const char *path, const char *arg0, ...) \
    { \
        va_list ap; \
        va_start(ap, arg0); \
        int rc = execl_family(kind, path, arg0, ap); \
        va_end(ap); \
        return rc; \
    }
SL_EXECL_FUNCS(X)
#undef X
