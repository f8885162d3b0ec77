/* Internal to `scope-likwid run` (cmd_run.c): the report file the shim
 * tells run of each process's result through. */
#ifndef SL_RUN_REPORT_H
#define SL_RUN_REPORT_H

#include <stddef.h>

/* The file the shim reports to (SCOPE_LIKWID_RUN_REPORT: SHIM.md, "run's
 * report"): empty, owner-only, in TMPDIR or /tmp; NULL when none can be
 * made. Each `scope-likwid run` has its own: under mpirun each rank's run
 * hears of its own processes only. */
char *sl_run_report_create(void);

/* Says what the application's processes wrote, from the report: one line
 * per result file ("result in"), per rescue file; the journal of a process
 * that wrote neither (killed, crashed) is recovered, and one without a
 * journal is named. Returns how many processes started timing. */
size_t sl_run_report_results(const char *report, int wait_status);

#endif
