/* Internal header: not installed. LIKWID's performance group files
 * (perfgroups/<arch>/<GROUP>.txt): the EVENTSET's counter/event pairs and
 * the METRICS' names and formulas (formula.h), read as LIKWID reads them,
 * and applied to a region whose counters came from the marker file: the
 * event and counter names, every metric per thread as likwid-perfctr
 * computes it. libc only; any file is bounded (line length, counts) and
 * a defect is one "FILE:LINE: what: expected what" diagnostic. */
#ifndef SL_GROUPFILE_H
#define SL_GROUPFILE_H

#include <stddef.h>

#include "diag.h"
#include "formula.h"
#include "likwid_result.h"
#include "run.h"

#define SL_GROUP_MAX_BYTES (1u << 20)
#define SL_GROUP_MAX_EVENTS 1024
#define SL_GROUP_MAX_METRICS 1024

typedef struct sl_group_file {
    char *name;             /* the group ("FLOPS_DP") */
    size_t nevents;
    char **counters;        /* [nevents] "PMC0" */
    char **events;          /* [nevents] "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE" */
    size_t nmetrics;
    char **metric_names;    /* [nmetrics] "DP [MFLOP/s]" */
    char **formula_texts;   /* [nmetrics] as written */
    sl_formula *formulas;   /* [nmetrics] */
    char **unusable;        /* [nmetrics] NULL, or why the metric cannot be
                             * computed ("PMC1 is not in the EVENTSET, FILE:LINE") */
} sl_group_file;

/* Parses a group file's text (len bytes; path names it in diagnostics,
 * name is the group's name). 0, -EINVAL (diag says where), -ENOMEM. */
int sl_group_file_parse(const char *buf, size_t len, const char *path, const char *name,
                        sl_group_file *g, sl_diag *diag);
/* Reads DIR/ARCH/GROUP.txt, or GROUP itself when it holds a '/'. ARCH
 * and GROUP (without '/') must be plain names. 0, -ENOENT and the other
 * read errors, -EINVAL, -ENOMEM; diag says which file and why. */
int sl_group_file_load(const char *dir, const char *arch, const char *group, sl_group_file *g,
                       sl_diag *diag);
void sl_group_file_free(sl_group_file *g);

/* The node-wide values a formula may need (formula.h's specials; time is
 * the region's own and true/false are constants, so only these): nan when
 * unknown. */
typedef struct sl_group_node {
    double clock_hz;        /* LIKWID's cycle clock (the TSC): inverseClock = 1 / it */
    double num_sockets;
    double num_numadomains;
} sl_group_node;

/* Applies g to r (a region of r->nevents events in g's EVENTSET order):
 * names its events and counters, sets its group name and replaces its
 * metrics with g's, per thread (time = r->times[t]); a metric that needs
 * a node value that is unknown, or is unusable, is left out, its name and
 * why added to left ("name (why), name (why)", leftlen bytes). The number of metrics left out, or
 * -EINVAL (r's events do not match g's EVENTSET: r is unchanged), -ENOMEM. */
long sl_group_apply(const sl_group_file *g, const sl_group_node *node, sl_region *r, char *left,
                    size_t leftlen);

/* Hands r its group: event and counter names (when evn is not NULL; ctn
 * then too, r->nevents each), nmetrics metric names and values (T per
 * metric), the group's name; r's old ones are freed. Never fails. */
void sl_region_set_group(sl_region *r, char **evn, char **ctn, char **names, double *metrics,
                         size_t nmetrics, char *gname);

/* Appends "; text" (text when empty) to run->likwid_status. 0 or -ENOMEM. */
int sl_status_append(sl_run *run, const char *text);

/* Every group of list (names separated by one of sep's characters, in
 * group id order: "|" for LIKWID_EVENTS; an entry holding ':', a custom
 * event list, has no group file and is skipped) loaded from dir/arch and applied to run's
 * marker-file regions of that group id. What was done is appended to
 * run->likwid_status ("group 0: FLOPS_DP of skylakeX: names and 9 metrics,
 * left out: ..."); *left_out counts the metrics left out. A group file
 * that cannot be read or parsed, or whose EVENTSET does not match a
 * region's events, is a diagnostic; strict: then -EINVAL, else it is only
 * noted in the status and the other groups still apply. 0, -EINVAL,
 * -ENOMEM. */
int sl_group_apply_run(sl_run *run, const char *dir, const char *arch, const char *list,
                       const char *sep, const sl_group_node *node, int strict, size_t *left_out,
                       sl_diag *diag);

#endif
