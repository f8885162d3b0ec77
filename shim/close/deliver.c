/* Rescue file, then the writer helper (see deliver.h). */
#include "deliver.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "journal_map.h"
#include "region_table.h"
#include "log.h"
#include "rescue.h"

/* Runs the writer; returns the written path (newly allocated) or NULL with
 * the reason in why. */
static char *run_writer(const sl_deliver_in *in, const char *rescue, char *why, size_t why_len)
{
    char *missing;
    char *writer = sl_helper_path(in->writer, "scope-likwid-write", &missing);
    if (!writer) {
        snprintf(why, why_len, "writer %s", missing ? missing : "not found");
        free(missing);
        return NULL;
    }
    const char *argv[] = {writer, rescue, in->output, NULL};
    sl_spawn_result res;
    /* The writer is our own code working on data already saved: its time
     * grows with the data (HDF5's per-object cost), not with LIKWID's
     * hazards. It gets the timeout plus one second per MiB of rescue file,
     * so a large run is written, not left as a rescue file. */
    struct stat rst;
    double timeout_s = in->timeout_s;
    if (stat(rescue, &rst) == 0)
        timeout_s += (double)rst.st_size / (1024.0 * 1024.0);
    sl_log_debug("running %s %s %s (timeout %g s)", writer, rescue, in->output, timeout_s);
    sl_helper_run(argv, timeout_s, &res);
    sl_log_debug("writer: outcome %d, status %d, signal %d", (int)res.outcome, res.exit_code,
                 res.signal);
    char *written = NULL;
    if (res.outcome == SL_SPAWN_EXITED ? res.exit_code == 0
                                       : res.outcome == SL_SPAWN_NO_STATUS) {
        char *last = sl_last_line(res.out, res.out_len);
        struct stat st;
        if (last && *last && stat(last, &st) == 0 && S_ISREG(st.st_mode))
            written = last;
        else {
            char *err = sl_last_line(res.err, res.err_len);
            snprintf(why, why_len, "the writer named no written file%s%s",
                     err && *err ? ": " : "", err && *err ? err : "");
            free(err);
            free(last);
        }
    } else {
        char *d = sl_spawn_describe(&res, timeout_s);
        snprintf(why, why_len, "writer %s", d ? d : "failed");
        free(d);
    }
    sl_spawn_result_free(&res);
    free(writer);
    return written;
}

int sl_deliver(const sl_deliver_in *in, sl_likwid *lw, const char *status)
{
    return sl_deliver_keep(in, lw, status, NULL);
}

int sl_deliver_keep(const sl_deliver_in *in, sl_likwid *lw, const char *status,
                    sl_delivered *out)
{
    sl_run run;
    if (sl_run_init(&run) != 0) {
        sl_log_warn("could not write %s (out of memory): results lost", in->output);
        return -1;
    }
    /* Calls that found no room for their per-call record are counted (and
     * timed) all the same: the status says how many, and of how many
     * threads. */
    size_t nthreads = 0;
    int64_t ncalls = sl_rt_room_dropped(&nthreads);
    char *full = NULL;
    if (ncalls > 0 &&
        asprintf(&full, "%s%s%lld call%s of %zu thread%s kept no per-call record (no room for "
                 "samples: counted in dropped_calls, their times in the totals)", status,
                 status[0] ? "; " : "", (long long)ncalls, ncalls == 1 ? "" : "s", nthreads,
                 nthreads == 1 ? "" : "s") < 0)
        full = NULL;
    if (full)
        status = full;
    sl_run_record_fill(&run, in, lw, status);
    sl_log_debug("likwid_status: %s", status);
    free(full);
    /* The reasons on the heap: Close may run on a thread with a small stack. */
    enum { WHY = 1024, RESCUE_WHY = PATH_MAX + 256 };
    char *why = calloc(1, WHY + RESCUE_WHY), *rescue_why = why ? why + WHY : NULL;
    char *rescue = why ? sl_rescue_write(&run, in->output, in->pid, rescue_why, RESCUE_WHY) : NULL;
    sl_run_free(&run);
    if (!rescue) {
        /* The journal (it stays when nothing else was saved) still holds
         * the timing of this cycle: say so, and how to get it. */
        const char *j = sl_journal_path();
        sl_journal_mark_unsaved();
        if (j[0])
            sl_log_warn("could not write %s: could not save the rescue file (%s); the timing data "
                        "stays in the journal %s: recover it with 'scope-likwid recover %s'",
                        in->output, why ? rescue_why : "out of memory", j, j);
        else
            sl_log_warn("could not write %s: could not save the rescue file (%s): results lost",
                        in->output, why ? rescue_why : "out of memory");
        free(why);
        return -1;
    }
    sl_journal_mark_delivering(rescue);
    char *written = run_writer(in, rescue, why, WHY);
    if (written) {
        unlink(rescue);     /* the writer removed it already; an older writer did not */
        if (!out)
            sl_log_info("wrote %s", written);
    } else {
        sl_log_warn("could not write %s (%s); timing data saved in %s: convert it with "
                    "'scope-likwid convert %s -o %s'", in->output, why, rescue, rescue,
                    in->output);
    }
    if (out) {
        out->written = written;
        out->rescue = written ? NULL : rescue;
        if (written)
            free(rescue);
        free(why);
        return 0;
    }
    free(written);
    free(rescue);
    free(why);
    return 0;
}
