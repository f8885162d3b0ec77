/* Reader of LIKWID's marker result file (spec: marker-file.md), every version
 * from 5.2 on. One pass over the lines: region lines fill a table indexed by
 * region id, value lines append a row (cpu, count, time, values) to their
 * region's own arrays, which grow as lines come; each region is turned into
 * the result model at the end and its arrays freed at once, so the values
 * are never held twice for the whole file. Nothing is allocated from the
 * header's numbers, only from what the lines hold.
 *
 * This file is the assembly: it reads the file, walks its lines and builds
 * the result; markerfile_lines.c parses a line, markerfile_rows.c keeps the
 * rows, markerfile_numbers.c scans the numbers. */
#include "markerfile_i.h"

#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Builds the regions from the rows: threads in value-line order. Each
 * region's own arrays are freed as soon as it is built. */
static int build(mf_ctx *c, sl_likwid *out)
{
    for (size_t i = 0; i < c->nreg; i++) {
        mf_region *r = &c->reg[i];
        if (r->bad)
            continue;
        size_t T = r->nrows, E = r->has_nevents ? r->nevents : 0;
        sl_region *o = sl_likwid_add(out, r->tag, r->tag_len, r->group, "",
                                     SL_SOURCE_MARKER_FILE, T, E, 0, 0);
        if (!o)
            return -ENOMEM;
        for (size_t t = 0; t < T; t++) {
            o->cpus[t] = r->rows[t].cpu;
            o->times[t] = r->rows[t].time;
            o->call_counts[t] = r->rows[t].count;
        }
        for (size_t t = 0; t < T; t++)
            for (size_t e = 0; e < E; e++)
                o->events[e * T + t] = r->vals[t * E + e];
        sl_mf_free_rows(r);
    }
    out->source = SL_SOURCE_MARKER_FILE;
    return 0;
}

static int run(mf_ctx *c, const char *buf, size_t len, sl_likwid *out)
{
    /* the end of the last non-blank byte: blank lines after it are tolerated */
    size_t content_end = len;
    while (content_end > 0 && (is_blank(buf[content_end - 1]) || buf[content_end - 1] == '\n' ||
                               buf[content_end - 1] == '\r'))
        content_end--;
    if (content_end == 0) {
        sl_mf_report(c, 1, "empty file: expected a header line %s", MF_HEADER_FORM);
        return -EINVAL;
    }
    size_t pos = 0, line = 0;
    while (pos < content_end) {
        line++;
        const char *l = buf + pos;
        const char *nl = memchr(l, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - l) : len - pos;
        pos = nl ? pos + n + 1 : len;
        if (nl && n > 0 && l[n - 1] == '\r') /* CRLF */
            n--;
        int rc = line == 1 ? sl_mf_parse_header(c, l, n, !nl)
                           : sl_mf_parse_line(c, l, n, line, !nl);
        if (rc < 0)
            return rc;
        if (rc > 0)
            c->info->skipped_lines++;
    }
    if (!c->regions_closed && c->nreg < c->hdr_regions) {
        sl_mf_report(c, line + 1,
               "file ends after %zu of the %llu region lines the header announces: expected "
               "region line %zu %s",
               c->nreg, (unsigned long long)c->hdr_regions, c->nreg, MF_REGION_FORM);
        if (c->strict)
            return -EINVAL;
    }
    return build(c, out);
}

int sl_markerfile_parse(const char *buf, size_t len, const char *name, int flags,
                        sl_likwid *out, sl_markerfile_info *info, sl_diag *diag)
{
    sl_markerfile_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    if (!buf)
        len = 0;
    mf_ctx c = {.name = name ? name : "(marker file)",
                .strict = (flags & SL_MF_STRICT) != 0,
                .diag = diag,
                .info = info};
    int rc = run(&c, buf ? buf : "", len, out);
    for (size_t i = 0; i < c.nreg; i++)
        sl_mf_free_rows(&c.reg[i]);
    free(c.reg);
    free(c.vals);
    free(c.sc.p);
    return rc;
}

int sl_markerfile_read(const char *path, int flags, sl_likwid *out, sl_markerfile_info *info,
                       sl_diag *diag)
{
    char *buf;
    size_t len;
    int rc = sl_read_file(path, 0, &buf, &len);
    if (rc < 0) {
        if (info)
            memset(info, 0, sizeof *info);
        char ebuf[128];
        if (diag)
            sl_diag_add(diag, path, 0, "cannot read: %s: expected a readable marker file",
                        strerror_r(-rc, ebuf, sizeof ebuf));
        return rc;
    }
    rc = sl_markerfile_parse(buf, len, path, flags, out, info, diag);
    free(buf);
    return rc;
}
