/* check_answer < ANSWER: decodes a collector answer (wire format) and prints
 * its names, counters and metric names per region, checking that the
 * "Runtime (RDTSC) [s]" metric equals the region's time. Exit 1 on a defect. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int main(void)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len, stdin)) > 0;) {
        len += n;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (!buf)
        return 2;
    sl_likwid lw;
    sl_diag d;
    sl_likwid_init(&lw);
    sl_diag_init(&d);
    int rc = sl_wire_read_likwid(buf, len, "answer", &lw, &d);
    for (size_t i = 0; i < d.kept; i++)
        fprintf(stderr, "%s\n", d.lines[i]);
    if (rc < 0) {
        fprintf(stderr, "check_answer: not a valid answer (%d)\n", rc);
        return 1;
    }
    int bad = 0;
    printf("source %s regions %zu\n", sl_source_name(lw.source), lw.nregions);
    for (size_t i = 0; i < lw.nregions; i++) {
        const sl_region *r = &lw.regions[i];
        size_t T = r->nthreads;
        printf("region '%s' group %lld %s threads %zu names %d\n", r->tag, (long long)r->group_id,
               r->group_name, T, r->has_names);
        for (size_t e = 0; e < r->nevents; e++)
            printf("  event %s:%s\n", r->has_names ? r->event_names[e] : "?",
                   r->has_names ? r->counter_names[e] : "?");
        for (size_t m = 0; m < r->nmetrics; m++) {
            printf("  metric %s\n", r->metric_names[m]);
            for (size_t t = 0; t < T; t++) {
                double v = r->metrics[m * T + t];
                if (!isfinite(v))
                    bad = 1;
                if (strcmp(r->metric_names[m], "Runtime (RDTSC) [s]") == 0 && v != r->times[t])
                    bad = 1;
            }
        }
    }
    if (bad)
        fprintf(stderr, "check_answer: a metric is not finite or Runtime differs from time\n");
    sl_likwid_free(&lw);
    sl_diag_free(&d);
    free(buf);
    return bad;
}
