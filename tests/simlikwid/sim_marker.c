/* Simulated LIKWID, marker API: LIKWID's semantics (no-op without the
 * likwid-perfctr environment, -EFAULT returns, group switching) with fake
 * counters that grow with elapsed time, and a real-format marker file at
 * Close (SIMLIKWID_STYLE=52|55|552). LIKWID's crashes the shim must keep
 * away from the application are emulated with raise(SIGSEGV) unless
 * SIMLIKWID_STRICT_HAZARDS=0. Written for tests, not speed: one lock.
 * Built twice (tests/simlikwid/meson.build): as LIKWID 5.2 (soname
 * liblikwid.so.5.2, SIM_LIKWID_MINOR 2) and as LIKWID 5.5 (5.5, 5), which
 * adds the version getters and likwid_markerWriteFile, writes style 552 by
 * default and keeps every region in group 0 across NextGroup, as 5.5 does. */
#include <errno.h>
#include <likwid.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_groups.h"

#ifndef SIM_LIKWID_MINOR
#define SIM_LIKWID_MINOR 2
#endif
/* The file style when SIMLIKWID_STYLE is unset: the version's own. */
#define SIM_DEFAULT_STYLE (SIM_LIKWID_MINOR >= 5 ? 552 : 52)

static int style(void)
{
    const char *st = getenv("SIMLIKWID_STYLE");
    return st ? atoi(st) : SIM_DEFAULT_STYLE;
}

typedef struct slot {
    int started_ever;   /* this slot (thread/CPU) has started the region */
    int running;
    uint64_t count;
    double time;
    struct timespec t0;
    double *ev;         /* [nevents of the region's group] */
} slot;

typedef struct region {
    char *tag;
    int group;
    slot *slots;        /* [ncpus] */
} region;

static struct {
    int active;
    int closed;
    int strict;
    int ncpus;
    int *cpus;
    int ngroups;
    sim_group *groups;
    int group;          /* active group */
    char *path;
    region *regions;
    size_t nregions, cap;
    int next_thread;
} S;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int my_index = -1;

/* The slot of the calling thread: thread i (in order of first call) runs on
 * LIKWID_THREADS[i]; threads beyond the list share CPUs like LIKWID's. */
static int my_slot(void)
{
    if (my_index < 0)
        my_index = S.next_thread++;
    return my_index % S.ncpus;
}

static void hazard(const char *what, const char *tag)
{
    fprintf(stderr, "simlikwid: %s '%s' (a crash in LIKWID)\n", what, tag);
    if (S.strict)
        raise(SIGSEGV);
}

/* 5.5 keys a thread's regions by (tag, the thread's group), and a thread's
 * group stays 0 whatever NextGroup does: a region is found by its tag
 * alone, and keeps the group it was created in. */
static region *find(const char *tag, int group)
{
    for (size_t i = 0; i < S.nregions; i++)
        if ((SIM_LIKWID_MINOR >= 5 || S.regions[i].group == group) &&
            strcmp(S.regions[i].tag, tag) == 0)
            return &S.regions[i];
    return NULL;
}

static region *find_or_add(const char *tag)
{
    region *r = find(tag, S.group);
    if (r)
        return r;
    if (S.nregions == S.cap) {
        size_t cap = S.cap ? 2 * S.cap : 16;
        region *g = realloc(S.regions, cap * sizeof *g);
        if (!g)
            abort();
        S.regions = g;
        S.cap = cap;
    }
    r = &S.regions[S.nregions++];
    r->tag = strdup(tag);
    r->group = S.group;
    r->slots = calloc((size_t)S.ncpus, sizeof *r->slots);
    if (!r->tag || !r->slots)
        abort();
    for (int i = 0; i < S.ncpus; i++) {
        r->slots[i].ev = calloc((size_t)S.groups[S.group].nevents + 1, sizeof(double));
        if (!r->slots[i].ev)
            abort();
    }
    return r;
}

static int parse_cpu_list(const char *s)
{
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    S.cpus = calloc((size_t)n, sizeof *S.cpus);
    if (!S.cpus)
        return -1;
    const char *p = s;
    for (int i = 0; i < n; i++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0)
            return -1;
        S.cpus[i] = (int)v;
        p = *end ? end + 1 : end;
    }
    S.ncpus = n;
    return 0;
}

