/* mk_result OUT.h5 < SPEC: writes a result file with chosen timings, for the
 * diff and merge tests. SPEC, one directive per line (tags without blanks):
 *   rank R                       a new rank group (mpi_rank R)
 *   t TAG D1 D2 ...              timing region, one thread, per-call samples
 *                                of D1, D2, ... ns (calls, total, min, max
 *                                follow from them)
 *   m TAG CALLS TOTAL_NS         timing region without per-call samples
 *   c TAG CALLS TOTAL_NS D1 D2 ...
 *                                timing region of CALLS calls taking TOTAL_NS,
 *                                of which only D1, D2, ... ns were kept as
 *                                samples (the rest dropped_calls: a cap)
 *   l TAG GID GNAME T1,T2,... [C1,C2,...] [NAME=V1,V2,...]...
 *     [ev:EVENT@COUNTER=V1,V2,...]...
 *                                LIKWID region (full_api): seconds per
 *                                thread, calls per thread (default 1 each),
 *                                metrics per thread (nan, inf, -inf allowed),
 *                                events per thread
 *   x TAG C1,C2.. T1,T2.. MIN1,.. MAX1,.. START END
 *                                timing region with these per-thread calls,
 *                                total, min, max ns taken as they are (any
 *                                int64, no arithmetic) and one call sample
 *   a NAME VALUE                 the rank's mpi_rank, pid, hostname,
 *                                executable, origin_unix_ns
 *                                or its metadata (mpi_size, omp_num_threads,
 *                                start_time_ns, finalize_time_ns,
 *                                working_directory, user, SLURM_*)
 * In TAG (and GNAME) %XX is the byte of hex XX, for control bytes.
 * Prints the name written. Exit 0, or 1 with a message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "h5write.h"
#include "run.h"
#include "schema.h"

#define MAX_RUNS 64
#define MAX_VALS 4096

static int fail(const char *what, size_t line)
{
    fprintf(stderr, "mk_result: stdin:%zu: %s\n", line, what);
    return 1;
}

/* "1,2.5,3" -> values; returns the count, 0 on a bad list. */
static size_t list(const char *s, double *v)
{
    size_t n = 0;
    char *end;
    while (n < MAX_VALS) {
        v[n++] = strtod(s, &end);
        if (end == s)
            return 0;
        if (!*end)
            return n;
        if (*end != ',')
            return 0;
        s = end + 1;
    }
    return 0;
}

static int timing(sl_run *run, char *tag, char **words, size_t nw, int samples)
{
    size_t ncalls = samples ? nw : 0;
    sl_timing_region *r = sl_timing_add(&run->timing, tag, strlen(tag), 1, ncalls);
    if (!r || (!samples && nw != 2) || (samples && !nw))
        return -EINVAL;
    r->threads[0] = 4242;
    if (!samples) {
        r->call_counts[0] = strtoll(words[0], NULL, 10);
        r->total_ns[0] = strtoll(words[1], NULL, 10);
        r->min_ns[0] = r->max_ns[0] = r->call_counts[0] ? r->total_ns[0] / r->call_counts[0] : 0;
        return 0;
    }
    int64_t t = 1000;
    for (size_t i = 0; i < nw; i++) {
        int64_t d = strtoll(words[i], NULL, 10);
        r->call_threads[i] = 4242;
        r->start_times[i] = t;
        r->end_times[i] = t + d;
        t += d + 10;
        r->total_ns[0] += d;
        if (!i || d < r->min_ns[0])
            r->min_ns[0] = d;
        if (!i || d > r->max_ns[0])
            r->max_ns[0] = d;
    }
    r->call_counts[0] = (int64_t)nw;
    return 0;
}

/* CALLS TOTAL_NS D1 D2 ...: the samples kept of CALLS calls, the rest
 * dropped (their time in TOTAL_NS). */
static int capped(sl_run *run, char *tag, char **words, size_t nw)
{
    int rc = timing(run, tag, words + 2, nw - 2, 1);
    if (rc)
        return rc;
    sl_timing_region *r = &run->timing.regions[run->timing.nregions - 1];
    int64_t calls = strtoll(words[0], NULL, 10);
    if (calls < r->call_counts[0])
        return -EINVAL;
    r->dropped_calls = calls - r->call_counts[0];
    r->call_counts[0] = calls;
    r->total_ns[0] = strtoll(words[1], NULL, 10);
    return 0;
}

