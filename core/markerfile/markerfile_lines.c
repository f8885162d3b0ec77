/* The marker-file reader's line parser: the header line, region lines
 * `<id>:<tag>-<group>` and value lines, each checked for syntax first and
 * then for how it fits the region table. A defective line is reported with
 * what was expected and skipped (an error in strict mode). */
#include "markerfile_i.h"

#include "vec.h"

#include <string.h>

/* Next blank-separated token in [*p, end); 0 when none is left. */
static int next_token(const char **p, const char *end, const char **tok, size_t *n)
{
    const char *s = *p;
    while (s < end && is_blank(*s))
        s++;
    if (s == end)
        return 0;
    const char *t = s;
    while (s < end && !is_blank(*s))
        s++;
    *tok = t;
    *n = (size_t)(s - t);
    *p = s;
    return 1;
}

/* Three numbers; any defect is an error in both modes, since the header
 * bounds everything after it. */
int sl_mf_parse_header(mf_ctx *c, const char *l, size_t n, int cut)
{
    if (cut) {
        sl_mf_report(c, 1, "header line cut off: expected %s ending in a newline", MF_HEADER_FORM);
        return -EINVAL;
    }
    if (memchr(l, '\0', n)) {
        sl_mf_report(c, 1, "NUL byte in the header line: expected %s", MF_HEADER_FORM);
        return -EINVAL;
    }
    const char *p = l, *end = l + n, *tok;
    size_t tn;
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        if (!next_token(&p, end, &tok, &tn) || sl_mf_parse_uint(tok, tn, INT64_MAX, &v[i]) < 0) {
            sl_mf_report(c, 1, "bad header: expected three non-negative integers %s",
                         MF_HEADER_FORM);
            return -EINVAL;
        }
    }
    if (next_token(&p, end, &tok, &tn)) {
        sl_mf_report(c, 1, "extra text after the header's three numbers: expected %s",
                     MF_HEADER_FORM);
        return -EINVAL;
    }
    c->info->header_threads = (long long)v[0];
    c->info->header_regions = (long long)v[1];
    c->info->header_groups = (long long)v[2];
    c->hdr_regions = v[1];
    c->hdr_groups = v[2];
    return 0;
}

/* `<id>:<tag>-<group>`, split on the first ':' and the last '-'. The slot is
 * added even when the line is defective, so later ids keep their places. */
static int parse_region(mf_ctx *c, const char *l, size_t n, size_t line)
{
    if (c->regions_closed)
        return SKIP(c, line, "region line after the first value line: expected a value line");
    if (c->nreg >= c->hdr_regions)
        return SKIP(c, line,
                    "region line beyond the %llu the header announces: expected a value line",
                    (unsigned long long)c->hdr_regions);
    mf_region *r = sl_mf_add_slot(c, line);
    if (!r)
        return -ENOMEM;

    const char *end = l + n, *p = l;
    while (p < end && is_blank(*p))
        p++;
    const char *colon = memchr(p, ':', (size_t)(end - p)); /* present: caller checked */
    uint64_t id;
    if (sl_mf_parse_uint(p, (size_t)(colon - p), INT64_MAX, &id) < 0 || id != c->nreg - 1)
        return SKIP(c, line, "region id out of order: expected id %zu in %s", c->nreg - 1,
                    MF_REGION_FORM);
    const char *tag = colon + 1;
    while (end > tag && is_blank(end[-1])) /* tolerated trailing blanks */
        end--;
    const char *dash = NULL;
    for (const char *q = end; q > tag; q--)
        if (q[-1] == '-') {
            dash = q - 1;
            break;
        }
    uint64_t group;
    if (!dash || sl_mf_parse_uint(dash + 1, (size_t)(end - dash - 1), INT64_MAX, &group) < 0)
        return SKIP(c, line, "region line without a '-<group>' suffix: expected %s",
                    MF_REGION_FORM);
    if (group >= c->hdr_groups)
        return SKIP(c, line,
                    "group id %llu not below the header's group count %llu: expected a "
                    "group id below %llu",
                    (unsigned long long)group, (unsigned long long)c->hdr_groups,
                    (unsigned long long)c->hdr_groups);
    r->tag = tag;
    r->tag_len = (size_t)(dash - tag);
    r->group = (int64_t)group;
    r->bad = 0;
    return 0;
}

