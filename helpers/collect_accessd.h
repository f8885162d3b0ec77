/* Internal header: not installed. LIKWID's look-up of its access daemon in
 * the collector, answered with the application's (collect_accessd.c). */
#ifndef SL_COLLECT_ACCESSD_H
#define SL_COLLECT_ACCESSD_H

/* From now on LIKWID's look-up reads path (NULL or empty: the look-up
 * runs as LIKWID wrote it). path must outlive the collector's LIKWID. */
void sl_accessd_give(char *path);

/* Look-ups answered with the given path so far. */
unsigned long sl_accessd_answered(void);

#endif
