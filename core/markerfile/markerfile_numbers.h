/* Internal to the marker-file reader (core/markerfile*.c): not part of
 * core's interface. The number scanner: tokens as LIKWID's printf wrote
 * them, read without the locale. The per-value fast paths are inline here
 * because the line parser calls them once per number of a file that may
 * hold hundreds of millions (bench/README.md). */
#ifndef SL_MARKERFILE_NUMBERS_H
#define SL_MARKERFILE_NUMBERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Scratch space for strtod_l, which needs a NUL-terminated copy. */
typedef struct scratch {
    char *p;
    size_t cap;
} scratch;

/* Exact powers of ten: every one up to 1e22 is a double without rounding. */
extern const double sl_mf_pow10_exact[23];

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A token ends at a blank or at the end of the line. */
static inline int token_ends(const char *p, const char *end)
{
    return p == end || is_blank(*p);
}

static inline const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

/* Exactly n bytes of decimal digits, value <= max. 0 or -1. */
int sl_mf_parse_uint(const char *s, size_t n, uint64_t max, uint64_t *out);

/* One number as printf writes it, at *pp up to the token's end:
 * [+-]digits[.digits][e[+-]digits], or nan, inf, infinity (any case, with
 * sign). Hex floats are not accepted. Advances *pp. 0, -1 (not a number) or
 * -ENOMEM. One pass; strtod_l only for what the fast path cannot round. */
int sl_mf_scan_double(const char **pp, const char *end, scratch *sc, double *out);

/* Decimal digits at *pp up to the token's end, value <= max; advances *pp.
 * 0 or -1. */
static inline int scan_uint(const char **pp, const char *end, uint64_t max, uint64_t *out)
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
    v = k < 0 ? v / sl_mf_pow10_exact[-k] : v * sl_mf_pow10_exact[k];
    *out = neg ? -v : v;
    *pp = s + 12;
    return 1;
}

#endif
