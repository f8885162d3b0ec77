/* A custom event set against the group files of its architecture
 * (group_match.h): which groups it is, and their metrics on its regions. */
#include "group_match.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

#define MAX_NAME 255            /* a group file's name, ".txt" included */

void sl_group_match_free(sl_group_match *m)
{
    if (m->events)
        sl_strings_free(m->events, m->nevents);
    if (m->counters)
        sl_strings_free(m->counters, m->nevents);
    for (size_t c = 0; c < m->ncand; c++) {
        sl_group_file_free(&m->cand[c]);
        free(m->where ? m->where[c] : NULL);
    }
    free(m->cand);
    free(m->where);
    memset(m, 0, sizeof *m);
}

/* "EVENT:COUNTER[:OPTION...],...": each entry split at its first ':'. */
static int parse_set(const char *set, sl_group_match *m, sl_diag *diag)
{
    size_t n = 1;
    for (const char *p = set; *p; p++)
        n += *p == ',';
    if (n > SL_GROUP_MAX_EVENTS) {
        sl_diag_add(diag, "LIKWID_EVENTS", 0, "%zu events in one set: expected at most %d", n,
                    SL_GROUP_MAX_EVENTS);
        return -EINVAL;
    }
    m->events = sl_zalloc(n, sizeof *m->events);
    m->counters = sl_zalloc(n, sizeof *m->counters);
    if (!m->events || !m->counters)
        return -ENOMEM;
    for (const char *p = set;; m->nevents++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        if (!colon || colon == p || colon + 1 == p + len) {
            sl_diag_add(diag, "LIKWID_EVENTS", 0, "'%.*s': expected EVENT:COUNTER",
                        (int)(len < 100 ? len : 100), p);
            return -EINVAL;
        }
        m->events[m->nevents] = sl_bytes_dup(p, (size_t)(colon - p));
        m->counters[m->nevents] = sl_bytes_dup(colon + 1, (size_t)(p + len - colon - 1));
        if (!m->events[m->nevents] || !m->counters[m->nevents]) {
            m->nevents++;
            return -ENOMEM;
        }
        for (size_t i = 0; i < m->nevents; i++)
            if (!strcmp(m->counters[i], m->counters[m->nevents])) {
                sl_diag_add(diag, "LIKWID_EVENTS", 0, "counter %.64s twice in one set: expected "
                            "each counter once", m->counters[i]);
                m->nevents++;
                return -EINVAL;
            }
        if (!end) {
            m->nevents++;
            return 0;
        }
        p = end + 1;
    }
}

/* A counter likwid-mpirun hands every rank (its test, as it writes it:
 * "FIXC%d" anywhere, "^PMC%d", "TMP%d" anywhere). */
static int has_at(const char *s, const char *word, int anchored)
{
    size_t n = strlen(word);
    for (const char *p = s; (p = strstr(p, word)) != NULL; p++)
        if ((!anchored || p == s) && p[n] >= '0' && p[n] <= '9')
            return 1;
    return 0;
}

static int core_counter(const char *counter)
{
    return has_at(counter, "FIXC", 0) || has_at(counter, "PMC", 1) || has_at(counter, "TMP", 0);
}

/* 2: the set is g's EVENTSET; 1: g's EVENTSET without some of its uncore
 * counters; 0: neither. where[e]: the set's index of g's event e. */
