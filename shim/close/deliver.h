/* Internal header: not installed. The end of every path that yields a result
 * (Close, the exit hook): the run record is filled, saved as a rescue file,
 * and the writer helper turns it into the result file. */
#ifndef SL_SHIM_DELIVER_H
#define SL_SHIM_DELIVER_H

#include <stdint.h>
#include <sys/types.h>

#include "likwid_result.h"
#include "run.h"

/* The process and the destination, fixed at Init; passed in by the caller. */
typedef struct sl_deliver_in {
    const char *output;         /* absolute path of the result file */
    pid_t pid;
    pid_t parent_pid;           /* a forked child's parent, else 0 */
    int mpi;                    /* a rank variable was set */
    int64_t rank;               /* 0 outside MPI */
    int64_t origin_unix_ns;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at Init */
    const char *writer;         /* SCOPE_LIKWID_WRITER, NULL: next to the shim */
    double timeout_s;           /* the writer's base deadline */
} sl_deliver_in;

/* run_record.c: fills run with the process's identity, its LIKWID_*
 * variables, the region timing of every thread (sl_rt_collect), the counters
 * (moved out of lw) and the status text. */
void sl_run_record_fill(sl_run *run, const sl_deliver_in *in, sl_likwid *lw,
                        const char *status);

/* deliver.c: record, rescue file, writer; one "wrote" line or one warning
 * that names what is left (the rescue file and the convert command).
 * 0 when the result or the rescue file exists, -1 when nothing was saved. */
int sl_deliver(const sl_deliver_in *in, sl_likwid *lw, const char *status);

/* The same, for a result that a later one may replace (the exit hook's,
 * exit_hook.c): the "wrote" line is left to the caller, and *out gets the
 * file left behind (newly allocated, the other NULL): the result file, or
 * the rescue file when the writer failed (then the warning was printed). */
typedef struct sl_delivered {
    char *written;
    char *rescue;
} sl_delivered;
int sl_deliver_keep(const sl_deliver_in *in, sl_likwid *lw, const char *status,
                    sl_delivered *out);

#endif
