/* Internal header: not installed. Which performance group a custom event
 * set is. LIKWID_EVENTS holds, per group id, a group's name or an event
 * list ("EVENT:COUNTER[:OPTION...],..."); LIKWID calls the latter
 * "Custom" and computes no metrics. likwid-mpirun hands every rank its
 * group that way, expanded to the events, and leaves a group's uncore
 * counters (every counter but FIXC*, PMC* and TMP*) to the first rank of
 * each socket, cache or NUMA domain; a user may write a group's events
 * out too. The set is compared with every group file of the architecture:
 * it is a group's when its events are the EVENTSET (exact), or the
 * EVENTSET without some of its uncore counters (partial, only when no
 * group matches exactly). libc only; the folder and its files are
 * bounded (SL_MATCH_MAX_GROUPS, groupfile.h's limits). */
#ifndef SL_GROUP_MATCH_H
#define SL_GROUP_MATCH_H

#include <stddef.h>

#include "diag.h"
#include "groupfile.h"
#include "likwid_result.h"

#define SL_MATCH_MAX_GROUPS 1024    /* group files read from one folder at most */

typedef struct sl_group_match {
    size_t nevents;         /* the set's events, in its order */
    char **events;          /* [nevents] "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE" */
    char **counters;        /* [nevents] "PMC0", options kept ("PMC3:EDGEDETECT") */
    int exact;              /* 1: the set is each candidate's EVENTSET */
    size_t ncand;           /* groups the set is (0: none, "Custom") */
    sl_group_file *cand;    /* [ncand] in name order */
    size_t **where;         /* [ncand][cand's nevents]: the set's index, SIZE_MAX: not counted */
    size_t unread;          /* group files not read or parsed (diag says why) */
} sl_group_match;

/* Matches set against the group files of dir/arch. 0 (m->ncand may be
 * 0), -EINVAL (set is not an event list, or arch is not a plain name;
 * diag says why), -ENOENT (no such folder), -ENOMEM. */
int sl_group_match_set(const char *dir, const char *arch, const char *set, sl_group_match *m,
                       sl_diag *diag);
void sl_group_match_free(sl_group_match *m);

/* Applies a match to the regions of lw with group id gid and source src
 * whose events are the set's (others are left as they are): the set's
 * event and counter names where a region has none; with one candidate its
 * name and every metric it can compute from the counted events (and the
 * node); with several "Custom" and the metrics they all define alike;
 * with none "Custom" and no metrics. What was done is written to status
 * ("group 0: ...", statuslen bytes). 0 or -ENOMEM. */
int sl_group_match_apply(const sl_group_match *m, const char *arch, const sl_group_node *node,
                         sl_likwid *lw, int64_t gid, sl_source src, char *status,
                         size_t statuslen);

#endif
