/* The clock: the hot path's (TSC or CLOCK_MONOTONIC) and its conversion
 * pairs, a cycle's origin, deadlines that skip stopped time. */
#include "os.h"

#include <stdio.h>
#include <string.h>

/* The hot path's clock (os.h, sl_rt_clock_init): the raw TSC
 * where that is exact, converted to CLOCK_MONOTONIC at collect time. */
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

/* ---- the clock ----
 * Region times are CLOCK_MONOTONIC nanoseconds. On x86-64 clock_gettime
 * costs about two TSC reads or more (vDSO: an ordered TSC read plus
 * scaling), so when the CPU has an invariant TSC (CPUID 0x80000007 EDX bit 8)
 * AND the kernel itself uses the TSC as the clocksource of CLOCK_MONOTONIC
 * (which also means the kernel found the TSCs of all CPUs in sync), the hot
 * path reads the raw TSC instead and stores ticks. They are converted to
 * CLOCK_MONOTONIC ns at collect time by the straight line through two
 * (TSC, CLOCK_MONOTONIC) pairs, one taken at sl_rt_clock_init (Init) and one
 * at sl_rt_collect (Close), each read bracketed between two TSC reads (the
 * narrowest of a few tries, its midpoint). The kernel derives
 * CLOCK_MONOTONIC from the same TSC by a linear map too (NTP only slews its
 * rate by parts per million), so the converted values are on
 * CLOCK_MONOTONIC to within the pairs' reading error (tens of ns here) plus
 * any NTP rate change during the run; durations likewise. The reads are not
 * serialising (rdtsc, not rdtscp/lfence): a few cycles of skew against the
 * application's instructions, far below the cost of the calls themselves.
 * Elsewhere (or SCOPE_LIKWID_TSC=0) clock_gettime is read directly. */
static _Atomic int clk_tsc;             /* set once, release; read acquire */
static int64_t clk_tick0, clk_ns0;      /* published by clk_tsc's release */

#if defined(__x86_64__)
static int invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

static int kernel_clock_is_tsc(void)
{
    char buf[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) != NULL && strcmp(buf, "tsc\n") == 0;
    fclose(f);
    return ok;
}

/* A (tick, ns) pair: the ns read between two TSC reads, the narrowest
 * bracket of a few tries, at its midpoint. */
static void clock_pair(int64_t *tick, int64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __rdtsc();
        int64_t n = sl_clock_ns(CLOCK_MONOTONIC);
        uint64_t b = __rdtsc();
        if (b >= a && b - a < best) {
            best = b - a;
            *tick = (int64_t)(a + (b - a) / 2);
            *ns = n;
        }
    }
}
#endif

int sl_rt_clock_init(int allow_tsc)
{
#if defined(__x86_64__)
    if (allow_tsc && invariant_tsc() && kernel_clock_is_tsc()) {
        clock_pair(&clk_tick0, &clk_ns0);
        atomic_store_explicit(&clk_tsc, 1, memory_order_release);
        return 1;
    }
#else
    (void)allow_tsc;
#endif
    return 0;
}

/* For the unit tests: the TSC path on any x86-64 machine, whatever the
 * kernel's clocksource (the hot path's fast branch is taken only then). */
int sl_rt_clock_force_tsc(void)
{
#if defined(__x86_64__)
    clock_pair(&clk_tick0, &clk_ns0);
    atomic_store_explicit(&clk_tsc, 1, memory_order_release);
    return 1;
#else
    return 0;
#endif
}

int sl_rt_clock_tsc(void)
{
    return atomic_load_explicit(&clk_tsc, memory_order_acquire);
}

sl_tick_line sl_rt_conv_now(void)
{
    sl_tick_line c = {0};
#if defined(__x86_64__)
    if (atomic_load_explicit(&clk_tsc, memory_order_acquire)) {
        int64_t t1 = 0, n1 = 0;
        clock_pair(&t1, &n1);
        c.tick0 = clk_tick0;
        c.ns0 = clk_ns0;
        c.dtick = t1 - c.tick0;
        c.dns = n1 - c.ns0;
        c.on = c.dtick > 0 && c.dns > 0;
        if (!c.on) {    /* no time passed at all: the nominal ratio is unknown */
            c.on = 1;
            c.dtick = c.dns = 1;
        }
    }
#endif
    return c;
}

/* For the journal: Init's pair, and a pair now (0/0 without the TSC). */
void sl_rt_clock_pairs(int64_t *tick0, int64_t *ns0, int64_t *tick1, int64_t *ns1)
{
    *tick0 = *ns0 = *tick1 = *ns1 = 0;
#if defined(__x86_64__)
    if (atomic_load_explicit(&clk_tsc, memory_order_acquire)) {
        *tick0 = clk_tick0;
        *ns0 = clk_ns0;
        clock_pair(tick1, ns1);
    }
#endif
}

/* ---- deadlines that do not count stopped time ---- */

/* Longest wait between two looks at the clock, and the gap above which a
 * step counts as the process having been stopped (SIGSTOP, ^Z, a batch
 * system's suspend) or not run at all: such a step counts as one slice. */
#define SLICE_NS 100000000LL
#define STOPPED_NS 1000000000LL

void sl_deadline_start(sl_deadline *d, double seconds)
{
    d->left_ns = seconds > 0 ? (int64_t)(seconds * 1e9) : 0;
    d->last_ns = sl_clock_ns(CLOCK_MONOTONIC);
}

int sl_deadline_ms(sl_deadline *d)
{
    int64_t now = sl_clock_ns(CLOCK_MONOTONIC);
    int64_t step = now - d->last_ns;
    d->last_ns = now;
    if (step > STOPPED_NS)
        step = SLICE_NS;
    if (step > 0)
        d->left_ns -= step;
    if (d->left_ns <= 0)
        return 0;
    int64_t next = d->left_ns < SLICE_NS ? d->left_ns : SLICE_NS;
    return (int)((next + 999999) / 1000000);
}

int64_t sl_origin_unix_ns(void)
{
    int64_t mono = sl_clock_ns(CLOCK_MONOTONIC);
    return sl_clock_ns(CLOCK_REALTIME) - mono;
}