static int compare(const sl_group_match *m, const sl_group_file *g, size_t *where)
{
    if (g->nevents < m->nevents)
        return 0;
    for (size_t e = 0; e < g->nevents; e++)
        where[e] = SIZE_MAX;
    for (size_t i = 0; i < m->nevents; i++) {
        size_t e = 0;
        while (e < g->nevents &&
               (strcmp(g->events[e], m->events[i]) || strcmp(g->counters[e], m->counters[i])))
            e++;
        if (e == g->nevents || where[e] != SIZE_MAX)
            return 0;
        where[e] = i;
    }
    for (size_t e = 0; e < g->nevents; e++)
        if (where[e] == SIZE_MAX && core_counter(g->counters[e]))
            return 0;
    return g->nevents == m->nevents ? 2 : 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The group names of dir/arch (files NAME.txt), sorted; at most
 * SL_MATCH_MAX_GROUPS. */
static int list_groups(const char *dir, const char *arch, char ***names, size_t *n,
                       sl_diag *diag)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, arch) < 0)
        return -ENOMEM;
    DIR *d = opendir(path);
    if (!d) {
        int err = errno;
        sl_diag_add(diag, path, 0, "cannot list: %s: expected LIKWID's group files of %.100s",
                    strerror(err), arch);
        free(path);
        return err == ENOMEM ? -ENOMEM : -ENOENT;
    }
    free(path);
    *names = sl_zalloc(SL_MATCH_MAX_GROUPS, sizeof **names);
    *n = 0;
    int rc = *names ? 0 : -ENOMEM;
    for (struct dirent *de; !rc && *n < SL_MATCH_MAX_GROUPS && (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len <= 4 || len > MAX_NAME || strcmp(de->d_name + len - 4, ".txt") ||
            de->d_name[0] == '.')
            continue;
        if (!((*names)[(*n)++] = sl_bytes_dup(de->d_name, len - 4)))
            rc = -ENOMEM;
    }
    closedir(d);
    if (!rc)
        qsort(*names, *n, sizeof **names, by_name);
    return rc;
}

/* Keeps g (moved) with its where as a candidate of kind `kind`: an exact
 * match drops the partial ones found so far. */
static int keep(sl_group_match *m, sl_group_file *g, size_t *where, int kind)
{
    if (kind == 2 && !m->exact) {
        for (size_t c = 0; c < m->ncand; c++) {
            sl_group_file_free(&m->cand[c]);
            free(m->where[c]);
        }
        m->ncand = 0;
        m->exact = 1;
    }
    if (kind == 1 && m->exact) {
        sl_group_file_free(g);
        free(where);
        return 0;
    }
    m->cand[m->ncand] = *g;
    m->where[m->ncand++] = where;
    return 0;
}

int sl_group_match_set(const char *dir, const char *arch, const char *set, sl_group_match *m,
                       sl_diag *diag)
{
    memset(m, 0, sizeof *m);
    if (!*arch || strchr(arch, '/') || !strcmp(arch, ".") || !strcmp(arch, "..")) {
        sl_diag_add(diag, arch, 0, "architecture '%.100s': expected a perfgroups folder's name",
                    arch);
        return -EINVAL;
    }
    int rc = parse_set(set, m, diag);
    char **names = NULL;
    size_t n = 0;
    if (!rc)
        rc = list_groups(dir, arch, &names, &n, diag);
    if (!rc && (!(m->cand = sl_zalloc(n, sizeof *m->cand)) ||
                !(m->where = sl_zalloc(n, sizeof *m->where))))
        rc = -ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        sl_group_file g;
        int lr = sl_group_file_load(dir, arch, names[i], &g, diag);
        if (lr == -ENOMEM)
            rc = lr;
        if (lr) {
            m->unread += lr != -ENOMEM;
            continue;
        }
        size_t *where = sl_zalloc(g.nevents, sizeof *where);
        int kind = where ? compare(m, &g, where) : -1;
        if (kind > 0) {
            rc = keep(m, &g, where, kind);
            continue;
        }
        free(where);
        sl_group_file_free(&g);
        rc = kind < 0 ? -ENOMEM : 0;
    }
    if (names)
        sl_strings_free(names, n);
    if (rc)
        sl_group_match_free(m);
    return rc;
}

/* Applying a match. */

/* Why metric k of candidate c cannot be computed here, NULL when it can;
 * the reason is written to why (whylen bytes) when it is not a fixed text. */
static const char *cannot(const sl_group_match *m, size_t c, size_t k, const double *spec,
                          char *why, size_t whylen)
{
    const sl_group_file *g = &m->cand[c];
    if (g->unusable && g->unusable[k])
        return g->unusable[k];
    for (size_t e = 0; e < g->nevents; e++)
        if (m->where[c][e] == SIZE_MAX && sl_formula_uses(&g->formulas[k], e)) {
            snprintf(why, whylen, "needs %s, not counted here", g->counters[e]);
            return why;
        }
    for (int v = 0; v < SL_FV_N; v++)
        if ((g->formulas[k].specials >> v & 1u) && isnan(spec[v]))
            return v == SL_FV_INVERSE_CLOCK ? "needs the clock" : "needs the node's topology";
    return NULL;
}

