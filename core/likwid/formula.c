/* LIKWID's metric formulas: a recursive-descent compiler into a postfix
 * program with fixed bounds, and its evaluator (formula.h). */
#include "formula.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SL_FS_NAME(id, name) name,
const char *const sl_formula_special_names[SL_FV_N] = {SL_FORMULA_SPECIALS(SL_FS_NAME)};
#undef SL_FS_NAME

/* LIKWID's calculator functions: X(id, name, arity), arity 0: one or more
 * arguments. */
#define SL_FORMULA_FNS(X)                                                         \
    X(ABS, "abs", 1) X(FLOOR, "floor", 1) X(CEIL, "ceil", 1) X(SQRT, "sqrt", 1)     \
    X(CBRT, "cbrt", 1) X(LOG, "log", 1) X(EXP, "exp", 1) X(SIN, "sin", 1)           \
    X(COS, "cos", 1) X(TAN, "tan", 1) X(ASIN, "asin", 1) X(ACOS, "acos", 1)         \
    X(ATAN, "atan", 1) X(ARCSIN, "arcsin", 1) X(ARCCOS, "arccos", 1)                \
    X(ARCTAN, "arctan", 1) X(MIN, "min", 0) X(MAX, "max", 0) X(SUM, "sum", 0)       \
    X(AVG, "avg", 0) X(MEAN, "mean", 0)
#define SL_FN_ID(id, name, arity) SL_FN_##id,
enum sl_fn { SL_FORMULA_FNS(SL_FN_ID) SL_FN_N };
#undef SL_FN_ID
#define SL_FN_ROW(id, name, arity) {name, arity},
static const struct {
    const char *name;
    int arity;
} fns[SL_FN_N] = {SL_FORMULA_FNS(SL_FN_ROW)};
#undef SL_FN_ROW

enum sl_fop_kind { OP_NUM, OP_VAR, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_NEG, OP_FN };

struct sl_fop {
    enum sl_fop_kind kind;
    uint32_t arg;           /* OP_VAR: variable; OP_FN: function */
    uint32_t nargs;         /* OP_FN */
    double num;             /* OP_NUM */
};

