/* ground/env.c: from close.c, marker.c. */
#include "ground.h"
#include "diag.h"
#include "fileio.h"
#include "likwid_version.h"
#include "markerfile.h"
#include "name_fit.h"
#include "parse_int.h"
#include "trusted_dir.h"
#include "wire.h"
#include "vec.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <elf.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <link.h>
#include <math.h>
#include <stdatomic.h>
#include <pwd.h>
#include <sys/auxv.h>
#include <sys/uio.h>

/* What the result file says about the process (see shim.h). */
extern char **environ;

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (names of 256 bytes or more are passed over). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx)
{
    size_t plen = strlen(prefix);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, prefix, plen) != 0)
            continue;
        char name[256];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name)
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        fn(ctx, name, eq + 1);
    }
}

/* SCOPE_LIKWID_* variables: parsed once, bad values warned about once and
 * replaced by their defaults. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int sl_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off", ""};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (strcasecmp(s, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (strcasecmp(s, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    return -EINVAL;
}

/* Decimal seconds, fractional allowed, "C" syntax regardless of locale
 * (strtod would honour the application's LC_NUMERIC). */
int sl_parse_timeout(const char *s, double *out)
{
    double v = 0, scale = 1;
    int digits = 0, dot = 0;
    const char *p = s;
    while (is_blank(*p))
        p++;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            if (dot) {
                scale /= 10;
                v += (*p - '0') * scale;
            } else {
                v = v * 10 + (*p - '0');
            }
            digits++;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    while (is_blank(*p))
        p++;
    if (*p || !digits || !(v > 0) || !isfinite(v) || v > 86400.0 * 365)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_parse_max_calls(const char *s, int64_t *out)
{
    const char *p = s;
    int64_t v = 0;
    int digits = 0;
    while (is_blank(*p))
        p++;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (v > (INT64_MAX - 9) / 10)
            return -EINVAL;
        v = v * 10 + (*p - '0');
    }
    while (is_blank(*p))
        p++;
    if (*p || !digits)
        return -EINVAL;
    *out = v;
    return 0;
}

int sl_parse_sources(const char *s, unsigned *out)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"full_api", SL_SRC_FULL_API},
        {"marker_file", SL_SRC_MARKER_FILE},
        {"marker_api", SL_SRC_MARKER_API},
    };
    unsigned bits = 0;
    const char *p = s;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *a = p, *b = p + len;
        while (a < b && is_blank(*a))
            a++;
        while (b > a && is_blank(b[-1]))
            b--;
        if (b > a) {
            int known = 0;
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
                if ((size_t)(b - a) == strlen(names[i].name) &&
                    memcmp(a, names[i].name, (size_t)(b - a)) == 0) {
                    bits |= names[i].bit;
                    known = 1;
                }
            if (!known)
                sl_log_warn("SCOPE_LIKWID_SOURCES: unknown source '%.*s' ignored: expected "
                            "full_api, marker_file or marker_api", (int)(b - a), a);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    if (!bits)
        return -EINVAL;
    *out = bits;
    return 0;
}

static int env_bool(const char *name, int def)
{
    const char *v = getenv(name);
    int b = def;
    if (v && sl_parse_bool(v, &b) != 0) {
        sl_log_warn("%s='%s' not understood: expected 1 or 0; using %d", name, v, def);
        b = def;
    }
    return b;
}

int sl_config_disabled(void)
{
    return env_bool("SCOPE_LIKWID_DISABLE", 0);
}

/* A variable that names a program or a path (secure_getenv: a setuid or
 * setgid program never gets this far, do_init leaves it alone). */
static char *env_path(const char *name)
{
    const char *v = secure_getenv(name);
    if (v && !*v) {
        sl_log_warn("%s is empty: expected a path; using the default", name);
        return NULL;
    }
    return v ? strdup(v) : NULL;
}

void sl_config_free(sl_config *c)
{
    free(c->output);
    free(c->collector);
    free(c->writer);
    memset(c, 0, sizeof *c);
}

void sl_config_load(sl_config *c)
{
    memset(c, 0, sizeof *c);
    /* Quiet and verbose first, so that they govern the warnings below. */
    c->quiet = env_bool("SCOPE_LIKWID_QUIET", 0);
    c->verbose = env_bool("SCOPE_LIKWID_VERBOSE", 0);
    sl_log_configure(c->verbose, c->quiet);
    c->disabled = sl_config_disabled();

    c->timeout_s = SL_DEFAULT_TIMEOUT_S;
    const char *v = getenv("SCOPE_LIKWID_TIMEOUT");
    if (v && sl_parse_timeout(v, &c->timeout_s) != 0)
        sl_log_warn("SCOPE_LIKWID_TIMEOUT='%s' not understood: expected seconds > 0 "
                    "(e.g. 10 or 2.5); using %g", v, SL_DEFAULT_TIMEOUT_S);

    c->sources = SL_SRC_ALL;
    v = getenv("SCOPE_LIKWID_SOURCES");
    if (v && sl_parse_sources(v, &c->sources) != 0)
        sl_log_warn("SCOPE_LIKWID_SOURCES='%s' names no known source: expected a comma list of "
                    "full_api, marker_file, marker_api; using all three", v);

    c->max_calls = SL_DEFAULT_MAX_CALLS;
    v = getenv("SCOPE_LIKWID_MAX_CALLS");
    if (v && sl_parse_max_calls(v, &c->max_calls) != 0)
        sl_log_warn("SCOPE_LIKWID_MAX_CALLS='%s' not understood: expected an integer >= 0; "
                    "using %d", v, SL_DEFAULT_MAX_CALLS);

    /* A site may keep the arguments out of every result (they may hold
     * secrets); the program's name stays. */
    c->keep_args = env_bool("SCOPE_LIKWID_ARGS", 1);
    if (sl_share_setting() < 0)
        sl_log_warn("%s='%s' not understood: expected group or none; sharing nothing",
                    SL_SHARE_ENV, getenv(SL_SHARE_ENV));

    c->output = env_path("SCOPE_LIKWID_OUTPUT");
    c->collector = env_path("SCOPE_LIKWID_COLLECTOR");
    c->writer = env_path("SCOPE_LIKWID_WRITER");
}