static int parse_groups(const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        return -1;
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == '|';
    S.groups = calloc((size_t)n, sizeof *S.groups);
    if (!S.groups) {
        free(copy);
        return -1;
    }
    char *save = NULL;
    int k = 0;
    for (char *t = strtok_r(copy, "|", &save); t && k < n; t = strtok_r(NULL, "|", &save))
        if (sim_group_parse(t, &S.groups[k++]) < 0) {
            free(copy);
            return -1;
        }
    S.ngroups = k;
    free(copy);
    return k > 0 ? 0 : -1;
}

void likwid_markerInit(void)
{
    pthread_mutex_lock(&lock);
    const char *mode = getenv("LIKWID_MODE"), *path = getenv("LIKWID_FILEPATH");
    const char *events = getenv("LIKWID_EVENTS"), *threads = getenv("LIKWID_THREADS");
    if (S.active || S.closed) {
        pthread_mutex_unlock(&lock);
        return;
    }
    if (!mode || !path || !events || !threads) {
        fprintf(stderr, "Running without Marker API. Activate Marker API with -m on commandline.\n");
        pthread_mutex_unlock(&lock);
        return;
    }
    const char *strict = getenv("SIMLIKWID_STRICT_HAZARDS");
    S.strict = !(strict && strcmp(strict, "0") == 0);
    if (parse_cpu_list(threads) < 0 || parse_groups(events) < 0 || !(S.path = strdup(path))) {
        fprintf(stderr, "simlikwid: bad LIKWID_THREADS or LIKWID_EVENTS\n");
        pthread_mutex_unlock(&lock);
        return;
    }
    init_configuration();   /* as LIKWID's perfmon_init does, */
    sim_timer_start();      /* and starts its timer */
    S.active = 1;
    my_slot();
    pthread_mutex_unlock(&lock);
}

/* What an application may ask perfmon after likwid_markerInit (pylikwid
 * sizes GetRegion's buffer this way). Not counting: -EINVAL, as LIKWID 5.2
 * answers when perfmon is not initialised. */
int perfmon_getIdOfActiveGroup(void)
{
    pthread_mutex_lock(&lock);
    int g = S.active ? S.group : -EINVAL;
    pthread_mutex_unlock(&lock);
    return g;
}

int sim_marker_nevents(int group)
{
    pthread_mutex_lock(&lock);
    int n = S.active && group >= 0 && group < S.ngroups ? S.groups[group].nevents : -EINVAL;
    pthread_mutex_unlock(&lock);
    return n;
}

void likwid_markerThreadInit(void)
{
    pthread_mutex_lock(&lock);
    if (S.active)
        my_slot();
    pthread_mutex_unlock(&lock);
}

void likwid_markerNextGroup(void)
{
    pthread_mutex_lock(&lock);
    if (S.active)
        S.group = (S.group + 1) % S.ngroups;
    pthread_mutex_unlock(&lock);
}

