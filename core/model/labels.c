/* Event labels (spec hdf5-layout.md, "Event labels"): unique per region as far
 * as LIKWID's names allow, so a reader can use them as column names. */
#include "labels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t name_count(char *const *names, size_t n, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += strcmp(names[i] ? names[i] : "", name) == 0;
    return c;
}

static char *label_for(const sl_region *r, size_t e)
{
    char *s = NULL;
    if (!r->has_names || !r->event_names || !r->counter_names) {
        if (asprintf(&s, "event_%zu", e) < 0)
            return NULL;
        return s;
    }
    const char *name = r->event_names[e] ? r->event_names[e] : "";
    const char *counter = r->counter_names[e] ? r->counter_names[e] : "";
    int rc;
    if (name_count(r->event_names, r->nevents, name) == 1)
        rc = asprintf(&s, "%s", name);
    else if (*counter)
        rc = asprintf(&s, "%s:%s", name, counter);
    else
        rc = asprintf(&s, "%s#%zu", name, e);
    return rc < 0 ? NULL : s;
}

char **sl_event_labels(const sl_region *r)
{
    if (r->nevents == 0)
        return NULL;
    char **out = calloc(r->nevents, sizeof *out);
    if (!out)
        return NULL;
    for (size_t e = 0; e < r->nevents; e++) {
        out[e] = label_for(r, e);
        if (!out[e]) {
            sl_labels_free(out, e);
            return NULL;
        }
    }
    return out;
}

int sl_region_row(const sl_region *r, const char *name, const double **row)
{
    *row = NULL;
    for (size_t m = 0; m < r->nmetrics && !*row; m++)
        if (r->metric_names[m] && !strcmp(r->metric_names[m], name))
            *row = r->metrics + m * r->nthreads;
    if (!*row && r->nevents) {
        char **labels = sl_event_labels(r);
        if (!labels)
            return -ENOMEM;
        for (size_t e = 0; e < r->nevents && !*row; e++)
            if (!strcmp(labels[e], name))
                *row = r->events + e * r->nthreads;
        sl_labels_free(labels, r->nevents);
    }
    return *row != NULL;
}
