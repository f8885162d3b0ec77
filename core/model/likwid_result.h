/* Internal header: not installed. LIKWID counter results of one process,
 * whatever source they came from (full API, marker file, GetRegion snapshots).
 * Errors are returned as negative errno values. */
#ifndef SL_LIKWID_RESULT_H
#define SL_LIKWID_RESULT_H

#include <stddef.h>
#include <stdint.h>

typedef enum sl_source {
    SL_SOURCE_NONE = 0,
    SL_SOURCE_FULL_API,
    SL_SOURCE_MARKER_FILE,
    SL_SOURCE_MARKER_API,
} sl_source;

/* "full_api", "marker_file", "marker_api"; "none" for SL_SOURCE_NONE. */
const char *sl_source_name(sl_source s);
/* Parses one of the names above (exactly len bytes). 0 or -EINVAL. */
int sl_source_parse(const char *s, size_t len, sl_source *out);

/* One region = one (tag, group) pair. Thread axis T is in marker-file order. */
typedef struct sl_region {
    char *tag;              /* exact bytes, NUL-terminated; may hold any byte but NUL */
    size_t tag_len;
    int64_t group_id;
    char *group_name;       /* "" when unknown */
    sl_source source;
    size_t nthreads;        /* T */
    size_t nevents;         /* E */
    size_t nmetrics;        /* M */
    int64_t *cpus;          /* [T] */
    double *times;          /* [T] accumulated seconds */
    int64_t *call_counts;   /* [T] */
    int has_names;          /* event_names/counter_names filled (full_api) */
    char **event_names;     /* [E], NULL when !has_names */
    char **counter_names;   /* [E], NULL when !has_names */
    double *events;         /* [E*T], events[e*T + t] */
    char **metric_names;    /* [M] */
    double *metrics;        /* [M*T], metrics[m*T + t] */
} sl_region;

typedef struct sl_likwid {
    sl_source source;       /* SL_SOURCE_NONE: no counter data at all */
    size_t nregions;
    size_t cap;
    sl_region *regions;
} sl_likwid;

void sl_likwid_init(sl_likwid *lw);
void sl_likwid_free(sl_likwid *lw);

/* Appends a zeroed region with a copy of the tag and group name, its arrays
 * allocated for T threads, E events and M metrics (all zero; names ""), and
 * returns it, or NULL on allocation failure. has_names sets whether
 * event/counter name arrays are allocated. The pointer is valid until the
 * next add. */
sl_region *sl_likwid_add(sl_likwid *lw, const char *tag, size_t tag_len,
                         int64_t group_id, const char *group_name, sl_source src,
                         size_t nthreads, size_t nevents, size_t nmetrics,
                         int has_names);

/* Sets a NUL-terminated copy of s into *slot, freeing the old value. 0 or -ENOMEM. */
int sl_set_string(char **slot, const char *s);

#endif
