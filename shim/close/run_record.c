/* What the result file says about the process (see deliver.h). */
#include "deliver.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "region_table.h"
#include "run_meta.h"

extern char **environ;

/* Calls fn(ctx, name, value) for every environment variable whose name
 * starts with prefix (names of 256 bytes or more are passed over). */
void sl_each_env(const char *prefix, void (*fn)(void *ctx, const char *name, const char *value),
                 void *ctx)
{
    size_t plen = strlen(prefix);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, prefix, plen) != 0)
            continue;
        char name[256];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name)
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        fn(ctx, name, eq + 1);
    }
}

static void add_env(void *run, const char *name, const char *value)
{
    sl_run_add_env(run, name, value);
}

static char *read_text(const char *path, int nul_to_blank)
{
    char *buf;
    size_t len;
    if (sl_read_file(path, 1 << 20, &buf, &len) != 0)
        return strdup("");
    while (len > 0 && buf[len - 1] == '\0')
        len--;
    buf[len] = '\0';
    if (nul_to_blank)
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
    return buf;
}

void sl_run_record_fill(sl_run *run, const sl_deliver_in *in, sl_likwid *lw,
                        const char *status)
{
    run->rank = in->rank;
    run->mpi_rank = in->mpi ? in->rank : -1;
    run->pid = in->pid;
    run->parent_pid = in->parent_pid;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0)
        sl_set_string(&run->hostname, host);
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe)
        sl_set_string(&run->executable, exe);
    free(exe);
    char *cmd = read_text("/proc/self/cmdline", 1);
    if (cmd)
        sl_set_string(&run->command_line, cmd);
    free(cmd);
    sl_each_env("LIKWID_", add_env, run);
    sl_set_string(&run->timing.clock, "CLOCK_MONOTONIC");
    run->timing.origin_unix_ns = in->origin_unix_ns;
    if (sl_rt_collect(&run->timing) != 0)
        sl_log_warn("out of memory while collecting the region timing: some regions are missing");
    sl_run_meta_fill(run);  /* /metadata: needs mpi_rank and the timing above */
    /* The counters move into the run. */
    sl_likwid_free(&run->likwid);
    run->likwid = *lw;
    sl_likwid_init(lw);
    sl_set_string(&run->likwid_status, status);
}
