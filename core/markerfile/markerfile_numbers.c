/* The marker-file reader's number scanner, general path: integers of a
 * given width and every form printf can give a double. The common "%e" form
 * never comes here (scan_e7 in markerfile_numbers.h takes it); what the
 * fast path cannot round exactly goes to strtod_l in the C locale. */
#include "markerfile_numbers.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

const double sl_mf_pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int sl_mf_parse_uint(const char *s, size_t n, uint64_t max, uint64_t *out)
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

/* The general scanner (see markerfile_numbers.h). */
int sl_mf_scan_double(const char **pp, const char *end, scratch *sc, double *out)
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
        v = exp10 < 0 ? v / sl_mf_pow10_exact[-exp10] : v * sl_mf_pow10_exact[exp10];
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
