/* The full_api source: the collector helper's answer. */
#include "end.h"
#include "wire.h"

#include <stdlib.h>
#include <string.h>

/* The collector's "note:" lines on stderr (what it left out of a good
 * answer, and why) go into the status. */
static void collector_notes(const char *err, size_t len, sl_why *status)
{
    static const char tag[] = "scope-likwid-collect: note: ";
    for (size_t pos = 0; err && pos < len;) {
        const char *p = err + pos;
        const char *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + 1;
        if (n > sizeof tag - 1 && memcmp(p, tag, sizeof tag - 1) == 0)
            sl_status_add(status, "full_api: %.*s", (int)(n - (sizeof tag - 1)),
                        p + sizeof tag - 1);
    }
}

/* full_api: the collector helper reads the marker file with LIKWID's own
 * reader in a separate process (so LIKWID's perfmon never loads into the
 * application) and answers in the wire format. */
int sl_source_collector(const sl_sources_in *in, sl_likwid *lw, sl_why *status)
{
    char *missing;
    char *collector = sl_helper_path(in->collector, "scope-likwid-collect", &missing);
    if (!collector) {
        sl_status_add(status, "full_api failed: collector %s", missing ? missing : "not found");
        free(missing);
        return 0;
    }
    /* the collector reads with the LIKWID the application loaded, and with
     * the clock and access daemon it found: the collector's LIKWID need not
     * look for them again */
    sl_likwid_setup setup;
    sl_real_likwid_setup(in->liblikwid, &setup);
    const char *argv[] = {collector, in->markerfile, in->liblikwid,
                          setup.cycle_hz[0] ? setup.cycle_hz : NULL, setup.cpu_hz,
                          setup.accessd, NULL};
    sl_spawn_result res;
    sl_log_debug("running %s %s %s %s %s", collector, in->markerfile,
                 in->liblikwid ? in->liblikwid : "(no liblikwid found)",
                 setup.cycle_hz[0] ? setup.cycle_hz : "(no clock)",
                 setup.accessd ? setup.accessd : "(no access daemon)");
    sl_helper_run(argv, in->timeout_s, &res);
    sl_log_debug("collector: outcome %d, status %d, signal %d, %zu bytes out, %zu bytes err",
                 (int)res.outcome, res.exit_code, res.signal, res.out_len, res.err_len);
    int ok = 0;
    char *why = NULL;
    if (res.outcome == SL_SPAWN_EXITED && res.exit_code == 0 && !res.truncated) {
        ok = 1;
    } else if (res.outcome == SL_SPAWN_NO_STATUS && !res.truncated) {
        ok = 1;     /* judged by the output alone: its trailer says if it is complete */
    } else if (res.truncated) {
        why = strdup("output larger than 256 MiB");
    } else {
        why = sl_spawn_describe(&res, in->timeout_s);
    }
    if (ok) {
        sl_diag d;
        sl_diag_init(&d);
        int rc = sl_wire_read_likwid(res.out, res.out_len, "collector output", lw, &d);
        if (rc == 0) {
            lw->source = SL_SOURCE_FULL_API;
            sl_log_debug("full_api: %zu regions", lw->nregions);
            collector_notes(res.err, res.err_len, status);
        } else {
            ok = 0;
            char *last = sl_last_line(res.err, res.err_len);
            sl_status_add(status, "full_api failed: garbage output: %s%s%s%s",
                        d.kept ? d.lines[0] : strerror(-rc), last && *last ? " (stderr: " : "",
                        last && *last ? last : "", last && *last ? ")" : "");
            free(last);
            sl_likwid_free(lw);
            sl_likwid_init(lw);
        }
        sl_diag_free(&d);
    } else {
        sl_status_add(status, "full_api failed: collector %s", why ? why : "failed");
    }
    free(why);
    free(collector);
    free(setup.accessd);
    sl_spawn_result_free(&res);
    return ok;
}