struct compiler {
    const char *s;          /* the text */
    size_t pos;
    char *const *names;
    size_t nnames;
    struct sl_fop *ops;
    size_t nops, cap;
    size_t depth;           /* the stack's size after the ops so far */
    size_t max_depth;
    size_t nesting;
    uint32_t specials;
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct compiler *c, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* Appends an op that pops `pops` values and pushes one. */
static int emit(struct compiler *c, struct sl_fop op, size_t pops)
{
    if (c->nops >= c->cap)
        return fail(c, "more than %d operands and operators: expected a shorter formula",
                    SL_FORMULA_MAX_OPS);
    if (pops > c->depth)
        return fail(c, "internal: stack underflow");
    c->depth = c->depth - pops + 1;
    if (c->depth > SL_FORMULA_MAX_STACK)
        return fail(c, "more than %d pending values: expected a less deeply nested formula",
                    SL_FORMULA_MAX_STACK);
    if (c->depth > c->max_depth)
        c->max_depth = c->depth;
    c->ops[c->nops++] = op;
    return 0;
}

static void skip_blanks(struct compiler *c)
{
    while (c->s[c->pos] == ' ' || c->s[c->pos] == '\t')
        c->pos++;
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int is_ident_start(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
}

static int expr(struct compiler *c);

/* A number: digits, an optional fraction, an optional exponent ("1.E-06"). */
static int number(struct compiler *c)
{
    size_t start = c->pos;
    const char *s = c->s;
    while (is_digit(s[c->pos]))
        c->pos++;
    if (s[c->pos] == '.')
        c->pos++;
    while (is_digit(s[c->pos]))
        c->pos++;
    if (c->pos == start + 1 && s[start] == '.')
        return fail(c, "'.' at column %zu: expected a number", start + 1);
    if (s[c->pos] == 'e' || s[c->pos] == 'E') {
        size_t e = c->pos + 1;
        if (s[e] == '+' || s[e] == '-')
            e++;
        if (!is_digit(s[e]))
            return fail(c, "exponent without digits at column %zu: expected a number such as 1.0E-06",
                        c->pos + 1);
        while (is_digit(s[e]))
            e++;
        c->pos = e;
    }
    char buf[64];
    size_t n = c->pos - start;
    if (n >= sizeof buf)
        return fail(c, "number of %zu characters at column %zu: expected at most %zu", n,
                    start + 1, sizeof buf - 1);
    memcpy(buf, s + start, n);
    buf[n] = '\0';
    return emit(c, (struct sl_fop){.kind = OP_NUM, .num = strtod(buf, NULL)}, 0);
}

/* fn(arg, ...) after the name */
static int call(struct compiler *c, size_t fn, size_t at)
{
    c->pos++; /* ( */
    uint32_t nargs = 0;
    for (;;) {
        int rc = expr(c);
        if (rc)
            return rc;
        nargs++;
        skip_blanks(c);
        if (c->s[c->pos] == ',') {
            c->pos++;
            continue;
        }
        if (c->s[c->pos] != ')')
            return fail(c, "'%s(' at column %zu not closed: expected ',' or ')'", fns[fn].name,
                        at + 1);
        c->pos++;
        break;
    }
    if (fns[fn].arity && nargs != (uint32_t)fns[fn].arity)
        return fail(c, "%s() with %u arguments at column %zu: expected %d", fns[fn].name, nargs,
                    at + 1, fns[fn].arity);
    return emit(c, (struct sl_fop){.kind = OP_FN, .arg = (uint32_t)fn, .nargs = nargs}, nargs);
}

/* The longest counter name at the position that ends where a name may
 * end; counters may hold ':' and '=' ("PMC3:EDGEDETECT",
 * "CBOX0C1:STATE=0x1"), so they are matched as text, as LIKWID
 * substitutes them. Its index, or -1. */
static long counter_at(const struct compiler *c)
{
    long best = -1;
    size_t best_len = 0;
    const char *at = c->s + c->pos;
    for (size_t v = 0; v < c->nnames; v++) {
        size_t n = strlen(c->names[v]);
        if (n <= best_len || strncmp(at, c->names[v], n))
            continue;
        char next = at[n];
        if (is_ident_start(next) || is_digit(next))
            continue;
        best = (long)v;
        best_len = n;
    }
    return best;
}

static int identifier(struct compiler *c)
{
    long counter = counter_at(c);
    if (counter >= 0) {
        c->pos += strlen(c->names[counter]);
        return emit(c, (struct sl_fop){.kind = OP_VAR, .arg = (uint32_t)counter}, 0);
    }
    size_t start = c->pos;
    while (is_ident_start(c->s[c->pos]) || is_digit(c->s[c->pos]))
        c->pos++;
    size_t n = c->pos - start;
    const char *id = c->s + start;
    skip_blanks(c);
    if (c->s[c->pos] == '(') {
        for (size_t f = 0; f < SL_FN_N; f++)
            if (strlen(fns[f].name) == n && !memcmp(fns[f].name, id, n))
                return call(c, f, start);
        return fail(c, "unknown function '%.*s' at column %zu: expected one of LIKWID's "
                       "(abs, floor, ceil, sqrt, cbrt, log, exp, min, max, sum, avg, ...)",
                    (int)(n > 64 ? 64 : n), id, start + 1);
    }
    for (size_t v = 0; v < SL_FV_N; v++)
        if (strlen(sl_formula_special_names[v]) == n && !memcmp(sl_formula_special_names[v], id, n)) {
            c->specials |= 1u << v;
            return emit(c, (struct sl_fop){.kind = OP_VAR, .arg = (uint32_t)(c->nnames + v)}, 0);
        }
    fail(c, "%.*s is not in the EVENTSET", (int)(n > 64 ? 64 : n), id);
    return -ENOENT;
}

/* primary: '-' primary | number | name | fn(...) | '(' expr ')' */
static int primary(struct compiler *c)
{
    skip_blanks(c);
    char ch = c->s[c->pos];
    size_t at = c->pos;
    if (c->nesting >= SL_FORMULA_MAX_DEPTH)
        return fail(c, "nested more than %d deep at column %zu: expected a flatter formula",
                    SL_FORMULA_MAX_DEPTH, at + 1);
    int rc;
    c->nesting++;
    if (ch == '-' || ch == '+') {
        c->pos++;
        rc = primary(c);
        if (!rc && ch == '-')
            rc = emit(c, (struct sl_fop){.kind = OP_NEG}, 1);
    } else if (is_digit(ch) || ch == '.') {
        rc = number(c);
    } else if (is_ident_start(ch)) {
        rc = identifier(c);
    } else if (ch == '(') {
        c->pos++;
        rc = expr(c);
        skip_blanks(c);
        if (!rc && c->s[c->pos] != ')')
            rc = fail(c, "'(' at column %zu not closed: expected ')'", at + 1);
        if (!rc)
            c->pos++;
    } else if (ch == '\0') {
        rc = fail(c, "formula ends at column %zu: expected a number, name or '('", at + 1);
    } else {
        rc = fail(c, "'%c' at column %zu: expected a number, name or '('",
                  (ch >= 0x20 && ch < 0x7f) ? ch : '?', at + 1);
    }
    c->nesting--;
    return rc;
}

/* power: primary ['^' power] (right-associative) */
static int power(struct compiler *c)
{
    int rc = primary(c);
    skip_blanks(c);
    if (rc || c->s[c->pos] != '^')
        return rc;
    c->pos++;
    if (c->nesting >= SL_FORMULA_MAX_DEPTH)
        return fail(c, "nested more than %d deep at column %zu: expected a flatter formula",
                    SL_FORMULA_MAX_DEPTH, c->pos);
    c->nesting++;
    rc = power(c);
    c->nesting--;
    return rc ? rc : emit(c, (struct sl_fop){.kind = OP_POW}, 2);
}

static int term(struct compiler *c)
{
    int rc = power(c);
    for (;;) {
        skip_blanks(c);
        char ch = c->s[c->pos];
        if (rc || (ch != '*' && ch != '/' && ch != '%'))
            return rc;
        c->pos++;
        rc = power(c);
        if (!rc)
            rc = emit(c, (struct sl_fop){.kind = ch == '*' ? OP_MUL : ch == '/' ? OP_DIV : OP_MOD}, 2);
    }
}

static int expr(struct compiler *c)
{
    int rc = term(c);
    for (;;) {
        skip_blanks(c);
        char ch = c->s[c->pos];
        if (rc || (ch != '+' && ch != '-'))
            return rc;
        c->pos++;
        rc = term(c);
        if (!rc)
            rc = emit(c, (struct sl_fop){.kind = ch == '+' ? OP_ADD : OP_SUB}, 2);
    }
}

int sl_formula_compile(const char *text, char *const *names, size_t nnames, sl_formula *f,
                       char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    struct compiler c = {.s = text, .names = names, .nnames = nnames, .err = err, .errlen = errlen};
    size_t len = strnlen(text, SL_FORMULA_MAX_TEXT + 1);
    if (len > SL_FORMULA_MAX_TEXT)
        return fail(&c, "formula longer than %d characters: expected a shorter one",
                    SL_FORMULA_MAX_TEXT);
    if (nnames > SL_FORMULA_MAX_VARS)
        return fail(&c, "%zu counters: expected at most %d", nnames, SL_FORMULA_MAX_VARS);
    /* a formula of len characters has at most len + 1 operands and operators */
    c.cap = len + 1 < SL_FORMULA_MAX_OPS ? len + 1 : SL_FORMULA_MAX_OPS;
    c.ops = calloc(c.cap, sizeof *c.ops);
    if (!c.ops)
        return -ENOMEM;
    int rc = expr(&c);
    skip_blanks(&c);
    if (!rc && c.s[c.pos] != '\0')
        rc = fail(&c, "'%c' at column %zu after a complete formula: expected an operator",
                  (c.s[c.pos] >= 0x20 && c.s[c.pos] < 0x7f) ? c.s[c.pos] : '?', c.pos + 1);
    if (rc) {
        free(c.ops);
        return rc;
    }
    f->ops = c.ops;
    f->nops = c.nops;
    f->specials = c.specials;
    return 0;
}

void sl_formula_free(sl_formula *f)
{
    free(f->ops);
    memset(f, 0, sizeof *f);
}

double sl_formula_round(double x)
{
    if (!isfinite(x))
        return x;
    char buf[400]; /* DBL_MAX as "%.20f": 309 digits, the point, 20 decimals */
    snprintf(buf, sizeof buf, "%.20f", x);
    return strtod(buf, NULL);
}

static double apply_fn(uint32_t fn, const double *a, uint32_t n)
{
    double r = a[0];
    switch (fn) {
    case SL_FN_ABS: return fabs(r);
    case SL_FN_FLOOR: return floor(r);
    case SL_FN_CEIL: return ceil(r);
    case SL_FN_SQRT: return sqrt(r);
    case SL_FN_CBRT: return cbrt(r);
    case SL_FN_LOG: return log(r);
    case SL_FN_EXP: return exp(r);
    case SL_FN_SIN: return sin(r);
    case SL_FN_COS: return cos(r);
    case SL_FN_TAN: return tan(r);
    case SL_FN_ASIN: case SL_FN_ARCSIN: return asin(r);
    case SL_FN_ACOS: case SL_FN_ARCCOS: return acos(r);
    case SL_FN_ATAN: case SL_FN_ARCTAN: return atan(r);
    default: break;
    }
    for (uint32_t i = 1; i < n; i++) {
        if (fn == SL_FN_MIN)
            r = a[i] < r ? a[i] : r;
        else if (fn == SL_FN_MAX)
            r = a[i] > r ? a[i] : r;
        else
            r += a[i];
    }
    return fn == SL_FN_AVG || fn == SL_FN_MEAN ? r / n : r;
}

static double binary(enum sl_fop_kind k, double l, double r)
{
    switch (k) {
    case OP_ADD: return l + r;
    case OP_SUB: return l - r;
    case OP_MUL: return l * r;
    case OP_POW: return pow(l, r);
    case OP_DIV: return r == 0 ? NAN : l / r;
    default: return r == 0 ? NAN : l - trunc(l / r) * r; /* OP_MOD, as LIKWID's (int) cut */
    }
}

int sl_formula_uses(const sl_formula *f, size_t var)
{
    for (size_t i = 0; i < f->nops; i++)
        if (f->ops[i].kind == OP_VAR && f->ops[i].arg == var)
            return 1;
    return 0;
}

double sl_formula_eval(const sl_formula *f, const double *vars)
{
    double st[SL_FORMULA_MAX_STACK];
    size_t n = 0;
    for (size_t i = 0; i < f->nops; i++) {
        const struct sl_fop *op = &f->ops[i];
        double v;
        switch (op->kind) {
        case OP_NUM:
            st[n++] = op->num;
            continue;
        case OP_VAR:
            v = vars[op->arg];
            st[n++] = isfinite(v) ? sl_formula_round(v) : 0;
            continue;
        case OP_NEG:
            st[n - 1] = -st[n - 1];
            continue;
        case OP_FN:
            n -= op->nargs;
            v = apply_fn(op->arg, st + n, op->nargs);
            break;
        default:
            n -= 2;
            v = binary(op->kind, st[n], st[n + 1]);
            break;
        }
        if (isnan(v))
            return NAN;
        st[n++] = sl_formula_round(v);
    }
    return n == 1 ? st[0] : NAN;
}
