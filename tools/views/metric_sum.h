/* Internal header: not installed. */
#ifndef SL_METRIC_SUM_H
#define SL_METRIC_SUM_H

/* Whether a LIKWID metric may be summed over HWThreads, from the unit in
 * its name's last [...]: rates ("/s"), energy [J], power [W] and data
 * volumes ([GBytes], [MBytes], ...) sum; times [s], clocks, cycles, ratios,
 * percentages, temperatures and names without a unit (CPI, ratios) do not. */
int sl_metric_summable(const char *name);

#endif
