/* check_marker FILE: parses a marker file with the project's strict reader
 * and prints what it holds without the timing-dependent values, one line per
 * region: tag, group, events, cpus and call counts. Exit 1 on any defect. */
#include <stdio.h>

#include "markerfile.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: check_marker FILE\n");
        return 2;
    }
    sl_likwid lw;
    sl_diag d;
    sl_markerfile_info info;
    sl_likwid_init(&lw);
    sl_diag_init(&d);
    int rc = sl_markerfile_read(argv[1], SL_MF_STRICT, &lw, &info, &d);
    for (size_t i = 0; i < d.kept; i++)
        fprintf(stderr, "%s\n", d.lines[i]);
    if (rc < 0 || d.count) {
        fprintf(stderr, "check_marker: %s does not parse strictly (%d)\n", argv[1], rc);
        return 1;
    }
    printf("header %lld %lld %lld\n", info.header_threads, info.header_regions,
           info.header_groups);
    for (size_t i = 0; i < lw.nregions; i++) {
        const sl_region *r = &lw.regions[i];
        printf("region '%s' group %lld events %zu cpus", r->tag, (long long)r->group_id,
               r->nevents);
        for (size_t t = 0; t < r->nthreads; t++)
            printf("%s%lld", t ? "," : " ", (long long)r->cpus[t]);
        printf(" counts");
        for (size_t t = 0; t < r->nthreads; t++)
            printf("%s%lld", t ? "," : " ", (long long)r->call_counts[t]);
        int positive = 1;
        for (size_t k = 0; k < r->nevents * r->nthreads; k++)
            positive &= r->events[k] > 0;
        for (size_t t = 0; t < r->nthreads; t++)
            positive &= r->times[t] > 0;
        printf(" values %s\n", positive ? "positive" : "NOT-POSITIVE");
    }
    sl_likwid_free(&lw);
    sl_diag_free(&d);
    return 0;
}
