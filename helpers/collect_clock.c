/* LIKWID's timer in the collector. perfmon_init starts LIKWID's timer
 * (timer_init), which measures the CPU clock: rdtsc across two 500 ms
 * sleeps (LIKWID 5.2; 5.3 to 5.5 where CPUID leaf 0x16 is missing, as on
 * every AMD CPU). Of what the collector reads, only metrics use it:
 * inverseClock = 1 / timer_getCycleClock(). The application's LIKWID
 * measured that clock already; the shim passes it. The collector defines
 * LIKWID's public timer_init, timer_getCycleClock and timer_getCpuClock,
 * exported (collect_exports.list), so LIKWID's own calls reach them through
 * its PLT: with a given clock timer_init does nothing and the getters
 * answer it; without one each forwards to LIKWID's own. */
#include "collect_clock.h"

#include <dlfcn.h>
#include <errno.h>
#include <likwid.h>
#include <string.h>

static struct {
    uint64_t cycle_hz, cpu_hz;      /* given; 0: LIKWID's own timer */
    void (*own_init)(void);
    uint64_t (*own_cycle)(void);
    uint64_t (*own_cpu)(void);
    unsigned long inits, reads;
} clk;

static void *own(void *handle, const char *name, int *missing)
{
    void *p = dlsym(handle, name);
    *missing |= !p;
    return p;
}

int sl_clock_bind(void *handle)
{
    int missing = 0;
    void *p = own(handle, "timer_init", &missing);
    memcpy(&clk.own_init, &p, sizeof p);
    p = own(handle, "timer_getCycleClock", &missing);
    memcpy(&clk.own_cycle, &p, sizeof p);
    p = own(handle, "timer_getCpuClock", &missing);
    memcpy(&clk.own_cpu, &p, sizeof p);
    return missing ? -ENOENT : 0;
}

void sl_clock_give(uint64_t cycle_hz, uint64_t cpu_hz)
{
    clk.cycle_hz = cycle_hz;
    clk.cpu_hz = cpu_hz;
}

int sl_clock_given(void)
{
    return clk.cycle_hz != 0;
}

void sl_clock_own(void)
{
    clk.cycle_hz = clk.cpu_hz = 0;
    if (clk.own_init)
        clk.own_init();
}

unsigned long sl_clock_inits(void)
{
    return clk.inits;
}

unsigned long sl_clock_reads(void)
{
    return clk.reads;
}

/* ---- LIKWID's names, exported from the collector ---- */

void timer_init(void)
{
    clk.inits++;
    if (!clk.cycle_hz && clk.own_init)
        clk.own_init();
}

uint64_t timer_getCycleClock(void)
{
    clk.reads++;
    if (clk.cycle_hz)
        return clk.cycle_hz;
    return clk.own_cycle ? clk.own_cycle() : 0;
}

uint64_t timer_getCpuClock(void)
{
    clk.reads++;
    if (clk.cpu_hz)
        return clk.cpu_hz;
    return clk.own_cpu ? clk.own_cpu() : 0;
}
