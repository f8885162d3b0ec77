/* Simulated LIKWID: its configuration, as a build for the access daemon
 * has it. LIKWID's init_configuration (called by perfmon_init, so by
 * likwid_markerInit too) asks a shell for the daemon with the very command
 * below and keeps its answer as daemonPath, which get_configuration()
 * returns. The simulation does so when SIMLIKWID_ACCESSD_LOOKUP=1 (it
 * costs a shell per process: the other tests leave it out), and appends
 * "PID DAEMONPATH" to SIMLIKWID_CONFIG_LOG when set. */
#include "sim_groups.h"

#include <likwid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Likwid_Configuration config;
static int configured;

int init_configuration(void)
{
    if (configured)
        return 0;
    configured = 1;
    const char *lookup = getenv("SIMLIKWID_ACCESSD_LOOKUP");
    if (!lookup || strcmp(lookup, "1") != 0)
        return 0;
    FILE *fp = popen("bash --noprofile -c \"which likwid-accessD 2>/dev/null | tr -d '\n'\"", "r");
    char *line = NULL;
    size_t cap = 0;
    if (fp && getline(&line, &cap, fp) > 0 && access(line, X_OK) == 0)
        config.daemonPath = line;
    else
        free(line);
    if (fp)
        pclose(fp);
    const char *log = getenv("SIMLIKWID_CONFIG_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%ld %s\n", (long)getpid(), config.daemonPath ? config.daemonPath : "-");
        fclose(f);
    }
    return 0;
}

Configuration_t get_configuration(void)
{
    return configured ? &config : NULL;
}
