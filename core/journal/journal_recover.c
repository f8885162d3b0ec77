/* What recover and the writer's journal mode share (see journal_recover.h). */
#include "journal_recover.h"
#include "fileio.h"
#include "name_fit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

void sl_jrn_set_state(const char *path, int32_t state)
{
    int fd = sl_open_regular(path, O_WRONLY, NULL);
    if (fd < 0)
        return;
    if (pwrite(fd, &state, sizeof state, offsetof(sl_jrn_header, state)) != sizeof state)
        state = 0;
    close(fd);
}

void sl_jrn_drop_batch_file(const sl_jrn_info *info)
{
    if (info->batch_first <= 0)
        return;
    const char *suffix[] = {".batch.rescue", ".batch.tmp"};
    for (int i = 0; i < 2; i++) {
        char *p = sl_name_fit(info->output, "", suffix[i]);   /* as the shim names it */
        if (p)
            unlink(p);
        free(p);
    }
}

sl_jrn_clock sl_jrn_reader_clock(char *boot, size_t cap)
{
    sl_jrn_clock c = {0};
    sl_jrn_boot_id(boot, cap);
    c.boot_id = boot;
#if defined(__x86_64__)
    struct timespec ts;
    uint64_t a = __rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t b = __rdtsc();
    c.tick = (int64_t)(a + (b - a) / 2);
    c.ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
    return c;
}

char *sl_jrn_partial_status(const sl_jrn_info *info, const char *by, const char *why)
{
    char end[256];
    if (why)
        snprintf(end, sizeof end, "the process %s", why);
    else if (info->state == SL_JRN_SIGNALED)
        snprintf(end, sizeof end, "the process was ended by signal %d (%s)", info->signo,
                 strsignal(info->signo));
    else if (info->state == SL_JRN_UNSAVED)
        snprintf(end, sizeof end, "likwid_markerClose or the end of the process could save "
                 "nothing (no rescue file)");
    else
        snprintf(end, sizeof end, "the process ended without likwid_markerClose (SIGKILL, "
                 "a crash or _exit)");
    char outside[400] = "";
    size_t n = 0;
    if (info->outside_threads)
        n = (size_t)snprintf(outside, sizeof outside, "; the journal was full: %lld call%s of %zu "
                             "thread%s kept no per-call record in it (counted, their times "
                             "missing)", (long long)info->outside_calls,
                             info->outside_calls == 1 ? "" : "s", info->outside_threads,
                             info->outside_threads == 1 ? "" : "s");
    if (info->outside_tables && n < sizeof outside)
        n += (size_t)snprintf(outside + n, sizeof outside - n, "; the journal was full: %lld "
                              "thread%s started later %s not in it (their calls are missing)",
                              (long long)info->outside_tables,
                              info->outside_tables == 1 ? "" : "s",
                              info->outside_tables == 1 ? "is" : "are");
    if (info->outside_entries && n < sizeof outside)
        snprintf(outside + n, sizeof outside - n, "; the journal was full: %lld region%s of "
                 "threads in it %s not (%s calls are missing)", (long long)info->outside_entries,
                 info->outside_entries == 1 ? "" : "s", info->outside_entries == 1 ? "is" : "are",
                 info->outside_entries == 1 ? "its" : "their");
    /* A later cycle's journal: named as that cycle's result would be. */
    char cycle[128] = "";
    if (info->batch_first > 0 && info->batch_first < info->cycle)
        snprintf(cycle, sizeof cycle, "Init..Close cycles %lld to %lld of process %lld; ",
                 (long long)info->batch_first, (long long)info->cycle, (long long)info->pid);
    else if (info->cycle > 1)
        snprintf(cycle, sizeof cycle, "Init..Close cycle %lld of process %lld; ",
                 (long long)info->cycle, (long long)info->pid);
    char *s = NULL;
    if (asprintf(&s, "%spartial: recovered from the journal by %s: %s; "
                 "in flight: %zu region%s open%s%s%s; no counter data", cycle, by, end,
                 info->open_regions, info->open_regions == 1 ? "" : "s",
                 info->open_regions ? ": " : "", info->open_tags, outside) < 0)
        return NULL;
    return s;
}
