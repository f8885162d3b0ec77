/* LIKWID's group files: read as LIKWID's perfgroup reader does (sections
 * by the line's first word, a blank line ends EVENTSET and METRICS, a
 * metric's formula is its line's last word and its name the words before
 * it), then applied to marker-file regions (groupfile.h). */
#include "groupfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "mem.h"

#define SL_GROUP_MAX_LINE 4095 /* LIKWID reads lines with a 4 KiB fgets */

/* The sections: X(id, the word that starts its line). */
#define SL_GROUP_SECTIONS(X)                                                      \
    X(SHORT, "SHORT") X(EVENTSET, "EVENTSET") X(METRICS, "METRICS") X(LONG, "LONG") \
    X(LUA, "LUA") X(REQUIRE, "REQUIRE_NOHT")
#define SL_GS_ID(id, word) SEC_##id,
enum section { SEC_NONE = -1, SL_GROUP_SECTIONS(SL_GS_ID) SEC_N };
#undef SL_GS_ID
#define SL_GS_WORD(id, word) word,
static const char *const section_words[SEC_N] = {SL_GROUP_SECTIONS(SL_GS_WORD)};
#undef SL_GS_WORD

void sl_group_file_free(sl_group_file *g)
{
    free(g->name);
    sl_strings_free(g->counters, g->nevents);
    sl_strings_free(g->events, g->nevents);
    sl_strings_free(g->metric_names, g->nmetrics);
    if (g->formula_texts)
        sl_strings_free(g->formula_texts, g->nmetrics);
    for (size_t i = 0; g->formulas && i < g->nmetrics; i++)
        sl_formula_free(&g->formulas[i]);
    free(g->formulas);
    if (g->unusable)
        sl_strings_free(g->unusable, g->nmetrics);
    memset(g, 0, sizeof *g);
}

/* The blank-separated words of line (modified in place); their number, at
 * most max (more: max + 1). */
static size_t split_words(char *line, char **w, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            return n;
        if (n == max)
            return max + 1;
        w[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (*p)
            *p++ = '\0';
    }
}

struct reader {
    sl_group_file *g;
    const char *path;
    sl_diag *diag;
    size_t *lines;          /* [nmetrics] the line of each metric */
    size_t caplines;
};

static int add_event(struct reader *rd, size_t lineno, char **w, size_t n)
{
    sl_group_file *g = rd->g;
    if (n != 2) {
        sl_diag_add(rd->diag, rd->path, lineno, "EVENTSET line of %zu words: expected COUNTER EVENT",
                    n);
        return -EINVAL;
    }
    if (g->nevents == SL_GROUP_MAX_EVENTS) {
        sl_diag_add(rd->diag, rd->path, lineno, "more than %d events: expected at most that many",
                    SL_GROUP_MAX_EVENTS);
        return -EINVAL;
    }
    for (size_t e = 0; e < g->nevents; e++)
        if (!strcmp(g->counters[e], w[0])) {
            sl_diag_add(rd->diag, rd->path, lineno, "counter %.64s a second time: expected each "
                        "counter once in EVENTSET", w[0]);
            return -EINVAL;
        }
    if (!(g->nevents % 16)) {
        char **c = realloc(g->counters, (g->nevents + 16) * sizeof *c);
        if (c)
            g->counters = c;
        char **e = c ? realloc(g->events, (g->nevents + 16) * sizeof *e) : NULL;
        if (!e)
            return -ENOMEM;
        g->events = e;
    }
    g->counters[g->nevents] = strdup(w[0]);
    g->events[g->nevents] = strdup(w[1]);
    if (!g->counters[g->nevents] || !g->events[g->nevents]) {
        free(g->counters[g->nevents]);
        free(g->events[g->nevents]);
        return -ENOMEM;
    }
    g->nevents++;
    return 0;
}

/* A METRICS line: the name (its words joined by one blank) and the
 * formula (the last word), compiled once EVENTSET is complete. */
