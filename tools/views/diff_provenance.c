/* Where BASE and NEW come from (diff.h, sl_diff_provenance): a comparison
 * of runs on other hosts or of other executables measures the difference
 * between those too, so diff says so, one line per field that differs. */
#include "diff.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "field_names.h"
#include "why.h"

/* A field's text for one run: "" when unknown (not compared). */
#define SL_PROV_BUF 64

/* One row per provenance field diff compares: the field (its name
 * SL_H5N_<id>) and the expression of `const sl_run *r` that gives its
 * text, "" or NULL when unknown. A number is put into `char
 * buf[SL_PROV_BUF]` first, e.g.
 *   X(tsc_hz, r->tsc_hz > 0 ? (snprintf(buf, SL_PROV_BUF, "%lld",
 *                                       (long long)r->tsc_hz), buf) : "") */
#define SL_DIFF_PROVENANCE(X)            \
    X(hostname, r->hostname)             \
    X(cpu_model, r->cpu_model)           \
    X(kernel_release, r->kernel_release) \
    X(clock_source, r->clock_source)     \
    X(executable, r->executable)

#define X(id, expr)                                                   \
    static const char *prov_##id(const sl_run *r, char buf[SL_PROV_BUF]) \
    {                                                                 \
        (void)buf;                                                    \
        return expr;                                                  \
    }
SL_DIFF_PROVENANCE(X)
#undef X

static const struct prov_row {
    const char *field;
    const char *(*text)(const sl_run *r, char buf[SL_PROV_BUF]);
} prov_rows[] = {
#define X(id, expr) {SL_H5N_##id, prov_##id},
    SL_DIFF_PROVENANCE(X)
#undef X
};

/* One line when some pair of runs differs in the field: the first such
 * pair's values and how many of the pairs that know both differ. */
static int compare_field(const struct prov_row *f, const sl_runset *base, const sl_runset *new_,
                         const size_t *to_new, sl_diff *d)
{
    size_t known = 0, differ = 0, first = SIZE_MAX;
    for (size_t i = 0; i < base->nruns; i++) {
        if (to_new[i] == SIZE_MAX)
            continue;
        char bb[SL_PROV_BUF], nb[SL_PROV_BUF];
        const char *b = f->text(&base->runs[i], bb), *n = f->text(&new_->runs[to_new[i]], nb);
        if (!b || !n || !*b || !*n)
            continue;
        known++;
        if (strcmp(b, n) && differ++ == 0)
            first = i;
    }
    if (!differ)
        return 0;
    char bb[SL_PROV_BUF], nb[SL_PROV_BUF], bc[SL_CLIP_BUF], nc[SL_CLIP_BUF];
    const sl_run *b = &base->runs[first], *n = &new_->runs[to_new[first]];
    return sl_diff_warn(d, "base and new differ in %s: '%s' (base) vs '%s' (new), %zu of %zu "
                           "rank pairs",
                        f->field, sl_clip(bc, f->text(b, bb)), sl_clip(nc, f->text(n, nb)),
                        differ, known);
}

int sl_diff_provenance(const sl_runset *base, const sl_runset *new_, const size_t *to_new,
                       sl_diff *d)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof prov_rows / sizeof prov_rows[0]; i++)
        rc = compare_field(&prov_rows[i], base, new_, to_new, d);
    return rc;
}
