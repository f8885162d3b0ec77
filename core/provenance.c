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
