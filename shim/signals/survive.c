/* The journal and the signal handlers, begun at Init (signals.h). */
#include "signals.h"

#include <errno.h>
#include <string.h>

void sl_survive_begin(const char *output, pid_t pid, pid_t parent_pid, int mpi, int64_t rank,
                      int64_t origin_unix_ns, int tsc, const char *writer, double timeout_s)
{
    if (!sl_env_bool("SCOPE_LIKWID_JOURNAL", 1))
        return;
    sl_journal_in in = {.output = output, .pid = pid, .parent_pid = parent_pid, .mpi = mpi,
                        .rank = rank,
                        .origin_unix_ns = origin_unix_ns, .tsc = tsc,
                        .prov = &sl_g.prov, .run_id = sl_g.run_id};
    int rc = sl_journal_begin(&in);
    if (rc != 0) {
        sl_log_warn("no journal (%s): the timing survives only a normal end of the process",
                    strerror(-rc));
        return;
    }
    sl_journal_note_meta(mpi);
    sl_log_debug("journal %s", sl_journal_path());
    sl_sigwrite_prepare(sl_journal_path(), output, writer, timeout_s);
    sl_signals_install(pid, timeout_s);
}

void sl_survive_renew(const char *output, pid_t pid, int64_t cycle, int64_t origin_unix_ns,
                      const char *writer, double timeout_s)
{
    int64_t tables = 0, entries = 0;
    sl_rt_count_outside(sl_journal_holds, &tables, &entries);
    sl_journal_in in = {.output = output, .pid = pid, .origin_unix_ns = origin_unix_ns};
    int rc = sl_journal_renew(&in, cycle, tables, entries);
    if (rc == -ENOENT)
        return;
    if (rc != 0) {
        sl_log_warn("no journal for Init..Close cycle %lld (%s): its timing survives only a "
                    "normal end of the process", (long long)cycle, strerror(-rc));
        return;
    }
    sl_log_debug("journal %s (cycle %lld)", sl_journal_path(), (long long)cycle);
    sl_sigwrite_prepare(sl_journal_path(), output, writer, timeout_s);
    sl_signals_install(pid, timeout_s);
}

void sl_survive_end(void)
{
    sl_signals_journal_done();
    sl_journal_end();
}