static int add_metric(struct reader *rd, size_t lineno, char **w, size_t n,
                      char **formula_text)
{
    sl_group_file *g = rd->g;
    if (n < 2) {
        sl_diag_add(rd->diag, rd->path, lineno, "METRICS line of one word: expected NAME FORMULA");
        return -EINVAL;
    }
    if (g->nmetrics == SL_GROUP_MAX_METRICS) {
        sl_diag_add(rd->diag, rd->path, lineno, "more than %d metrics: expected at most that many",
                    SL_GROUP_MAX_METRICS);
        return -EINVAL;
    }
    if (!(g->nmetrics % 16)) {
        char **m = realloc(g->metric_names, (g->nmetrics + 16) * sizeof *m);
        if (m)
            g->metric_names = m;
        size_t *l = m ? realloc(rd->lines, (g->nmetrics + 16) * sizeof *l) : NULL;
        if (!l)
            return -ENOMEM;
        rd->lines = l;
    }
    size_t len = 0;
    for (size_t i = 0; i + 1 < n; i++)
        len += strlen(w[i]) + 1;
    char *name = malloc(len);
    if (!name)
        return -ENOMEM;
    name[0] = '\0';
    for (size_t i = 0; i + 1 < n; i++) {
        if (i)
            strcat(name, " ");
        strcat(name, w[i]);
    }
    formula_text[g->nmetrics] = strdup(w[n - 1]);
    if (!formula_text[g->nmetrics]) {
        free(name);
        return -ENOMEM;
    }
    g->metric_names[g->nmetrics] = name;
    rd->lines[g->nmetrics] = lineno;
    g->nmetrics++;
    return 0;
}

static enum section section_of(const char *line)
{
    for (int s = 0; s < SEC_N; s++)
        if (!strncmp(line, section_words[s], strlen(section_words[s])))
            return (enum section)s;
    return SEC_NONE;
}

#define SL_GROUP_MAX_WORDS (SL_GROUP_MAX_LINE / 2 + 1)

/* Every line: the sections, EVENTSET and METRICS. line and w: room for a
 * line and its words. */
static int read_lines(struct reader *rd, const char *buf, size_t len, char **formula_text,
                      char *line, char **w)
{
    enum section sec = SEC_NONE;
    size_t lineno = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
        lineno++;
        if (n > SL_GROUP_MAX_LINE) {
            sl_diag_add(rd->diag, rd->path, lineno, "line of %zu bytes: expected at most %d", n,
                        SL_GROUP_MAX_LINE);
            return -EINVAL;
        }
        if (memchr(buf + at, '\0', n)) {
            sl_diag_add(rd->diag, rd->path, lineno, "NUL byte: expected a text file");
            return -EINVAL;
        }
        memcpy(line, buf + at, n);
        line[n] = '\0';
        at += n + 1;
        if (line[0] == '#')
            continue;
        enum section s = section_of(line);
        if (s != SEC_NONE) {
            sec = s == SEC_REQUIRE ? sec : s;
            continue;
        }
        if (sec != SEC_EVENTSET && sec != SEC_METRICS)
            continue;
        size_t nw = split_words(line, w, SL_GROUP_MAX_WORDS);
        if (!nw) {
            sec = SEC_NONE;     /* a blank line ends the section */
            continue;
        }
        int rc = sec == SEC_EVENTSET ? add_event(rd, lineno, w, nw)
                                     : add_metric(rd, lineno, w, nw, formula_text);
        if (rc)
            return rc;
    }
    return 0;
}

