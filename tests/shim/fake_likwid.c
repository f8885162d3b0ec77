/* A stand-in for LIKWID's C marker API, linked into test_shim_close so that
 * the shim's dlsym(RTLD_NEXT) finds "real" functions. It counts what reaches
 * it, answers GetRegion with made-up values, and at Close copies the file
 * named by FAKE_MARKER_SRC to LIKWID_FILEPATH (as LIKWID writes its file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int fake_inits, fake_starts, fake_stops, fake_gets, fake_resets, fake_closes;
static int counting;
static struct {
    char tag[128];
    int count;
} regs[64];
static int nregs;

static int find(const char *tag)
{
    for (int i = 0; i < nregs; i++)
        if (strcmp(regs[i].tag, tag) == 0)
            return i;
    if (nregs == 64)
        return -1;
    snprintf(regs[nregs].tag, sizeof regs[nregs].tag, "%s", tag);
    return nregs++;
}

EXPORT void likwid_markerInit(void)
{
    fake_inits++;
    counting = getenv("LIKWID_FILEPATH") != NULL;
}

EXPORT void likwid_markerThreadInit(void) {}
EXPORT void likwid_markerNextGroup(void) {}

EXPORT int likwid_markerRegisterRegion(const char *tag)
{
    (void)tag;
    return counting ? 0 : -EFAULT;
}

EXPORT int likwid_markerStartRegion(const char *tag)
{
    (void)tag;
    fake_starts++;
    return counting ? 0 : -EFAULT;
}

EXPORT int likwid_markerStopRegion(const char *tag)
{
    fake_stops++;
    if (!counting)
        return -EFAULT;
    int i = find(tag);
    if (i >= 0)
        regs[i].count++;
    return 0;
}

EXPORT int likwid_markerResetRegion(const char *tag)
{
    (void)tag;
    fake_resets++;
    return counting ? 0 : -EFAULT;
}

EXPORT void likwid_markerGetRegion(const char *tag, int *nr, double *events, double *time,
                                   int *count)
{
    fake_gets++;
    int i = counting ? find(tag) : -1;
    int c = i >= 0 ? regs[i].count : 0;
    *count = c;
    *time = 0.25 * c;
    int n = *nr < 3 ? *nr : 3;
    for (int e = 0; e < n; e++)
        events[e] = (e + 1) * 100.0 * c;
    *nr = counting ? n : 0;
}

EXPORT void likwid_markerClose(void)
{
    fake_closes++;
    const char *src = getenv("FAKE_MARKER_SRC"), *dst = getenv("LIKWID_FILEPATH");
    if (!counting || !src || !dst)
        return;
    FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
    int ch;
    while (in && out && (ch = fgetc(in)) != EOF)
        fputc(ch, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}