/* Metric k of the first candidate is one every other candidate defines
 * alike (same name, same formula) and can compute. */
static int shared(const sl_group_match *m, size_t k, const double *spec)
{
    const sl_group_file *g0 = &m->cand[0];
    char why[128];
    for (size_t c = 1; c < m->ncand; c++) {
        const sl_group_file *g = &m->cand[c];
        size_t j = 0;
        while (j < g->nmetrics && (strcmp(g->metric_names[j], g0->metric_names[k]) ||
                                   strcmp(g->formula_texts[j], g0->formula_texts[k])))
            j++;
        if (j == g->nmetrics || cannot(m, c, j, spec, why, sizeof why))
            return 0;
    }
    return 1;
}

/* Adds "text" to out ("a, b"), cut to outlen. */
static void add_item(char *out, size_t outlen, const char *sep, const char *fmt, const char *a,
                     const char *b)
{
    size_t n = strlen(out);
    if (n + 1 >= outlen)
        return;
    snprintf(out + n, outlen - n, "%s", n ? sep : "");
    n = strlen(out);
    snprintf(out + n, outlen - n, fmt, a, b);
}

typedef struct chosen {
    size_t n;
    size_t *k;              /* the first candidate's metrics, in its order */
    char left[2048];        /* "name (why), ..." */
} chosen;

static int choose(const sl_group_match *m, const double *spec, chosen *ch)
{
    ch->n = 0;
    ch->left[0] = '\0';
    if (!m->ncand)
        return (ch->k = sl_zalloc(1, sizeof *ch->k)) ? 0 : -ENOMEM;
    const sl_group_file *g = &m->cand[0];
    if (!(ch->k = sl_zalloc(g->nmetrics, sizeof *ch->k)))
        return -ENOMEM;
    for (size_t k = 0; k < g->nmetrics; k++) {
        char buf[128];
        const char *why = cannot(m, 0, k, spec, buf, sizeof buf);
        if (m->ncand > 1 && !why && !shared(m, k, spec))
            why = "not alike in every one of them";
        if (why)
            add_item(ch->left, sizeof ch->left, ", ", "%s (%s)", g->metric_names[k], why);
        else
            ch->k[ch->n++] = k;
    }
    return 0;
}

/* r's names, group name and metrics from the match. */
static int apply_region(const sl_group_match *m, const chosen *ch, const double *spec,
                        sl_region *r)
{
    size_t T = r->nthreads;
    const sl_group_file *g = m->ncand ? &m->cand[0] : NULL;
    char **names = sl_zalloc(ch->n, sizeof *names);
    double *metrics = sl_zalloc(ch->n && T ? ch->n * T : 1, sizeof *metrics);
    double *vars = sl_zalloc((g ? g->nevents : 0) + SL_FV_N, sizeof *vars);
    char *gname = strdup(m->ncand == 1 ? g->name : "Custom");
    char **evn = r->has_names ? NULL : sl_zalloc(m->nevents, sizeof *evn);
    char **ctn = r->has_names ? NULL : sl_zalloc(m->nevents, sizeof *ctn);
    int rc = names && metrics && vars && gname && (r->has_names || (evn && ctn)) ? 0 : -ENOMEM;
    for (size_t e = 0; !rc && !r->has_names && e < m->nevents; e++)
        if (!(evn[e] = strdup(m->events[e])) || !(ctn[e] = strdup(m->counters[e])))
            rc = -ENOMEM;
    for (size_t i = 0; !rc && i < ch->n; i++) {
        if (!(names[i] = strdup(g->metric_names[ch->k[i]]))) {
            rc = -ENOMEM;
            break;
        }
        for (size_t t = 0; t < T; t++) {
            for (size_t e = 0; e < g->nevents; e++)
                vars[e] = m->where[0][e] == SIZE_MAX ? 0 : r->events[m->where[0][e] * T + t];
            memcpy(vars + g->nevents, spec, SL_FV_N * sizeof *spec);
            vars[g->nevents + SL_FV_TIME] = r->times[t];
            metrics[i * T + t] = sl_formula_eval(&g->formulas[ch->k[i]], vars);
        }
    }
    free(vars);
    if (rc) {
        sl_strings_free(names, ch->n);
        free(metrics);
        free(gname);
        if (evn)
            sl_strings_free(evn, m->nevents);
        if (ctn)
            sl_strings_free(ctn, m->nevents);
        return rc;
    }
    sl_region_set_group(r, evn, ctn, names, metrics, ch->n, gname);
    return 0;
}