int sl_group_file_parse(const char *buf, size_t len, const char *path, const char *name,
                        sl_group_file *g, sl_diag *diag)
{
    memset(g, 0, sizeof *g);
    if (len > SL_GROUP_MAX_BYTES) {
        sl_diag_add(diag, path, 0, "%zu bytes: expected a group file of at most %u", len,
                    SL_GROUP_MAX_BYTES);
        return -EINVAL;
    }
    char **formula_text = sl_zalloc(SL_GROUP_MAX_METRICS, sizeof *formula_text);
    char *line = malloc(SL_GROUP_MAX_LINE + 1);
    char **w = malloc((SL_GROUP_MAX_WORDS + 1) * sizeof *w);
    g->name = strdup(name);
    struct reader rd = {.g = g, .path = path, .diag = diag};
    int rc = formula_text && line && w && g->name ? 0 : -ENOMEM;
    if (!rc)
        rc = read_lines(&rd, buf, len, formula_text, line, w);
    free(line);
    free(w);
    if (!rc && !g->nevents) {
        sl_diag_add(diag, path, 0, "no EVENTSET lines: expected a LIKWID group file");
        rc = -EINVAL;
    }
    if (!rc && g->nmetrics && (!(g->formulas = sl_zalloc(g->nmetrics, sizeof *g->formulas)) ||
                               !(g->unusable = sl_zalloc(g->nmetrics, sizeof *g->unusable))))
        rc = -ENOMEM;
    for (size_t m = 0; m < g->nmetrics && !rc; m++) {
        char err[256];
        rc = sl_formula_compile(formula_text[m], g->counters, g->nevents, &g->formulas[m], err,
                                sizeof err);
        if (rc == -ENOENT || rc == -EINVAL) {
            /* LIKWID's own files have metrics it cannot compute (a counter
             * missing from the EVENTSET, a blank inside a formula): the
             * metric is left out with the reason, the group still applies */
            char why[600];
            snprintf(why, sizeof why, "%s:%zu: formula '%.80s': %s", path, rd.lines[m],
                     formula_text[m], err);
            rc = (g->unusable[m] = strdup(why)) ? 0 : -ENOMEM;
        }
    }
    g->formula_texts = formula_text;
    free(rd.lines);
    if (rc)
        sl_group_file_free(g);
    return rc;
}

static int plain_name(const char *s)
{
    return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Reads and parses the group file at path. */
static int load_path(const char *path, const char *name, const char *what, sl_group_file *g,
                     sl_diag *diag)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = sl_read_file(path, SL_GROUP_MAX_BYTES, &buf, &len);
    if (rc < 0) {
        sl_diag_add(diag, path, 0, "cannot read: %s: expected %s", strerror(-rc), what);
        return rc;
    }
    rc = sl_group_file_parse(buf, len, path, name, g, diag);
    free(buf);
    return rc;
}

int sl_group_file_load(const char *dir, const char *arch, const char *group, sl_group_file *g,
                       sl_diag *diag)
{
    memset(g, 0, sizeof *g);
    if (strchr(group, '/')) {   /* a file of one's own: its name without .txt */
        const char *base = strrchr(group, '/') + 1;
        size_t n = strlen(base);
        if (n > 4 && !strcmp(base + n - 4, ".txt"))
            n -= 4;
        char *name = n ? strndup(base, n) : NULL;
        if (!n)
            sl_diag_add(diag, group, 0, "no file name: expected PATH/GROUP.txt");
        int rc = name ? load_path(group, name, "a LIKWID group file", g, diag)
                      : (n ? -ENOMEM : -EINVAL);
        free(name);
        return rc;
    }
    if (!plain_name(arch) || !plain_name(group)) {
        sl_diag_add(diag, group, 0, "group '%.100s' of architecture '%.100s': expected plain names "
                    "(a perfgroups folder, a group file's name)", group, arch);
        return -EINVAL;
    }
    char path[2048], what[256];
    if (snprintf(path, sizeof path, "%s/%s/%s.txt", dir, arch, group) >= (int)sizeof path) {
        sl_diag_add(diag, dir, 0, "path too long: expected a shorter perfgroups folder");
        return -EINVAL;
    }
    snprintf(what, sizeof what, "LIKWID's group file of %.100s for architecture %.100s", group,
             arch);
    return load_path(path, group, what, g, diag);
}

