/* Filters of `scope-likwid show` (the filtered view of a run: show_view.c). */
#include "show_filter.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"
#include "labels.h"
#include "mem.h"
#include "metric_sum.h"
#include "names.h"
#include "why.h"

void sl_show_filter_free(sl_show_filter *f)
{
    free(f->ranks);
    sl_strings_free(f->regions, f->nregions);
    sl_strings_free(f->groups, f->ngroups);
    sl_strings_free(f->metrics, f->nmetrics);
    memset(f, 0, sizeof *f);
}

static const char *const threads_names[] = {"all", "sum", "mean", "max"};

int sl_threads_parse(const char *s, sl_threads_mode *out)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, threads_names[i])) {
            *out = (sl_threads_mode)i;
            return 0;
        }
    return -EINVAL;
}

const char *sl_threads_name(sl_threads_mode m)
{
    return threads_names[m];
}

int sl_filter_add(char ***v, size_t *n, const char *s)
{
    char **grown = realloc(*v, (*n + 1) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    *v = grown;
    if (!(grown[*n] = strdup(s)))
        return -ENOMEM;
    (*n)++;
    return 0;
}

int sl_filter_add_ranks(sl_show_filter *f, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return -ENOMEM;
    int rc = 0;
    /* strtok_r would skip empty items: "1,,2" is a usage error */
    char *p = copy;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        long long r;
        if (sl_parse_i64(p, &r) || r < 0) {
            rc = -EINVAL;
            break;
        }
        long long *grown = realloc(f->ranks, (f->nranks + 1) * sizeof *grown);
        if (!grown) {
            rc = -ENOMEM;
            break;
        }
        f->ranks = grown;
        f->ranks[f->nranks++] = r;
        if (!comma)
            break;
        p = comma + 1;
    }
    free(copy);
    return rc;
}

int sl_filter_rank(const sl_show_filter *f, long long rank)
{
    if (!f->nranks)
        return 1;
    for (size_t i = 0; i < f->nranks; i++)
        if (f->ranks[i] == rank)
            return 1;
    return 0;
}

static int match_pattern(const sl_show_filter *f, size_t i, const char *tag, size_t len)
{
    char *d = sl_tag_display(tag, len);
    int m = d && fnmatch(f->regions[i], d, 0) == 0;
    free(d);
    return m;
}

int sl_filter_region(const sl_show_filter *f, const char *tag, size_t len)
{
    if (!f->nregions)
        return 1;
    for (size_t i = 0; i < f->nregions; i++)
        if (match_pattern(f, i, tag, len))
            return 1;
    return 0;
}

static int match_group(const char *want, const sl_region *r)
{
    long long id;
    if (!sl_parse_i64(want, &id) && id == r->group_id)
        return 1;
    return !strcmp(want, r->group_name);
}

int sl_filter_group(const sl_show_filter *f, const sl_region *r)
{
    if (!f->ngroups)
        return 1;
    for (size_t i = 0; i < f->ngroups; i++)
        if (match_group(f->groups[i], r))
            return 1;
    return 0;
}

int sl_filter_nosum(const sl_show_filter *f, const char *metric)
{
    return f->threads == SL_THREADS_SUM && !sl_metric_summable(metric);
}

int sl_filter_row(const sl_show_filter *f, const char *name)
{
    if (!f->nmetrics)
        return 1;
    for (size_t i = 0; i < f->nmetrics; i++)
        if (!strcmp(f->metrics[i], name))
            return 1;
    return 0;
}

/* ---- checking the values against the file --------------------------------- */

struct names {
    size_t n;
    char **v;
};

static int names_add(struct names *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], x))
            return 0;
    return sl_filter_add(&s->v, &s->n, x);
}

static void names_free(struct names *s)
{
    sl_strings_free(s->v, s->n);
    memset(s, 0, sizeof *s);
}

/* "PATH: no WHAT 'X': the file has A, B, C" on one line (long lists cut). */
static void no_such(sl_why *m, const char *path, const char *what, const char *x,
                    const struct names *have)
{
    sl_why_add(m, "%s: no %s '%s': the file has ", path, what, x);
    if (!have->n)
        sl_why_add(m, "none");
    size_t shown = have->n < 40 ? have->n : 40;
    for (size_t i = 0; i < shown; i++) {
        /* cut, and control bytes (which would break the line) as '?' */
        char clip[SL_CLIP_BUF];
        sl_why_add(m, "%s%s", i ? ", " : "", sl_clip(clip, have->v[i]));
    }
    if (shown < have->n)
        sl_why_add(m, ", ... (%zu more)", have->n - shown);
}

/* found: frees have and returns 0; else says what the file has (no_such),
 * frees have and returns -ENOENT. */
/* Whether pattern i matches the tag; its display form joins have (the
 * names the message lists when nothing matches). */
static int pattern_tag(const sl_show_filter *f, size_t i, const char *tag, size_t len,
                       struct names *have)
{
    char *d = sl_tag_display(tag, len);
    if (d)
        names_add(have, d);
    free(d);
    return match_pattern(f, i, tag, len);
}