/* The region's events are the set's: as many, and the same names when it
 * has names (LIKWID's, from the full API). */
static int fits(const sl_group_match *m, const sl_region *r)
{
    if (r->nevents != m->nevents)
        return 0;
    for (size_t e = 0; r->has_names && e < m->nevents; e++)
        if (strcmp(r->event_names[e], m->events[e]))
            return 0;
    return 1;
}

/* "group 0: ..." for status. */
static void describe(const sl_group_match *m, const char *arch, int64_t gid, const chosen *ch,
                     size_t applied, size_t other, char *out, size_t outlen)
{
    char who[1024] = "", missing[512] = "";
    for (size_t c = 0; c < m->ncand; c++)
        add_item(who, sizeof who, c + 1 == m->ncand ? " or " : ", ", "%s%s", m->cand[c].name, "");
    for (size_t e = 0; m->ncand == 1 && e < m->cand[0].nevents; e++)
        if (m->where[0][e] == SIZE_MAX)
            add_item(missing, sizeof missing, ", ", "%s%s", m->cand[0].counters[e], "");
    int n;
    if (!m->ncand)
        n = snprintf(out, outlen, "group %lld: custom event set (no group of %s has these events): "
                     "no metrics", (long long)gid, arch);
    else if (m->ncand == 1)
        n = snprintf(out, outlen, "group %lld: the events of %s of %s%s%s%s: named %s (recognised "
                     "from its events), %zu metrics", (long long)gid, who, arch,
                     m->exact ? "" : " without ", missing,
                     m->exact ? "" : " (counters likwid-mpirun does not hand every rank)",
                     who, ch->n);
    else
        n = snprintf(out, outlen, "group %lld: the events of %s of %s%s: not named (recognised "
                     "from its events, which do not tell these groups apart), %zu metrics they "
                     "define alike", (long long)gid, who, arch,
                     m->exact ? "" : " without counters likwid-mpirun does not hand every rank",
                     ch->n);
    size_t at = n < 0 ? 0 : (size_t)n < outlen ? (size_t)n : outlen - 1;
    if (ch->left[0] && at + 1 < outlen)
        at += (size_t)snprintf(out + at, outlen - at, ", left out: %s", ch->left);
    if (at < outlen && other)
        snprintf(out + at, outlen - at, " (not applied to %zu regions of this group: their events "
                 "are not the set's)", other);
    else if (at < outlen && !applied)
        snprintf(out + at, outlen - at, " (no region of this group)");
    if (m->unread && strlen(out) + 1 < outlen)
        snprintf(out + strlen(out), outlen - strlen(out), " (%zu group files of %s not read)",
                 m->unread, arch);
}

int sl_group_match_apply(const sl_group_match *m, const char *arch, const sl_group_node *node,
                         sl_likwid *lw, int64_t gid, sl_source src, char *status,
                         size_t statuslen)
{
    double spec[SL_FV_N];
    spec[SL_FV_TIME] = 0; /* per thread */
    spec[SL_FV_INVERSE_CLOCK] = node->clock_hz > 0 ? 1.0 / node->clock_hz : NAN;
    spec[SL_FV_TRUE] = 1;
    spec[SL_FV_FALSE] = 0;
    spec[SL_FV_NUM_SOCKETS] = node->num_sockets;
    spec[SL_FV_NUM_NUMA] = node->num_numadomains;
    chosen *ch = malloc(sizeof *ch);
    if (!ch)
        return -ENOMEM;
    int rc = choose(m, spec, ch);
    size_t applied = 0, other = 0;
    for (size_t i = 0; !rc && i < lw->nregions; i++) {
        sl_region *r = &lw->regions[i];
        if (r->source != src || r->group_id != gid)
            continue;
        if (!fits(m, r)) {
            other++;
            continue;
        }
        rc = apply_region(m, ch, spec, r);
        applied++;
    }
    if (!rc && status && statuslen)
        describe(m, arch, gid, ch, applied, other, status, statuslen);
    free(ch->k);
    free(ch);
    return rc;
}
