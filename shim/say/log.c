/* The shim's messages (say.h). No stdio: the line is formatted into a
 * stack buffer and written with one write(2). */
#include "say.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static atomic_int log_verbose;
static atomic_int log_quiet;

/* The stderr the process started with: messages go there or nowhere. An
 * application that closes fd 2 and opens a data file gets that file on fd
 * 2, before its Init or after; the shim must not write into it. Taken when
 * the library is loaded, before the application's main runs. */
static _Atomic int err_known;
static dev_t err_dev;
static ino_t err_ino;

void sl_log_take_stderr(void)
{
    struct stat st;
    if (fstat(STDERR_FILENO, &st) == 0) {
        err_dev = st.st_dev;
        err_ino = st.st_ino;
        atomic_store(&err_known, 1);    /* publishes dev and ino */
    } else {
        atomic_store(&err_known, -1);   /* no stderr at Init: never write */
    }
}

static int stderr_is_ours(void)
{
    int k = atomic_load(&err_known);
    if (k == 0)
        return 1;       /* constructors not run (a static test build): stderr as it is */
    struct stat st;
    return k > 0 && fstat(STDERR_FILENO, &st) == 0 && st.st_dev == err_dev &&
           st.st_ino == err_ino;
}

/* Hashes of warnings already printed: enough for "at most once" in practice;
 * when full, further distinct warnings are still printed. */
#define SEEN_MAX 128
static _Atomic uint64_t seen[SEEN_MAX];

void sl_log_configure(int verbose, int quiet)
{
    atomic_store(&log_verbose, verbose);
    atomic_store(&log_quiet, quiet);
}

int sl_log_verbose(void)
{
    return atomic_load_explicit(&log_verbose, memory_order_relaxed);
}

static size_t format_line(char *buf, size_t cap, const char *fmt, va_list ap)
{
    static const char prefix[] = "scope-likwid: ";
    size_t n = sizeof prefix - 1;
    memcpy(buf, prefix, n);
    int k = vsnprintf(buf + n, cap - n - 1, fmt, ap);
    if (k < 0)
        k = 0;
    n += (size_t)k < cap - n - 2 ? (size_t)k : cap - n - 2;
    /* One line: newlines inside (e.g. from a helper's stderr) become blanks. */
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    buf[n++] = '\n';
    return n;
}

/* A stderr pipe whose reader has gone (a logger that died, `| head`)
 * answers the write with SIGPIPE, whose default action kills the
 * application (exit 141, its buffered stdout lost) where it never wrote to
 * stderr itself. Held back in this thread around the write, which then
 * fails with EPIPE; a SIGPIPE the write raised is taken back, one pending
 * before (the application's own) is left, and the mask is restored. */
static void write_no_sigpipe(const char *buf, size_t n)
{
    sl_sig_held h;
    sl_sig_hold(SIGPIPE, &h);
    ssize_t w;
    do
        w = write(STDERR_FILENO, buf, n);
    while (w < 0 && errno == EINTR);
    sl_sig_release(&h, w < 0 && errno == EPIPE);
}

static void emit(const char *buf, size_t n)
{
    int saved = errno;
    if (stderr_is_ours())
        write_no_sigpipe(buf, n);
    errno = saved;
}

static int first_time(const char *text, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    if (h == 0)
        h = 1;
    for (size_t i = 0; i < SEEN_MAX; i++) {
        uint64_t cur = atomic_load(&seen[i]);
        if (cur == h)
            return 0;
        if (cur == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&seen[i], &expected, h))
                return 1;
            if (expected == h)
                return 0;
        }
    }
    return 1;
}

/* Formats one line and writes it (only the first time it is seen when once). */
static void log_line(int once, const char *fmt, va_list ap)
{
    char buf[1024];
    size_t n = format_line(buf, sizeof buf, fmt, ap);
    if (!once || first_time(buf, n))
        emit(buf, n);
}

/* The three levels: NAME, whether a line is said (read at each call: Init
 * sets the flags), whether it is said once per text. */
#define SL_LOG_LEVEL(NAME, SAID, ONCE)                                                   \
    void NAME(const char *fmt, ...)                                                      \
    {                                                                                    \
        if (!(SAID))                                                                     \
            return;                                                                      \
        va_list ap;                                                                      \
        va_start(ap, fmt);                                                               \
        log_line(ONCE, fmt, ap);                                                         \
        va_end(ap);                                                                      \
    }
SL_LOG_LEVEL(sl_log_warn, !atomic_load(&log_quiet), 1)
SL_LOG_LEVEL(sl_log_info, !atomic_load(&log_quiet), 0)
SL_LOG_LEVEL(sl_log_debug, atomic_load(&log_verbose), 0)
#undef SL_LOG_LEVEL

void sl_log_line_raw(const char *line, size_t n)
{
    if (atomic_load(&log_quiet))
        return;
    emit(line, n);
}