static int found_or_say(sl_why *m, const char *path, const char *what, const char *x, int found,
                        struct names *have)
{
    if (!found)
        no_such(m, path, what, x, have);
    names_free(have);
    return found ? 0 : -ENOENT;
}

static int check_ranks(sl_why *m, const sl_show_filter *f, const sl_runset *set, const char *path)
{
    for (size_t i = 0; i < f->nranks; i++) {
        int found = 0;
        for (size_t r = 0; r < set->nruns; r++)
            found |= set->runs[r].rank == f->ranks[i];
        if (found)
            continue;
        struct names have = {0};
        char b[32];
        for (size_t r = 0; r < set->nruns; r++) {
            snprintf(b, sizeof b, "%lld", (long long)set->runs[r].rank);
            names_add(&have, b);
        }
        snprintf(b, sizeof b, "%lld", f->ranks[i]);
        no_such(m, path, "rank", b, &have);
        names_free(&have);
        return -ENOENT;
    }
    return 0;
}

static int check_regions(sl_why *m, const sl_show_filter *f, const sl_runset *set, const char *path)
{
    for (size_t i = 0; i < f->nregions; i++) {
        struct names have = {0};
        int found = 0;
        for (size_t r = 0; r < set->nruns; r++) {
            const sl_run *run = &set->runs[r];
            for (size_t k = 0; k < run->likwid.nregions; k++)
                found |= pattern_tag(f, i, run->likwid.regions[k].tag,
                                     run->likwid.regions[k].tag_len, &have);
            for (size_t k = 0; k < run->timing.nregions; k++)
                found |= pattern_tag(f, i, run->timing.regions[k].tag,
                                     run->timing.regions[k].tag_len, &have);
        }
        if (found_or_say(m, path, "region matching", f->regions[i], found, &have))
            return -ENOENT;
    }
    return 0;
}

/* Some rank has LIKWID's counter data. */
static int has_counters(const sl_runset *set)
{
    for (size_t r = 0; r < set->nruns; r++)
        if (set->runs[r].likwid.source != SL_SOURCE_NONE)
            return 1;
    return 0;
}

static int check_groups(sl_why *m, const sl_show_filter *f, const sl_runset *set, const char *path)
{
    if (f->ngroups && !has_counters(set)) {
        sl_why_add(m, "%s: no counter data (timing only): --group '%s' selects nothing",
                   path, f->groups[0]);
        return -ENOENT;
    }
    for (size_t i = 0; i < f->ngroups; i++) {
        struct names have = {0};
        int found = 0;
        char b[64];
        for (size_t r = 0; r < set->nruns; r++)
            for (size_t k = 0; k < set->runs[r].likwid.nregions; k++) {
                const sl_region *g = &set->runs[r].likwid.regions[k];
                found |= match_group(f->groups[i], g);
                snprintf(b, sizeof b, "%lld", (long long)g->group_id);
                char *s = malloc(strlen(b) + strlen(g->group_name) + 4);
                if (s) {
                    sprintf(s, *g->group_name ? "%s (%s)" : "%s", b, g->group_name);
                    names_add(&have, s);
                }
                free(s);
            }
        if (found_or_say(m, path, "group", f->groups[i], found, &have))
            return -ENOENT;
    }
    return 0;
}

static int check_metrics(sl_why *m, const sl_show_filter *f, const sl_runset *set, const char *path)
{
    if (!f->nmetrics)
        return 0;
    if (!has_counters(set)) {
        sl_why_add(m, "%s: no counter data (timing only): --metric '%s' selects nothing",
                   path, f->metrics[0]);
        return -ENOENT;
    }
    struct names have = {0};
    int rc = names_add(&have, SL_ROW_NAME_CALLS);
    rc |= names_add(&have, SL_ROW_NAME_RUNTIME);
    for (size_t r = 0; r < set->nruns && !rc; r++)
        for (size_t k = 0; k < set->runs[r].likwid.nregions && !rc; k++) {
            const sl_region *g = &set->runs[r].likwid.regions[k];
            char **labels = g->nevents ? sl_event_labels(g) : NULL;
            if (g->nevents && !labels) {
                rc = -ENOMEM;
                break;
            }
            for (size_t e = 0; e < g->nevents; e++)
                rc |= names_add(&have, labels[e]);
            for (size_t m = 0; m < g->nmetrics; m++)
                rc |= names_add(&have, g->metric_names[m] ? g->metric_names[m] : "");
            sl_labels_free(labels, g->nevents);
        }
    for (size_t i = 0; i < f->nmetrics && !rc; i++) {
        int found = 0;
        for (size_t k = 0; k < have.n; k++)
            found |= !strcmp(have.v[k], f->metrics[i]);
        if (!found) {
            no_such(m, path, "event or metric", f->metrics[i], &have);
            rc = -ENOENT;
        }
    }
    names_free(&have);
    return rc;
}

int sl_filter_check(const sl_show_filter *f, const sl_runset *set, const char *path, sl_why *msg)
{
    int rc = check_ranks(msg, f, set, path);
    if (!rc)
        rc = check_regions(msg, f, set, path);
    if (!rc)
        rc = check_groups(msg, f, set, path);
    if (!rc)
        rc = check_metrics(msg, f, set, path);
    return rc;
}