/* Whether each of the n values equals v. */
static int all_equal(const double *vals, size_t n, double v)
{
    for (size_t i = 0; i < n; i++)
        if (vals[i] != v)
            return 0;
    return 1;
}

/* `<region> <group> <cpu> <count> <time> <nevents> <v1..vN>`. Syntax first,
 * then how the line fits its region. Returns 0 (kept or dropped as a
 * placeholder), 1 (skipped), or a negative errno. */
static int parse_value(mf_ctx *c, const char *l, size_t n, size_t line)
{
    if (!c->regions_closed) {
        c->regions_closed = 1;
        if (c->nreg < c->hdr_regions) {
            /* the region lines are short; this line itself is still read */
            sl_mf_report(c, line,
                   "value line before all region lines were read: expected region line %zu "
                   "of the %llu the header announces",
                   c->nreg, (unsigned long long)c->hdr_regions);
            if (c->strict)
                return -EINVAL;
        }
    }
    const char *end = l + n, *p = skip_blanks(l, end);
    static const char *const field[] = {"region id", "group id", "cpu", "count", "time",
                                        "nevents"};
    uint64_t rid = 0, group = 0, ucount = 0, nevents = 0, ucpu = 0;
    int64_t cpu = 0;
    double time = 0.0;
    int rc;
    for (int i = 0; i < 6; i++) {
        if (p == end)
            return SKIP(c, line, "short value line, %d of 6 leading fields: expected %s", i,
                        MF_VALUE_FORM);
        switch (i) {
        case 0: rc = scan_uint(&p, end, INT64_MAX, &rid); break;
        case 1: rc = scan_uint(&p, end, INT64_MAX, &group); break;
        case 2:
            if (*p == '-') { /* only -1 */
                p++;
                rc = scan_uint(&p, end, 1, &ucpu);
                cpu = -(int64_t)ucpu;
            } else {
                rc = scan_uint(&p, end, INT64_MAX, &ucpu);
                cpu = (int64_t)ucpu;
            }
            break;
        case 3:
            if (*p == '-')
                return SKIP(c, line, "negative count (field 4): expected a non-negative integer");
            rc = scan_uint(&p, end, INT64_MAX, &ucount);
            break;
        case 4:
            rc = scan_e7(&p, end, &time) ? 0 : sl_mf_scan_double(&p, end, &c->sc, &time);
            if (rc == -ENOMEM)
                return rc;
            if (rc < 0)
                return SKIP(c, line, "bad time (field 5): expected seconds like 1.234567e-01");
            break;
        default: rc = scan_uint(&p, end, INT64_MAX, &nevents); break;
        }
        if (rc < 0)
            return SKIP(c, line, "bad %s (field %d): expected %s", field[i], i + 1,
                        i == 2   ? "an integer >= -1"
                        : i == 3 ? "an integer from 0 to 9223372036854775807"
                                 : "a non-negative integer");
        p = skip_blanks(p, end);
    }

    /* values go to the line's scratch array first; only a kept line copies
     * them to its region. The line cannot hold more than (its length + 1) / 2
     * of them. */
    size_t room = (size_t)(end - p) / 2 + 1;
    if (SL_VEC_RESERVE(c->vals, c->capvals, 0, nevents < room ? (size_t)nevents : room) < 0)
        return -ENOMEM;
    for (uint64_t e = 0; e < nevents; e++) {
        if (p == end)
            return SKIP(c, line, "short value line, %llu of %llu values: expected %llu values",
                        (unsigned long long)e, (unsigned long long)nevents,
                        (unsigned long long)nevents);
        if (scan_e7(&p, end, &c->vals[e])) {
            while (p < end && is_blank(*p))
                p++;
            continue;
        }
        rc = sl_mf_scan_double(&p, end, &c->sc, &c->vals[e]);
        if (rc == -ENOMEM)
            return rc;
        if (rc < 0)
            return SKIP(c, line, "bad value %llu: expected a number, nan or inf",
                        (unsigned long long)e + 1);
        p = skip_blanks(p, end);
    }
    if (p != end)
        return SKIP(c, line, "extra tokens after the values: expected exactly %llu values (nevents)",
                    (unsigned long long)nevents);

    if (rid >= c->nreg) {
        return SKIP(c, line, "value line for unknown region id %llu: expected an id below %zu",
                    (unsigned long long)rid, c->nreg);
    }
    mf_region *r = &c->reg[rid];
    if (r->bad) {
        if (!r->bad_reported) {
            r->bad_reported = 1;
            sl_mf_report(c, line,
                   "value lines of region %llu skipped: expected a valid region line (line %zu)",
                   (unsigned long long)rid, r->line);
        }
        return 1; /* strict mode stopped at the region line already */
    }
    if ((int64_t)group != r->group) {
        return SKIP(c, line, "group id %llu differs from region %llu's: expected %lld",
                    (unsigned long long)group, (unsigned long long)rid, (long long)r->group);
    }
    if (r->has_nevents && r->nevents != nevents) {
        return SKIP(c, line, "nevents %llu differs from line %zu of the same region: expected %zu",
                    (unsigned long long)nevents, r->nevents_line, r->nevents);
    }
    /* 5.2-5.4: cpu -1 for CPUs that never ran the region; 5.5.0/5.5.1: cpu 0
     * with nothing at all for threads without data. A real CPU-0 line counts. */
    /* 5.5: -EINVAL for every event of a thread whose values its Close lost
     * (it numbers a region's threads past the count it keeps): no counts. */
    int lost = nevents > 0 && all_equal(c->vals, (size_t)nevents, SL_MF_LIKWID_EINVAL);
    int placeholder = !lost && (cpu == -1 || (cpu == 0 && ucount == 0 && time == 0.0 &&
                                              (nevents == 0 ||
                                               all_equal(c->vals, (size_t)nevents, 0.0))));
    if (!r->has_nevents) {
        r->has_nevents = 1;
        r->nevents = (size_t)nevents;
        r->nevents_line = line;
    }
    if (placeholder || lost) {
        if (placeholder)
            c->info->placeholder_lines++;
        else
            c->info->lost_lines++;
        return 0;
    }
    /* 5.5 labels a line by the CPU its thread last ran on: two threads that
     * shared a CPU give two lines with the same cpu, both kept. */
    return sl_mf_add_row(r, cpu, (int64_t)ucount, time, line, c->vals);
}