/* "%09" -> tab, in place */
static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        unsigned v;
        if (s[0] == '%' && sscanf(s + 1, "%2x", &v) == 1 && s[1] && s[2]) {
            *o++ = (char)v;
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* "1,-2,9223372036854775807" -> int64 values; the count, 0 on a bad list. */
static size_t list_i64(const char *s, int64_t *v)
{
    size_t n = 0;
    char *end;
    while (n < MAX_VALS) {
        errno = 0;
        v[n++] = strtoll(s, &end, 10);
        if (end == s || errno)
            return 0;
        if (!*end)
            return n;
        if (*end != ',')
            return 0;
        s = end + 1;
    }
    return 0;
}

static int raw_timing(sl_run *run, char **w, size_t nw)
{
    static int64_t v[4][MAX_VALS];
    if (nw != 7)
        return -EINVAL;
    size_t n = list_i64(w[1], v[0]);
    for (int k = 1; k < 4; k++)
        if (!n || list_i64(w[1 + k], v[k]) != n)
            return -EINVAL;
    sl_timing_region *r = sl_timing_add(&run->timing, w[0], strlen(w[0]), n, 1);
    if (!r)
        return -ENOMEM;
    for (size_t t = 0; t < n; t++) {
        r->threads[t] = 4242 + (int64_t)t;
        r->call_counts[t] = v[0][t];
        r->total_ns[t] = v[1][t];
        r->min_ns[t] = v[2][t];
        r->max_ns[t] = v[3][t];
    }
    r->call_threads[0] = 4242;
    r->start_times[0] = strtoll(w[5], NULL, 10);
    r->end_times[0] = strtoll(w[6], NULL, 10);
    return 0;
}

/* "a NAME VALUE": one of the run's attributes or its metadata */
static int attr(sl_run *run, char **w, size_t nw)
{
    if (nw != 2)
        return -EINVAL;
    const char *n = w[0], *v = w[1];
    int64_t i = strtoll(v, NULL, 10);
    sl_run_meta *m = &run->meta;
    if (!strcmp(n, SL_H5N_pid))
        run->pid = i;
    else if (!strcmp(n, SL_H5N_mpi_rank))
        run->mpi_rank = i;
    else if (!strcmp(n, SL_H5N_origin_unix_ns))
        run->timing.origin_unix_ns = i;
    else if (!strcmp(n, SL_H5N_mpi_size))
        m->mpi_size = i;
    else if (!strcmp(n, SL_H5N_omp_num_threads))
        m->omp_num_threads = i;
    else if (!strcmp(n, SL_H5N_start_time_ns))
        m->start_time_ns = i;
    else if (!strcmp(n, SL_H5N_finalize_time_ns))
        m->finalize_time_ns = i;
    else if (!strcmp(n, SL_H5N_hostname))
        return sl_set_string(&run->hostname, v);
    else if (!strcmp(n, SL_H5N_executable))
        return sl_set_string(&run->executable, v);
    else if (!strcmp(n, SL_H5N_cpu_model))
        return sl_set_string(&run->cpu_model, v);
    else if (!strcmp(n, SL_H5N_kernel_release))
        return sl_set_string(&run->kernel_release, v);
    else if (!strcmp(n, SL_H5N_clock_source))
        return sl_set_string(&run->clock_source, v);
    else if (!strcmp(n, SL_H5N_working_directory))
        return sl_set_string(&m->working_directory, v);
    else if (!strcmp(n, SL_H5N_user))
        return sl_set_string(&m->user, v);
    else if (!strncmp(n, SL_H5N_SLURM_, strlen(SL_H5N_SLURM_)))
        return sl_run_meta_add_var(m, n, v);
    else
        return -EINVAL;
    return 0;
}

static int likwid(sl_run *run, char **w, size_t nw)
{
    static double times[MAX_VALS], calls[MAX_VALS], vals[MAX_VALS];
    if (nw < 4)
        return -EINVAL;
    size_t T = list(w[3], times), nm = 0, first_metric = 4;
    if (!T)
        return -EINVAL;
    for (size_t i = 0; i < T; i++)
        calls[i] = 1;
    if (nw > 4 && !strchr(w[4], '=')) {
        if (list(w[4], calls) != T)
            return -EINVAL;
        first_metric = 5;
    }
    size_t ne = 0;
    for (size_t i = first_metric; i < nw; i++)
        ne += !strncmp(w[i], "ev:", 3);
    nm = nw - first_metric - ne;
    run->likwid.source = SL_SOURCE_FULL_API;
    sl_region *r = sl_likwid_add(&run->likwid, w[0], strlen(w[0]), strtoll(w[1], NULL, 10), w[2],
                                 SL_SOURCE_FULL_API, T, ne, nm, 1);
    if (!r)
        return -ENOMEM;
    for (size_t t = 0; t < T; t++) {
        r->cpus[t] = (int64_t)t;
        r->times[t] = times[t];
        r->call_counts[t] = (int64_t)calls[t];
    }
    for (size_t i = first_metric, e = 0, m = 0; i < nw; i++) {
        int is_event = !strncmp(w[i], "ev:", 3);
        char *name = w[i] + (is_event ? 3 : 0), *eq = strchr(name, '='), *at = strchr(name, '@');
        if (!eq || (is_event && (!at || at > eq)))
            return -EINVAL;
        *eq = '\0';
        if (list(eq + 1, vals) != T)
            return -EINVAL;
        double *row;
        if (is_event) {
            *at = '\0';
            if (sl_set_string(&r->event_names[e], name) || sl_set_string(&r->counter_names[e], at + 1))
                return -EINVAL;
            row = r->events + e++ * T;
        } else {
            if (sl_set_string(&r->metric_names[m], name))
                return -EINVAL;
            row = r->metrics + m++ * T;
        }
        for (size_t t = 0; t < T; t++)
            row[t] = vals[t];
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: mk_result OUT.h5 < SPEC\n", stderr);
        return 2;
    }
    static sl_run runs[MAX_RUNS];
    size_t nruns = 0, lineno = 0;
    char line[65536];
    char *words[MAX_VALS];
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        size_t nw = 0;
        for (char *tok = strtok(line, " \t\n"); tok && nw < MAX_VALS; tok = strtok(NULL, " \t\n"))
            words[nw++] = tok;
        if (!nw || words[0][0] == '#')
            continue;
        if (!strcmp(words[0], "rank") && nw == 2 && nruns < MAX_RUNS) {
            if (sl_run_init(&runs[nruns]))
                return fail("out of memory", lineno);
            runs[nruns].rank = runs[nruns].mpi_rank = strtoll(words[1], NULL, 10);
            sl_set_string(&runs[nruns].timing.clock, "CLOCK_MONOTONIC");
            nruns++;
            continue;
        }
        if (!nruns)
            return fail("expected 'rank R' first", lineno);
        if (nw >= 2)
            unescape(words[1]);
        if (!strcmp(words[0], "l") && nw >= 4)
            unescape(words[3]);
        sl_run *run = &runs[nruns - 1];
        int rc = -EINVAL;
        if (!strcmp(words[0], "t") && nw >= 3)
            rc = timing(run, words[1], words + 2, nw - 2, 1);
        else if (!strcmp(words[0], "m") && nw == 4)
            rc = timing(run, words[1], words + 2, 2, 0);
        else if (!strcmp(words[0], "c") && nw >= 5)
            rc = capped(run, words[1], words + 2, nw - 2);
        else if (!strcmp(words[0], "l"))
            rc = likwid(run, words + 1, nw - 1);
        else if (!strcmp(words[0], "x"))
            rc = raw_timing(run, words + 1, nw - 1);
        else if (!strcmp(words[0], "a"))
            rc = attr(run, words + 1, nw - 1);
        if (rc)
            return fail("bad directive: expected rank, t, m, c, l, x or a (see mk_result.c)", lineno);
    }
    sl_diag diag;
    sl_diag_init(&diag);
    char *written = NULL;
    int rc = sl_h5_write(argv[1], runs, nruns, &written, &diag);
    for (size_t i = 0; i < diag.kept; i++)
        fprintf(stderr, "%s\n", diag.lines[i]);
    if (!rc)
        printf("%s\n", written ? written : argv[1]);
    free(written);
    sl_diag_free(&diag);
    for (size_t i = 0; i < nruns; i++)
        sl_run_free(&runs[i]);
    return rc ? 1 : 0;
}
