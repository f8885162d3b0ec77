/* Internal header: not installed. LIKWID's metric formulas (a group file's
 * METRICS lines: "1.0E-06*(PMC0*2.0+PMC1)/time") compiled once into a
 * bounded postfix program and evaluated per thread as likwid-perfctr does
 * (LIKWID's calculator: + - * / % ^, unary minus, parentheses, numbers
 * such as 1.E-06, its functions; every value substituted and every
 * intermediate result rounded to 20 decimals, as LIKWID's text calculator
 * passes them on as "%.20f"; a nan or inf counter counts as 0). Hostile
 * input is bounded: the text, the program, the nesting and the evaluation
 * stack have fixed limits, checked when compiling, so evaluation never
 * allocates or fails. libc (and libm) only. Numbers are read and
 * rounded with strtod and snprintf: the callers (the CLI, the writer
 * helper) never leave the C locale's LC_NUMERIC; the shim does not use it. */
#ifndef SL_FORMULA_H
#define SL_FORMULA_H

#include <stddef.h>
#include <stdint.h>

#define SL_FORMULA_MAX_TEXT 4095    /* LIKWID reads group file lines into 4 KiB */
#define SL_FORMULA_MAX_OPS 1024
#define SL_FORMULA_MAX_STACK 128    /* values on the evaluation stack */
#define SL_FORMULA_MAX_DEPTH 64     /* nested parentheses and calls */
#define SL_FORMULA_MAX_VARS 4096

/* The variables a formula may name besides the counters: X(id, name).
 * time: the region's RDTSC time of the thread; inverseClock: 1 / the TSC
 * clock in Hz; true, false: 1, 0; num_sockets, num_numadomains: the node's. */
#define SL_FORMULA_SPECIALS(X)                                                   \
    X(TIME, "time") X(INVERSE_CLOCK, "inverseClock") X(TRUE, "true")             \
    X(FALSE, "false") X(NUM_SOCKETS, "num_sockets") X(NUM_NUMA, "num_numadomains")
#define SL_FS_ID(id, name) SL_FV_##id,
enum sl_formula_special { SL_FORMULA_SPECIALS(SL_FS_ID) SL_FV_N };
#undef SL_FS_ID
extern const char *const sl_formula_special_names[SL_FV_N];

struct sl_fop;

typedef struct sl_formula {
    size_t nops;
    struct sl_fop *ops;
    uint32_t specials;      /* bit SL_FV_x: the formula uses that variable */
} sl_formula;

/* Compiles text against the variable names: names[0..nnames) (a group's
 * counters), then the specials, whose values sl_formula_eval takes at
 * vars[nnames + SL_FV_x]. 0; -EINVAL with "what is wrong: expected
 * what" in err (errlen bytes, no file or line); -ENOENT when it names
 * something that is neither (err: "X is not in the EVENTSET": LIKWID's own
 * group files have such metrics, which LIKWID fails to compute); -ENOMEM. */
int sl_formula_compile(const char *text, char *const *names, size_t nnames, sl_formula *f,
                       char *err, size_t errlen);
void sl_formula_free(sl_formula *f);

/* The value with vars (nnames counters, then SL_FV_N specials). A division
 * by zero gives nan (LIKWID prints 0 and an error line: no value is the
 * honest answer). Never fails otherwise. */
double sl_formula_eval(const sl_formula *f, const double *vars);

/* Whether f reads variable var (a counter's index, or nnames + SL_FV_x). */
int sl_formula_uses(const sl_formula *f, size_t var);

/* x as LIKWID's calculator passes it on: printed "%.20f", read back (nan
 * and inf unchanged). */
double sl_formula_round(double x);

#endif