int likwid_markerRegisterRegion(const char *tag)
{
    pthread_mutex_lock(&lock);
    if (!S.active || !tag) {
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    my_slot();
    find_or_add(tag);
    pthread_mutex_unlock(&lock);
    return 0;
}

int likwid_markerStartRegion(const char *tag)
{
    pthread_mutex_lock(&lock);
    if (!S.active || !tag) {
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    slot *s = &find_or_add(tag)->slots[my_slot()];
    if (s->running)
        fprintf(stderr, "WARN: Region %s was already started\n", tag);
    s->started_ever = 1;
    s->running = 1;
    pthread_mutex_unlock(&lock);
    clock_gettime(CLOCK_MONOTONIC, &s->t0);
    return 0;
}

/* The group a region was created in (the active one for 5.2). */
static int r_group(const char *tag)
{
    region *r = find(tag, S.group);
    return r ? r->group : S.group;
}

/* The calling thread's slot of a region it has started, or NULL (after the
 * hazard, when not strict). */
static slot *started_slot(const char *tag, const char *what)
{
    region *r = find(tag, S.group);
    slot *s = r ? &r->slots[my_slot()] : NULL;
    if (!s || !s->started_ever) {
        pthread_mutex_unlock(&lock);
        hazard(what, tag);
        pthread_mutex_lock(&lock);
        return NULL;
    }
    return s;
}

int likwid_markerStopRegion(const char *tag)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&lock);
    if (!S.active || !tag) {
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    slot *s = started_slot(tag, "Stop of a region this thread never started");
    if (!s || !s->running) {
        fprintf(stderr, "WARN: Stopping an unknown/not-started region %s\n", tag);
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    double ns = (double)(now.tv_sec - s->t0.tv_sec) * 1e9 + (double)(now.tv_nsec - s->t0.tv_nsec);
    if (ns < 1)
        ns = 1;
    s->time += ns * 1e-9;
    s->count++;
    /* 5.5 adds the active group's events into a region of another group */
    int n = S.groups[S.group].nevents;
    if (n > S.groups[r_group(tag)].nevents)
        n = S.groups[r_group(tag)].nevents;
    for (int k = 0; k < n; k++)
        s->ev[k] += (double)(k + 1) * ns;
    s->running = 0;
    pthread_mutex_unlock(&lock);
    return 0;
}

int likwid_markerResetRegion(const char *tag)
{
    pthread_mutex_lock(&lock);
    if (!S.active || !tag) {
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    slot *s = started_slot(tag, "Reset of a region this thread never started");
    if (!s || s->running) {
        fprintf(stderr, "ERROR: Can only reset stopped regions\n");
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    s->count = 0;
    s->time = 0;
    memset(s->ev, 0, (size_t)S.groups[S.group].nevents * sizeof *s->ev);
    pthread_mutex_unlock(&lock);
    return 0;
}

void likwid_markerGetRegion(const char *tag, int *nr_events, double *events, double *time,
                            int *count)
{
    pthread_mutex_lock(&lock);
    if (!S.active || !tag) {
        if (nr_events)
            *nr_events = 0;
        if (time)
            *time = 0;
        if (count)
            *count = 0;
        pthread_mutex_unlock(&lock);
        return;
    }
    slot *s = started_slot(tag, "GetRegion of a region this thread never started");
    if (count)
        *count = s ? (int)s->count : 0;
    if (time)
        *time = s ? s->time : 0.0;
    if (nr_events && events && *nr_events > 0) {
        int n = S.groups[S.group].nevents;
        if (n > *nr_events)
            n = *nr_events;
        for (int i = 0; i < n; i++)
            events[i] = s ? s->ev[i] : 0.0;
        *nr_events = n;
    }
    pthread_mutex_unlock(&lock);
}

static int region_count(const region *r)
{
    for (int i = 0; i < S.ncpus; i++)
        if (r->slots[i].count)
            return 1;
    return 0;
}

static void value_line(FILE *f, int id, const region *r, int cpu, const slot *s)
{
    int n = S.groups[r->group].nevents;
    fprintf(f, "%d %d %d %u %e %d ", id, r->group, cpu, s ? (unsigned)s->count : 0u,
            s ? s->time : 0.0, n);
    for (int k = 0; k < n; k++)
        fprintf(f, "%e ", s ? s->ev[k] : 0.0);
    fputc('\n', f);
}

/* Whether LIKWID writes the region: it has a count, and (5.5) it was
 * created in group 0: 5.5's Close looks a region up by its own group in
 * thread tables keyed by group 0, and finds nothing for the others. */
static int written(const region *r)
{
    return region_count(r) && (SIM_LIKWID_MINOR < 5 || r->group == 0);
}

/* 5.5.2 and later (style 552), as LIKWID master's Close does it: a
 * region's lines are its threads with a count, in thread order; a line
 * takes its cpu from a list of the CPUs that ran the region from which
 * each empty place was shifted out once (the places of the later lines
 * shift), and its values from the region's k-th kept thread only where k
 * is below the number of threads that ran it: past that, LIKWID writes
 * -EINVAL (-22) for every event. */
static void lines_552(FILE *f, int id, const region *r)
{
    int n = S.ncpus, ran = 0;
    int *cl = malloc((size_t)n * sizeof *cl);
    if (!cl)
        abort();
    for (int c = 0; c < n; c++) {
        cl[c] = r->slots[c].count ? S.cpus[c] : -1;
        ran += r->slots[c].count != 0;
    }
    for (int i = 0; i < n; i++)
        if (cl[i] < 0) {
            memmove(cl + i, cl + i + 1, (size_t)(n - 1 - i) * sizeof *cl);
            cl[n - 1] = -1;
        }
    for (int c = 0; c < n; c++) {
        const slot *s = &r->slots[c];
        if (!s->count)
            continue;
        int ne = S.groups[r->group].nevents;
        fprintf(f, "%d %d %d %u %e %d ", id, r->group, cl[c], (unsigned)s->count, s->time, ne);
        for (int k = 0; k < ne; k++)
            fprintf(f, "%e ", c < ran ? r->slots[c].ev[k] : -22.0);
        fputc('\n', f);
    }
    free(cl);
}

/* The file as LIKWID writes it; style picks the version's value lines. */
static int write_file(const char *path)
{
    /* A LIKWID whose Close writes nothing (a fault: SIMLIKWID_WRITE_MARKER=0). */
    const char *write_it = getenv("SIMLIKWID_WRITE_MARKER");
    if (write_it && strcmp(write_it, "0") == 0)
        return 0;
    int st = style();
    int kept = 0;
    for (size_t i = 0; i < S.nregions; i++) {
        if (written(&S.regions[i]))
            kept++;
        else
            fprintf(stderr, "WARN: Skipping region %s for evaluation.\n", S.regions[i].tag);
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "Cannot open file %s\n", path);
        return -EIO;
    }
    fprintf(f, "%d %d %d\n", S.ncpus, kept, S.ngroups);
    int id = 0;
    for (size_t i = 0; i < S.nregions; i++)
        if (written(&S.regions[i]))
            fprintf(f, "%d:%s-%d\n", id++, S.regions[i].tag, S.regions[i].group);
    id = 0;
    for (size_t i = 0; i < S.nregions; i++) {
        const region *r = &S.regions[i];
        if (!written(r))
            continue;
        if (st == 552) {
            lines_552(f, id++, r);
            continue;
        }
        for (int c = 0; c < S.ncpus; c++) {
            const slot *s = &r->slots[c];
            if (s->count)
                value_line(f, id, r, S.cpus[c], s);
            else if (st == 52)
                value_line(f, id, r, -1, NULL);
            else if (st == 55)
                value_line(f, id, r, 0, NULL);
        }
        id++;
    }
    fclose(f);
    return 0;
}

/* LIKWID 5.2 to 5.4 (SIMLIKWID_STYLE=52): Close frees its state and
 * clears likwid_init, so a later Init starts afresh and a Close without
 * Init does nothing. 5.5 (55, 552): Close destroys the thread map but
 * keeps its init flag, so a later Init does nothing and a second Close
 * walks freed memory (the hazard). */
static int resets_at_close(void)
{
    return style() == 52;
}

static void forget_state(void)
{
    for (size_t i = 0; i < S.nregions; i++) {
        for (int c = 0; c < S.ncpus; c++)
            free(S.regions[i].slots[c].ev);
        free(S.regions[i].slots);
        free(S.regions[i].tag);
    }
    free(S.regions);
    free(S.cpus);
    for (int g = 0; g < S.ngroups; g++)
        sim_group_free(&S.groups[g]);
    free(S.groups);
    free(S.path);
    int strict = S.strict, next = S.next_thread;
    memset(&S, 0, sizeof S);
    S.strict = strict;
    S.next_thread = next;   /* threads keep their slot index */
}

void likwid_markerClose(void)
{
    pthread_mutex_lock(&lock);
    if (S.closed) {
        pthread_mutex_unlock(&lock);
        hazard("second Close walks freed memory", "");
        return;
    }
    if (!S.active) {
        pthread_mutex_unlock(&lock);
        return;
    }
    write_file(S.path);
    if (resets_at_close()) {
        forget_state();
    } else {
        S.active = 0;
        S.closed = 1;
    }
    pthread_mutex_unlock(&lock);
}

#if SIM_LIKWID_MINOR >= 5
/* LIKWID 5.3 and later tell their version. */
int likwid_getMajorVersion(void);
int likwid_getMinorVersion(void);
int likwid_getBugfixVersion(void);

/* SIMLIKWID_MAJOR: a library that claims another major version. */
int likwid_getMajorVersion(void)
{
    const char *m = getenv("SIMLIKWID_MAJOR");
    return m ? atoi(m) : 5;
}

int likwid_getMinorVersion(void)
{
    return SIM_LIKWID_MINOR;
}

int likwid_getBugfixVersion(void)
{
    return 1;
}

/* 5.5: the results of the last Close, written to another file; before a
 * Close there are none ("No threads or regions defined"). */
int likwid_markerWriteFile(const char *markerfile);

int likwid_markerWriteFile(const char *markerfile)
{
    if (!markerfile)
        return -EFAULT;
    pthread_mutex_lock(&lock);
    int rc = -EFAULT;
    if (S.closed)
        rc = write_file(markerfile);
    else
        fprintf(stderr, "No threads or regions defined in hash table\n");
    pthread_mutex_unlock(&lock);
    return rc;
}
#endif
