/* Simulated LIKWID: its timer. LIKWID's perfmon_init starts it
 * (timer_init), which measures the CPU clock once per process: rdtsc across
 * two 500 ms sleeps (LIKWID 5.2; 5.3 to 5.5 where CPUID leaf 0x16 is
 * missing). Its metrics use inverseClock = 1 / timer_getCycleClock(). The
 * simulation measures a clock of each process's own, 2 GHz plus (pid mod
 * 1000) kHz, sleeping SIMLIKWID_TIMER_SLEEP_MS ms (default 0), and appends
 * "PID HZ" to the file SIMLIKWID_TIMER_LOG when set. Its getters, before
 * timer_init, print LIKWID's error and return 0, as LIKWID's do.
 * SIMLIKWID_TIMER_DIRECT=init: perfmon_init starts the timer, =clock: the
 * metrics read the clock, without calling the exported functions (a
 * LIKWID whose internal calls do not go through its PLT). */
#include "sim_groups.h"

#include <likwid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int started;
static uint64_t clock_hz;

static void start(void)
{
    if (started)
        return;
    const char *ms = getenv("SIMLIKWID_TIMER_SLEEP_MS");
    long n = ms ? atol(ms) : 0;
    if (n > 0) {
        struct timespec nap = {n / 1000, (n % 1000) * 1000000};
        nanosleep(&nap, NULL);
    }
    clock_hz = 2000000000ULL + (uint64_t)(getpid() % 1000) * 1000;
    const char *log = getenv("SIMLIKWID_TIMER_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%ld %llu\n", (long)getpid(), (unsigned long long)clock_hz);
        fclose(f);
    }
    started = 1;
}

static uint64_t cycle_clock(void)
{
    if (!started) {
        fprintf(stderr, "ERROR - [simlikwid timer] Timer module not properly initialized\n");
        return 0;
    }
    return clock_hz;
}

void timer_init(void)
{
    start();
}

uint64_t timer_getCycleClock(void)
{
    return cycle_clock();
}

uint64_t timer_getCpuClock(void)
{
    return cycle_clock();
}

static int direct(const char *what)
{
    const char *d = getenv("SIMLIKWID_TIMER_DIRECT");
    return d && strcmp(d, what) == 0;
}

void sim_timer_start(void)
{
    if (direct("init"))
        start();
    else
        timer_init();
}

double sim_inverse_clock(void)
{
    sim_timer_start();
    return 1.0 / (double)(direct("clock") ? cycle_clock() : timer_getCycleClock());
}
