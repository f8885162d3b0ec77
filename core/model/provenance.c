/* Where a process ran (provenance.h). */
#include "provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* The first bytes of a file, NUL-terminated ("" when unreadable). */
static void read_head(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
}

/* The value of the first "model name : VALUE" line of /proc/cpuinfo: it
 * comes within the first processor's first lines. */
static void cpu_model(char *out, size_t size)
{
    char buf[2048];
    read_head("/proc/cpuinfo", buf, sizeof buf);
    out[0] = '\0';
    for (char *l = buf; l && *l;) {
        char *e = strchr(l, '\n');
        if (e)
            *e = '\0';
        if (!strncmp(l, "model name", 10)) {
            char *v = strchr(l, ':');
            if (v) {
                v += 1 + (v[1] == ' ');
                snprintf(out, size, "%s", v);
            }
            return;
        }
        l = e ? e + 1 : NULL;
    }
}

/* CPUID 0x15: TSC = crystal * EBX / EAX, the crystal's Hz in ECX (0 where
 * the CPU does not say, as most virtual machines). */
static int64_t tsc_hz(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 0x15 || !__get_cpuid(0x15, &a, &b, &c, &d) || !a || !b || !c)
        return 0;
    return (int64_t)c * b / a;
#else
    return 0;
#endif
}

void sl_provenance_read(sl_provenance *p)
{
    memset(p, 0, sizeof *p);
    cpu_model(p->cpu_model, sizeof p->cpu_model);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(p->kernel_release, sizeof p->kernel_release, "%s", u.release);
    read_head("/sys/devices/system/clocksource/clocksource0/current_clocksource",
              p->clock_source, sizeof p->clock_source);
    p->clock_source[strcspn(p->clock_source, "\n")] = '\0';
    p->tsc_hz = tsc_hz();
}

int sl_provenance_set(sl_run *run, const sl_provenance *p)
{
    char *v[] = {strdup(p->cpu_model), strdup(p->kernel_release), strdup(p->clock_source)};
    if (!v[0] || !v[1] || !v[2]) {
        for (int i = 0; i < 3; i++)
            free(v[i]);
        return -ENOMEM;
    }
    free(run->cpu_model);
    free(run->kernel_release);
    free(run->clock_source);
    run->cpu_model = v[0];
    run->kernel_release = v[1];
    run->clock_source = v[2];
    run->tsc_hz = p->tsc_hz;
    return 0;
}

/* The batch systems' job id variables, and the run id's name for each. */
#define SL_JOB_VARS(X)                                                                   \
    X("SLURM_JOB_ID", "slurm")                                                           \
    X("PBS_JOBID", "pbs")                                                                \
    X("LSB_JOBID", "lsf")                                                                \
    X("FLUX_JOB_ID", "flux")                                                             \
    X("JOB_ID", "sge")

typedef struct job_var {
    const char *var, *system;
} job_var;

#define SL_JOB_ROW(var, system) {var, system},
static const job_var job_vars[] = {SL_JOB_VARS(SL_JOB_ROW)};
#undef SL_JOB_ROW

/* The first job variable that is set, or NULL. */
static const job_var *job_var_set(void)
{
    for (size_t i = 0; i < sizeof job_vars / sizeof job_vars[0]; i++) {
        const char *v = getenv(job_vars[i].var);
        if (v && *v)
            return &job_vars[i];
    }
    return NULL;
}

const char *sl_job_from_env(void)
{
    const job_var *j = job_var_set();
    return j ? getenv(j->var) : NULL;
}

char *sl_run_id_from_env(const char *host, int64_t pid, int64_t start_unix_ns, int mpi)
{
    const job_var *j = job_var_set();
    /* Slurm's steps are launches of one job (each srun); other systems
     * have none: the launcher's namespace tells their launches apart */
    const char *step = j && !strcmp(j->system, "slurm") ? getenv("SLURM_STEP_ID") : NULL;
    const char *ns = getenv("PMIX_NAMESPACE");
    if (!ns || !*ns)
        ns = getenv("OMPI_MCA_ess_base_jobid");
    int has_step = step && *step, has_ns = ns && *ns;
    char self[320];
    snprintf(self, sizeof self, "%s:%lld:%lld", host && *host ? host : "unknownhost",
             (long long)pid, (long long)start_unix_ns);
    /* A process that is not an MPI rank is a launch of its own (two serial
     * runs in one batch script, or in one step, are two launches). */
    int own = !mpi;
    char *id = NULL;
    int n;
    if (j || has_ns)
        n = asprintf(&id, "%s%s%s%s%s%s%s%s%s", j ? j->system : "", j ? "-" : "",
                     j ? getenv(j->var) : "", has_step ? "." : "", has_step ? step : "",
                     j && has_ns ? "/" : "", has_ns ? ns : "", own ? "/" : "", own ? self : "");
    else
        n = asprintf(&id, "%s", self);
    return n < 0 ? NULL : id;
}