/* A region line starts with digits and a ':' (after optional blanks). Only
 * that: a ':' elsewhere does not make one. */
static int is_region_line(const char *l, size_t n)
{
    size_t i = 0;
    while (i < n && is_blank(l[i]))
        i++;
    size_t d = i;
    while (i < n && is_digit(l[i]))
        i++;
    return i > d && i < n && l[i] == ':';
}

/* Starts with two unsigned integers, as a value line does. */
static int looks_like_value(const char *l, size_t n)
{
    const char *p = l, *end = l + n, *t;
    size_t k;
    uint64_t v;
    for (int i = 0; i < 2; i++)
        if (!next_token(&p, end, &t, &k) || sl_mf_parse_uint(t, k, INT64_MAX, &v) < 0)
            return 0;
    return 1;
}

/* Any line after the header: region or value line, or a defect. */
int sl_mf_parse_line(mf_ctx *c, const char *l, size_t n, size_t line, int cut)
{
    /* where a region line is due, a broken line that is no value line takes
     * the region's slot, so later region ids keep their places */
    int region_due = !c->regions_closed && c->nreg < c->hdr_regions;
    int nul = memchr(l, '\0', n) != NULL;
    if ((cut || nul) && region_due && !looks_like_value(l, n) && !sl_mf_add_slot(c, line))
        return -ENOMEM;
    if (cut)
        return SKIP(c, line, "line cut off at the end of the file: expected it to end in a newline");
    if (nul)
        return SKIP(c, line, "NUL byte in the line: expected text");
    size_t i = 0;
    while (i < n && is_blank(l[i]))
        i++;
    if (i == n)
        return SKIP(c, line, "empty line: expected a region or value line");
    if (is_region_line(l, n))
        return parse_region(c, l, n, line);
    if (region_due && !looks_like_value(l, n)) {
        if (!sl_mf_add_slot(c, line))
            return -ENOMEM;
        return SKIP(c, line, "region line without '<id>:': expected %s", MF_REGION_FORM);
    }
    return parse_value(c, l, n, line);
}
