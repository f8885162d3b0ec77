/* Reader of LIKWID's marker result file (spec: marker-file.md), every version
 * from 5.2 on. One pass over the lines: region lines fill a table indexed by
 * region id, value lines append a row (cpu, count, time, values) to their
 * region's own arrays, which grow as lines come; each region is turned into
 * the result model at the end and its arrays freed at once, so the values
 * are never held twice for the whole file. Nothing is allocated from the
 * header's numbers, only from what the lines hold. */
#include "markerfile.h"

#include "fileio.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- numbers */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Exactly n bytes of decimal digits, value <= max. 0 or -1. */
static int parse_uint(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (n == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (d > max || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* The C locale for strtod_l, made once: the shim runs inside applications
 * that may have switched LC_NUMERIC. Never freed (one per process). */
static locale_t c_locale(void)
{
    static _Atomic(locale_t) cached;
    locale_t l = atomic_load_explicit(&cached, memory_order_acquire);
    if (l)
        return l;
    locale_t fresh = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!fresh)
        return (locale_t)0;
    locale_t expected = (locale_t)0;
    if (atomic_compare_exchange_strong_explicit(&cached, &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire))
        return fresh;
    freelocale(fresh);
    return expected;
}

static int word_is(const char *s, size_t n, const char *w)
{
    size_t wn = strlen(w);
    if (n != wn)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return 0;
    }
    return 1;
}

/* Scratch space for strtod_l, which needs a NUL-terminated copy. */
typedef struct scratch {
    char *p;
    size_t cap;
} scratch;

/* A token ends at a blank or at the end of the line. */
static int token_ends(const char *p, const char *end)
{
    return p == end || is_blank(*p);
}

/* Decimal digits at *pp up to the token's end, value <= max; advances *pp.
 * 0 or -1. */
static int scan_uint(const char **pp, const char *end, uint64_t max, uint64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    for (; p < end && is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > max || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (p == *pp || !token_ends(p, end))
        return -1;
    *pp = p;
    *out = v;
    return 0;
}

/* Exact powers of ten: every one up to 1e22 is a double without rounding. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* One number as printf writes it, at *pp up to the token's end:
 * [+-]digits[.digits][e[+-]digits], or nan, inf, infinity (any case, with
 * sign). Hex floats are not accepted. Advances *pp. 0, -1 (not a number) or
 * -ENOMEM. One pass; strtod_l only for what the fast path cannot round. */
static int scan_double(const char **pp, const char *end, scratch *sc, double *out)
{
    const char *s = *pp, *p = s;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    /* up to 19 significant digits in m (leading zeros do not count) */
    uint64_t m = 0;
    int sig = 0, exact = 1;
    long exp10 = 0;
    const char *d0 = p;
    for (; p < end && is_digit(*p); p++) {
        if (sig < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            sig += m != 0;
        } else {
            exact = 0;
        }
    }
    size_t ndigits = (size_t)(p - d0);
    if (p < end && *p == '.') {
        const char *f0 = ++p;
        for (; p < end && is_digit(*p); p++) {
            if (sig < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                sig += m != 0;
                exp10--;
            } else {
                exact = 0;
            }
        }
        ndigits += (size_t)(p - f0);
    }
    if (ndigits == 0) {
        const char *w = p;
        while (p < end && !is_blank(*p))
            p++;
        size_t n = (size_t)(p - w);
        if (!word_is(w, n, "nan") && !word_is(w, n, "inf") && !word_is(w, n, "infinity"))
            return -1;
        double v = (*w == 'n' || *w == 'N') ? (double)NAN : (double)INFINITY;
        *out = neg ? -v : v;
        *pp = p;
        return 0;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == end || !is_digit(*p))
            return -1;
        long e = 0;
        for (; p < end && is_digit(*p); p++)
            if (e < 100000) /* saturate: far beyond any double's range */
                e = e * 10 + (*p - '0');
        exp10 += eneg ? -e : e;
    }
    if (!token_ends(p, end))
        return -1;
    *pp = p;
    /* exact m and exact 10^k: one correctly rounded operation (Clinger) */
    if (exact && m == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (exact && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)m;
        v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
        *out = neg ? -v : v;
        return 0;
    }
    locale_t loc = c_locale();
    if (!loc)
        return -ENOMEM;
    size_t n = (size_t)(p - s);
    if (n + 1 > sc->cap) {
        char *g = realloc(sc->p, n + 1);
        if (!g)
            return -ENOMEM;
        sc->p = g;
        sc->cap = n + 1;
    }
    memcpy(sc->p, s, n);
    sc->p[n] = '\0';
    char *stop;
    *out = strtod_l(sc->p, &stop, loc); /* ERANGE gives inf or a denormal: kept */
    return stop == sc->p + n ? 0 : -1;
}

/* 8 bytes as a little-endian word, whatever the host's alignment rules. */
static inline uint64_t load8(const char *s)
{
    uint64_t v;
    memcpy(&v, s, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* All 8 bytes of v are '0'..'9' (a SWAR test: no branch per byte). */
static inline int eight_digits(uint64_t v)
{
    return ((v & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
            (((v + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) ==
           UINT64_C(0x3333333333333333);
}

/* The value of 8 decimal digits, first byte most significant: pairs, then
 * quads, then the whole in three multiplications. */
static inline uint32_t eight_digits_value(uint64_t v)
{
    v = ((v & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561) >> 8;
    v = ((v & UINT64_C(0x00FF00FF00FF00FF)) * 6553601) >> 16;
    return (uint32_t)(((v & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001)) >> 32);
}

/* The form LIKWID prints (printf "%e"): [-]d.dddddde[+-]dd, recognized by
 * position, so most values cost a few dozen instructions. m < 10^7 and
 * |exponent| <= 22 make m * 10^k (or m / 10^k) one correctly rounded
 * operation (Clinger's fast path), the value scan_double would give. 1 and
 * *pp advanced when it applies, else 0 and scan_double takes the token. */
static inline __attribute__((always_inline)) int scan_e7(const char **pp, const char *end,
                                                         double *out)
{
    const char *s = *pp;
    int neg = s < end && *s == '-';
    s += neg;
    if (end - s < 12 || s[1] != '.' || (s[8] | 0x20) != 'e' || (s[9] != '+' && s[9] != '-'))
        return 0;
    /* "d.dddddd" becomes "0ddddddd": the point's byte takes the lead digit */
    uint64_t w = load8(s);
    w = (w & UINT64_C(0xFFFFFFFFFFFF0000)) | (w & 0xFF) << 8 | '0';
    unsigned e1 = (unsigned)((unsigned char)s[10] - '0'), e2 = (unsigned)((unsigned char)s[11] - '0');
    if (!eight_digits(w) || e1 > 9 || e2 > 9 || (end - s > 12 && !is_blank(s[12])))
        return 0;
    int e = (int)(e1 * 10 + e2);
    int k = (s[9] == '-' ? -e : e) - 6;
    if (k < -22 || k > 22)
        return 0;
    double v = (double)eight_digits_value(w);
    v = k < 0 ? v / pow10_exact[-k] : v * pow10_exact[k];
    *out = neg ? -v : v;
    *pp = s + 12;
    return 1;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

/* ---------------------------------------------------------------- state */

typedef struct mf_slot {
    int64_t cpu;
    size_t row1;         /* row index in the region + 1; 0 = empty */
} mf_slot;

typedef struct mf_region {
    const char *tag;     /* points into the input */
    size_t tag_len;
    int64_t group;
    size_t line;         /* of the region line */
    int bad;             /* defective region line: its value lines are skipped */
    int bad_reported;
    int has_nevents;
    size_t nevents;
    size_t nevents_line; /* first line that set nevents */
    size_t nrows, caprows;
    int64_t maxcpu;      /* of its rows so far */
    /* its rows, in value-line order; vals is row-major (nrows x nevents) */
    int64_t *cpus, *counts;
    double *times, *vals;
    size_t *lines;
    struct mf_slot *set; /* cpu -> row, once its rows left cpu order */
    size_t setcap, setn;
} mf_region;

typedef struct mf_ctx {
    const char *name;
    int strict;
    sl_diag *diag;
    sl_markerfile_info *info;
    uint64_t hdr_regions, hdr_groups;
    int regions_closed;  /* a value line was seen: no more region lines */
    mf_region *reg;
    size_t nreg, capreg;
    double *vals;        /* the values of the line being read */
    size_t capvals;
    scratch sc;
} mf_ctx;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            return -ENOMEM;
        c *= 2;
    }
    void *g = realloc(*p, c * elem);
    if (!g)
        return -ENOMEM;
    *p = g;
    *cap = c;
    return 0;
}

static void report(mf_ctx *c, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(mf_ctx *c, size_t line, const char *fmt, ...)
{
    if (!c->diag)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sl_diag_add(c->diag, c->name, line, "%s", msg);
}

/* A defective line: -EINVAL in strict mode, else 1 (the caller skips it). */
#define SKIP(c, line, ...) (report((c), (line), __VA_ARGS__), (c)->strict ? -EINVAL : 1)

/* ---------------------------------------------------------------- duplicates */

/* Rows that come in ascending cpu order (5.2-5.4, and most later files)
 * cannot repeat a cpu: no lookup. Once a region's order breaks, its rows go
 * into a hash set of its own, small and hot in cache while its lines come. */

static size_t hash_cpu(int64_t cpu)
{
    uint64_t h = (uint64_t)cpu;
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return (size_t)h;
}

static void set_put(mf_region *r, int64_t cpu, size_t row)
{
    size_t mask = r->setcap - 1;
    size_t i = hash_cpu(cpu) & mask;
    while (r->set[i].row1)
        i = (i + 1) & mask;
    r->set[i] = (mf_slot){cpu, row + 1};
    r->setn++;
}

/* Room for one more entry, the load kept at most one half. */
static int set_reserve(mf_region *r)
{
    if (r->setn + 1 <= r->setcap / 2)
        return 0;
    size_t cap = r->setcap ? r->setcap * 2 : 16;
    while (r->setn + 1 > cap / 2)
        cap *= 2;
    if (cap > SIZE_MAX / sizeof *r->set)
        return -ENOMEM;
    mf_slot *old = r->set;
    size_t oldcap = r->setcap;
    r->set = calloc(cap, sizeof *r->set);
    if (!r->set) {
        r->set = old;
        return -ENOMEM;
    }
    r->setcap = cap;
    r->setn = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].row1)
            set_put(r, old[i].cpu, old[i].row1 - 1);
    free(old);
    return 0;
}

/* The earlier row of region r on this cpu, or SIZE_MAX. */
static int find_duplicate(mf_ctx *c, mf_region *r, int64_t cpu, size_t *first)
{
    *first = SIZE_MAX;
    if (r->nrows == 0 || (!r->set && cpu > r->maxcpu))
        return 0;
    (void)c;
    if (!r->set) {
        for (size_t i = 0; i < r->nrows; i++)
            if (set_reserve(r) < 0)
                return -ENOMEM;
            else
                set_put(r, r->cpus[i], i);
    }
    size_t mask = r->setcap - 1;
    for (size_t i = hash_cpu(cpu) & mask; r->set[i].row1; i = (i + 1) & mask)
        if (r->set[i].cpu == cpu) {
            *first = r->set[i].row1 - 1;
            break;
        }
    return 0;
}

/* ---------------------------------------------------------------- lines */

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

static const char HEADER_FORM[] = "'<nthreads> <nregions> <ngroups>'";
static const char REGION_FORM[] = "'<id>:<tag>-<group>'";
static const char VALUE_FORM[] =
    "'<region> <group> <cpu> <count> <time> <nevents> <v1> ... <vN>'";

static int parse_header(mf_ctx *c, const char *l, size_t n, int cut)
{
    if (cut) {
        report(c, 1, "header line cut off: expected %s ending in a newline", HEADER_FORM);
        return -EINVAL;
    }
    if (memchr(l, '\0', n)) {
        report(c, 1, "NUL byte in the header line: expected %s", HEADER_FORM);
        return -EINVAL;
    }
    const char *p = l, *end = l + n, *tok;
    size_t tn;
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        if (!next_token(&p, end, &tok, &tn) || parse_uint(tok, tn, INT64_MAX, &v[i]) < 0) {
            report(c, 1, "bad header: expected three non-negative integers %s", HEADER_FORM);
            return -EINVAL;
        }
    }
    if (next_token(&p, end, &tok, &tn)) {
        report(c, 1, "extra text after the header's three numbers: expected %s", HEADER_FORM);
        return -EINVAL;
    }
    c->info->header_threads = (long long)v[0];
    c->info->header_regions = (long long)v[1];
    c->info->header_groups = (long long)v[2];
    c->hdr_regions = v[1];
    c->hdr_groups = v[2];
    return 0;
}

/* A region table slot, defective until its line proves good. */
static mf_region *add_slot(mf_ctx *c, size_t line)
{
    if (grow((void **)&c->reg, &c->capreg, c->nreg + 1, sizeof *c->reg) < 0)
        return NULL;
    mf_region *r = &c->reg[c->nreg++];
    memset(r, 0, sizeof *r);
    r->line = line;
    r->bad = 1;
    return r;
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
    mf_region *r = add_slot(c, line);
    if (!r)
        return -ENOMEM;

    const char *end = l + n, *p = l;
    while (p < end && is_blank(*p))
        p++;
    const char *colon = memchr(p, ':', (size_t)(end - p)); /* present: caller checked */
    uint64_t id;
    if (parse_uint(p, (size_t)(colon - p), INT64_MAX, &id) < 0 || id != c->nreg - 1)
        return SKIP(c, line, "region id out of order: expected id %zu in %s", c->nreg - 1,
                    REGION_FORM);
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
    if (!dash || parse_uint(dash + 1, (size_t)(end - dash - 1), INT64_MAX, &group) < 0)
        return SKIP(c, line, "region line without a '-<group>' suffix: expected %s",
                    REGION_FORM);
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

static int all_zero(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0)
            return 0;
    return 1;
}

/* Room for one more row in r (its nevents is set). */
static int add_row(mf_region *r)
{
    if (r->nrows < r->caprows)
        return 0;
    size_t cap = r->caprows ? r->caprows * 2 : 16;
    if (r->nevents && cap > SIZE_MAX / sizeof(double) / r->nevents)
        return -ENOMEM;
    void *p;
    if (!(p = realloc(r->cpus, cap * sizeof *r->cpus)))
        return -ENOMEM;
    r->cpus = p;
    if (!(p = realloc(r->counts, cap * sizeof *r->counts)))
        return -ENOMEM;
    r->counts = p;
    if (!(p = realloc(r->times, cap * sizeof *r->times)))
        return -ENOMEM;
    r->times = p;
    if (!(p = realloc(r->lines, cap * sizeof *r->lines)))
        return -ENOMEM;
    r->lines = p;
    if (!(p = realloc(r->vals, (r->nevents ? cap * r->nevents : 1) * sizeof *r->vals)))
        return -ENOMEM;
    r->vals = p;
    r->caprows = cap;
    return 0;
}

static void free_rows(mf_region *r)
{
    free(r->cpus);
    free(r->counts);
    free(r->times);
    free(r->lines);
    free(r->vals);
    free(r->set);
    r->cpus = r->counts = NULL;
    r->times = r->vals = NULL;
    r->lines = NULL;
    r->set = NULL;
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
            report(c, line,
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
                        VALUE_FORM);
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
            rc = scan_e7(&p, end, &time) ? 0 : scan_double(&p, end, &c->sc, &time);
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
    if (grow((void **)&c->vals, &c->capvals, nevents < room ? (size_t)nevents : room,
             sizeof *c->vals) < 0)
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
        rc = scan_double(&p, end, &c->sc, &c->vals[e]);
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
            report(c, line,
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
    int placeholder = cpu == -1 || (cpu == 0 && ucount == 0 && time == 0.0 &&
                                    (nevents == 0 || all_zero(c->vals, (size_t)nevents)));
    if (!placeholder) {
        size_t first;
        if (find_duplicate(c, r, cpu, &first) < 0)
            return -ENOMEM;
        if (first != SIZE_MAX) {
                return SKIP(c, line,
                        "second value line for region %llu, cpu %lld (first on line %zu): "
                        "expected one line per cpu",
                        (unsigned long long)rid, (long long)cpu, r->lines[first]);
        }
    }
    if (!r->has_nevents) {
        r->has_nevents = 1;
        r->nevents = (size_t)nevents;
        r->nevents_line = line;
    }
    if (placeholder) {
        c->info->placeholder_lines++;
        return 0;
    }
    if (add_row(r) < 0 || (r->set && set_reserve(r) < 0))
        return -ENOMEM;
    size_t row = r->nrows;
    r->cpus[row] = cpu;
    r->counts[row] = (int64_t)ucount;
    r->times[row] = time;
    r->lines[row] = line;
    if (nevents)
        memcpy(r->vals + row * (size_t)nevents, c->vals, (size_t)nevents * sizeof *c->vals);
    if (r->set)
        set_put(r, cpu, row);
    if (r->nrows == 0 || cpu > r->maxcpu)
        r->maxcpu = cpu;
    r->nrows++;
    return 0;
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
        if (!next_token(&p, end, &t, &k) || parse_uint(t, k, INT64_MAX, &v) < 0)
            return 0;
    return 1;
}

static int parse_line(mf_ctx *c, const char *l, size_t n, size_t line, int cut)
{
    /* where a region line is due, a broken line that is no value line takes
     * the region's slot, so later region ids keep their places */
    int region_due = !c->regions_closed && c->nreg < c->hdr_regions;
    int nul = memchr(l, '\0', n) != NULL;
    if ((cut || nul) && region_due && !looks_like_value(l, n) && !add_slot(c, line))
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
        if (!add_slot(c, line))
            return -ENOMEM;
        return SKIP(c, line, "region line without '<id>:': expected %s", REGION_FORM);
    }
    return parse_value(c, l, n, line);
}

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
        if (T) {
            memcpy(o->cpus, r->cpus, T * sizeof *o->cpus);
            memcpy(o->times, r->times, T * sizeof *o->times);
            memcpy(o->call_counts, r->counts, T * sizeof *o->call_counts);
        }
        for (size_t t = 0; t < T; t++)
            for (size_t e = 0; e < E; e++)
                o->events[e * T + t] = r->vals[t * E + e];
        free_rows(r);
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
        report(c, 1, "empty file: expected a header line %s", HEADER_FORM);
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
        int rc = line == 1 ? parse_header(c, l, n, !nl) : parse_line(c, l, n, line, !nl);
        if (rc < 0)
            return rc;
        if (rc > 0)
            c->info->skipped_lines++;
    }
    if (!c->regions_closed && c->nreg < c->hdr_regions) {
        report(c, line + 1,
               "file ends after %zu of the %llu region lines the header announces: expected "
               "region line %zu %s",
               c->nreg, (unsigned long long)c->hdr_regions, c->nreg, REGION_FORM);
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
        free_rows(&c.reg[i]);
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
