/* Internal header: not installed. LIKWID's timer in the collector, answered
 * with the clock the application's LIKWID measured (collect_clock.c). */
#ifndef SL_COLLECT_CLOCK_H
#define SL_COLLECT_CLOCK_H

#include <stdint.h>

/* LIKWID's own timer functions in the library `handle` (dlopen), which the
 * collector's forward to whenever no clock is given. 0, or -ENOENT when
 * the library lacks one. */
int sl_clock_bind(void *handle);

/* From now on LIKWID's timer_init does nothing and its getters answer
 * these (Hz, both > 0). */
void sl_clock_give(uint64_t cycle_hz, uint64_t cpu_hz);

/* Whether a clock is given (and not dropped since). */
int sl_clock_given(void);

/* Drops the given clock: LIKWID's own timer from now on, started here
 * (LIKWID measures the clock, as it does without a given one). */
void sl_clock_own(void);

/* Calls of LIKWID's timer_init, and of its two getters, that reached the
 * collector's: LIKWID's internal calls of its public functions go through
 * its PLT, which the collector's definitions take over; a library built
 * otherwise calls its own, and these stay 0. */
unsigned long sl_clock_inits(void);
unsigned long sl_clock_reads(void);

#endif
