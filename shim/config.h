/* Internal header: not installed. The shim's configuration, read once from
 * the environment at likwid_markerInit. Every bad value gives one warning and
 * the default; nothing here can fail. */
#ifndef SL_SHIM_CONFIG_H
#define SL_SHIM_CONFIG_H

#include <stdint.h>

enum {
    SL_SRC_FULL_API = 1u << 0,
    SL_SRC_MARKER_FILE = 1u << 1,
    SL_SRC_MARKER_API = 1u << 2,
    SL_SRC_ALL = SL_SRC_FULL_API | SL_SRC_MARKER_FILE | SL_SRC_MARKER_API,
};

#define SL_DEFAULT_TIMEOUT_S 10.0
#define SL_DEFAULT_MAX_CALLS 1000

typedef struct sl_config {
    int disabled;           /* SCOPE_LIKWID_DISABLE=1: pure pass-through */
    int verbose;            /* SCOPE_LIKWID_VERBOSE=1 */
    int quiet;              /* SCOPE_LIKWID_QUIET=1 */
    double timeout_s;       /* SCOPE_LIKWID_TIMEOUT, > 0 */
    unsigned sources;       /* SCOPE_LIKWID_SOURCES, SL_SRC_* bits */
    int64_t max_calls;      /* SCOPE_LIKWID_MAX_CALLS, >= 0 */
    char *output;           /* SCOPE_LIKWID_OUTPUT template, NULL: default */
    char *collector;        /* SCOPE_LIKWID_COLLECTOR, NULL: next to the shim */
    char *writer;           /* SCOPE_LIKWID_WRITER, NULL: next to the shim */
} sl_config;

/* Only SCOPE_LIKWID_DISABLE (checked before anything else is done). */
int sl_config_disabled(void);

/* Reads all variables; the strings are copies (the application may change
 * its environment later). */
void sl_config_load(sl_config *c);
void sl_config_free(sl_config *c);

/* Parsers, exposed for the tests. Each returns 0 or -EINVAL (then *out is
 * left unchanged). */
int sl_parse_bool(const char *s, int *out);
int sl_parse_timeout(const char *s, double *out);
int sl_parse_max_calls(const char *s, int64_t *out);
/* Unknown names are warned about and skipped; an empty result is -EINVAL. */
int sl_parse_sources(const char *s, unsigned *out);

#endif