/* Adds "name (why)" to the list in left ("a (x), b (y)"), cut to leftlen. */
static void list_add(char *left, size_t leftlen, const char *name, const char *why)
{
    if (!left || !leftlen)
        return;
    size_t n = strlen(left);
    if (n + 1 < leftlen)
        snprintf(left + n, leftlen - n, "%s%s (%s)", n ? ", " : "", name, why);
}

/* NULL when metric m can be computed, else why not. */
static const char *not_computable(const sl_group_file *g, size_t m, const double *vars)
{
    if (g->unusable && g->unusable[m])
        return g->unusable[m];
    for (int v = 0; v < SL_FV_N; v++)
        if ((g->formulas[m].specials >> v & 1u) && isnan(vars[v]))
            return v == SL_FV_INVERSE_CLOCK ? "needs the clock" : "needs the node's topology";
    return NULL;
}

static char **copy_strings(char *const *v, size_t n)
{
    char **c = sl_zalloc(n ? n : 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        if (!(c[i] = strdup(v[i]))) {
            sl_strings_free(c, i);
            return NULL;
        }
    return c;
}

long sl_group_apply(const sl_group_file *g, const sl_group_node *node, sl_region *r, char *left,
                    size_t leftlen)
{
    if (r->nevents != g->nevents)
        return -EINVAL;
    size_t T = r->nthreads;
    double spec[SL_FV_N];
    spec[SL_FV_TIME] = 0; /* per thread, below */
    spec[SL_FV_INVERSE_CLOCK] = node->clock_hz > 0 ? 1.0 / node->clock_hz : NAN;
    spec[SL_FV_TRUE] = 1;
    spec[SL_FV_FALSE] = 0;
    spec[SL_FV_NUM_SOCKETS] = node->num_sockets;
    spec[SL_FV_NUM_NUMA] = node->num_numadomains;
    size_t keep = 0;
    for (size_t m = 0; m < g->nmetrics; m++)
        keep += !not_computable(g, m, spec);
    if (left && leftlen)
        left[0] = '\0';
    char **names = sl_zalloc(keep ? keep : 1, sizeof *names);
    double *metrics = sl_zalloc(keep && T ? keep * T : 1, sizeof *metrics);
    double *vars = sl_zalloc(g->nevents + SL_FV_N, sizeof *vars);
    char **evn = copy_strings(g->events, g->nevents);
    char **ctn = copy_strings(g->counters, g->nevents);
    char *gname = strdup(g->name);
    int rc = names && metrics && vars && evn && ctn && gname ? 0 : -ENOMEM;
    size_t k = 0;
    for (size_t m = 0; m < g->nmetrics && !rc; m++) {
        const sl_formula *f = &g->formulas[m];
        const char *why = not_computable(g, m, spec);
        if (why) {
            list_add(left, leftlen, g->metric_names[m], why);
            continue;
        }
        if (!(names[k] = strdup(g->metric_names[m]))) {
            rc = -ENOMEM;
            break;
        }
        for (size_t t = 0; t < T; t++) {
            for (size_t e = 0; e < g->nevents; e++)
                vars[e] = r->events[e * T + t];
            memcpy(vars + g->nevents, spec, sizeof spec);
            vars[g->nevents + SL_FV_TIME] = r->times[t];
            metrics[k * T + t] = sl_formula_eval(f, vars);
        }
        k++;
    }
    free(vars);
    if (rc) {
        if (names)
            sl_strings_free(names, k);
        free(metrics);
        if (evn)
            sl_strings_free(evn, g->nevents);
        if (ctn)
            sl_strings_free(ctn, g->nevents);
        free(gname);
        return rc;
    }
    sl_region_set_group(r, evn, ctn, names, metrics, keep, gname);
    return (long)(g->nmetrics - keep);
}

void sl_region_set_group(sl_region *r, char **evn, char **ctn, char **names, double *metrics,
                         size_t nmetrics, char *gname)
{
    if (evn) {
        if (r->has_names) {
            sl_strings_free(r->event_names, r->nevents);
            sl_strings_free(r->counter_names, r->nevents);
        }
        r->event_names = evn;
        r->counter_names = ctn;
        r->has_names = 1;
    }
    sl_strings_free(r->metric_names, r->nmetrics);
    free(r->metrics);
    r->metric_names = names;
    r->metrics = metrics;
    r->nmetrics = nmetrics;
    free(r->group_name);
    r->group_name = gname;
}

int sl_status_append(sl_run *run, const char *text)
{
    size_t n = strlen(run->likwid_status), m = strlen(text);
    char *s = malloc(n + m + 3);
    if (!s)
        return -ENOMEM;
    snprintf(s, n + m + 3, "%s%s%s", run->likwid_status, n ? "; " : "", text);
    free(run->likwid_status);
    run->likwid_status = s;
    return 0;
}

/* One group file, for the regions of group id gid. */
static int apply_one(sl_run *run, const char *dir, const char *arch, size_t gid,
                     const char *group, const sl_group_node *node, int strict, size_t *left_out,
                     sl_diag *diag)
{
    sl_group_file g;
    size_t before = diag->count;
    int rc = sl_group_file_load(dir, arch, group, &g, diag);
    char *text = malloc(4096);
    if (!text) {
        if (!rc)
            sl_group_file_free(&g);
        return -ENOMEM;
    }
    if (rc == -ENOMEM) {
        free(text);
        return rc;
    }
    if (rc) {
        snprintf(text, 4096, "group %zu: %.100s of %.100s: not applied (%s)", gid, group, arch,
                 diag->count > before && diag->kept > before ? diag->lines[before]
                                                             : "group file not read");
        rc = sl_status_append(run, text);
        free(text);
        return rc ? rc : (strict ? -EINVAL : 0);
    }
    char left[2048] = "";
    size_t applied = 0, mismatched = 0;
    long nleft = 0;
    for (size_t i = 0; i < run->likwid.nregions && rc == 0; i++) {
        sl_region *r = &run->likwid.regions[i];
        if (r->source != SL_SOURCE_MARKER_FILE || r->group_id != (int64_t)gid)
            continue;
        long n = sl_group_apply(&g, node, r, left, sizeof left);
        if (n == -EINVAL) {
            sl_diag_add(diag, g.name, 0, "region '%.100s' of group %zu has %zu events, the "
                        "group file of %s for %s has %zu: expected the group it was measured "
                        "with", r->tag, gid, r->nevents, g.name, arch, g.nevents);
            mismatched++;
            rc = strict ? -EINVAL : 0;
            continue;
        }
        if (n < 0)
            rc = (int)n;
        else
            applied++;
        nleft = n > 0 ? n : nleft;
    }
    if (rc == 0) {
        *left_out += (size_t)nleft;
        if (mismatched)
            snprintf(text, 4096, "group %zu: %s of %s: not applied to %zu regions (their event "
                     "count is not its EVENTSET's %zu)", gid, g.name, arch, mismatched, g.nevents);
        else
            snprintf(text, 4096, "group %zu: %s of %s: names and %zu metrics%s%s%s", gid, g.name,
                     arch, g.nmetrics - (size_t)nleft, nleft ? ", left out: " : "",
                     nleft ? left : "", applied ? "" : " (no region of this group)");
        rc = sl_status_append(run, text);
    }
    free(text);
    sl_group_file_free(&g);
    return rc;
}

int sl_group_apply_run(sl_run *run, const char *dir, const char *arch, const char *list,
                       const char *sep, const sl_group_node *node, int strict, size_t *left_out,
                       sl_diag *diag)
{
    *left_out = 0;
    char *copy = strdup(list);
    if (!copy)
        return -ENOMEM;
    int rc = 0;
    size_t gid = 0;
    char *save = NULL;
    for (char *g = strtok_r(copy, sep, &save); g && !rc; g = strtok_r(NULL, sep, &save), gid++) {
        int custom = strchr(g, ':') != NULL; /* "EVENT:COUNTER,...": no group file */
        if (!custom)
            rc = apply_one(run, dir, arch, gid, g, node, strict, left_out, diag);
    }
    free(copy);
    return rc;
}
