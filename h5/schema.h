/* Internal header: not installed. The result file's schema (docs/FORMAT.md):
 * every group, attribute and dataset the file holds, declared once, with
 * the member of the model (core/model/run.h) that holds it. This is the source of
 * truth: the writer (h5_run.c) and the reader (h5read.c) write and read a
 * rank group's attributes, timing/, likwid/ and each region as loops over
 * these rows; the reader checks each field against its row (type, rank,
 * required, the format version that added it); tests/docs checks that
 * docs/FORMAT.md names every row.
 *
 * Adding a field: its name in core/model/field_names.h (if new) and one row in
 * SL_H5_SCHEMA with the format version that adds it and its member; the
 * loops then write and read it. Files of an older format_version lack it:
 * the reader treats a row whose `since` is above the file's version as
 * absent. The order of a place's rows is the order the writer creates its
 * fields in (the file's bytes depend on it).
 *
 * Plain C, no HDF5: tools/views may include it for the names (JSON keys of
 * `show --json` are field names). */
#ifndef SL_H5_SCHEMA_H
#define SL_H5_SCHEMA_H

#include <stddef.h>

#define SL_H5_FORMAT "scope-likwid"
/* The version this build writes; the reader reads 1..SL_H5_FORMAT_VERSION. */
#define SL_H5_FORMAT_VERSION 2

/* What to say of an HDF5 file that is neither ours nor scope-profiler's
 * (h5probe.h SL_H5_PROBED_OTHER): one wording for every command. */
#define SL_H5_NEITHER                                                                    \
    "an HDF5 file, but not a scope-likwid result file (no root attribute format = "    \
    "\"scope-likwid\") nor a scope-profiler file (/metadata with "                     \
    "scope_profiler_version, rank<N> groups with regions)"

#include "field_names.h"

/* Where a field lives. TREG/LREG: each group below timing/regions and
 * likwid/regions. */
typedef enum sl_h5_obj {
    SL_H5O_ROOT,
    SL_H5O_META,
    SL_H5O_RANK,
    SL_H5O_TIMING,
    SL_H5O_TREG,
    SL_H5O_LIKWID,
    SL_H5O_LREG,
} sl_h5_obj;

typedef enum sl_h5_kind { SL_H5K_GROUP, SL_H5K_ATTR, SL_H5K_DATA } sl_h5_kind;

/* STR: scalar UTF-8 string; STRV: 1-D string array; U8V: 1-D uint8;
 * I64/F64: int64/float64 (attr: scalar; dataset: of `rank` dims). */
typedef enum sl_h5_type {
    SL_H5T_NONE,
    SL_H5T_STR,
    SL_H5T_STRV,
    SL_H5T_U8V,
    SL_H5T_I64,
    SL_H5T_F64,
} sl_h5_type;

/* REQ: present in every file of format_version >= since. OPT: may be absent
 * (the reader then uses 0, "" or NULL). PAT: a name pattern (prefix), any
 * number of matches. */
typedef enum sl_h5_need { SL_H5_REQ, SL_H5_OPT, SL_H5_PAT } sl_h5_need;

/* How the model holds a field: the last column of a row, which the writer's
 * and the reader's loops follow (the member's C type is the row's type:
 * int64_t for I64, char * for STR; arrays of them, double for F64):
 *   NO             not in the loops: a group, or a field its own code
 *                  writes and reads (the root attrs: h5write.c, h5read_file.c)
 * (/metadata's rows name the reader's model, sl_file_meta: its writer,
 * h5_meta.c, derives the fields from the run.)
 *   MEM(S, m)      member m of struct S
 *   SET(S, m)      the same, written only when it holds a value (> 0, not "")
 *   SRC(S, m)      an sl_source member, as its name
 *   TAG(S, m, n)   the exact bytes m of length n (size_t member): attr tag
 *                  (and tag_bytes when they are not UTF-8; FORMAT.md)
 *   ARR(S, m, n)   array m of n elements (size_t member n)
 *   MAT(S, m, r, c) array m of r x c elements, rows first
 *   FN             derived from other members: the handler of the row's
 *                  place in the writer and the reader makes it */
typedef enum sl_h5_how {
    SL_H5M_NO,
    SL_H5M_MEM,
    SL_H5M_SET,
    SL_H5M_SRC,
    SL_H5M_TAG,
    SL_H5M_ARR,
    SL_H5M_MAT,
    SL_H5M_FN,
} sl_h5_how;

typedef struct sl_h5_member {
    sl_h5_how how;
    size_t off;       /* offsetof the member in its struct */
    size_t dim[2];    /* offsetof the size_t members of its extents (TAG, ARR: dim[0]) */
    sl_h5_type ctype; /* the member's C type as a row type (SL_H5T_NONE: NO, SRC, FN) */
} sl_h5_member;

/* X(id, object, name, kind, type, rank, shape, need, since, model)
 * shape: T threads, C recorded calls, E events, M metrics (FORMAT.md).
 * Format 2 (issue #14) added the scope-profiler layout: /metadata, the
 * rank<R>/regions hard link to timing/regions (left out when timing/regions
 * is empty) and merge's origin attrs. */
#define SL_H5_SCHEMA(X)                                                             \
    X(ROOT_FORMAT, ROOT, format, ATTR, STR, 0, "", REQ, 1, NO)                                                             \
    X(ROOT_FORMAT_VERSION, ROOT, format_version, ATTR, I64, 0, "", REQ, 1, NO)                                             \
    X(ROOT_CREATED_BY, ROOT, created_by, ATTR, STR, 0, "", REQ, 1, NO)                                                     \
    X(ROOT_RANK, ROOT, rank, GROUP, NONE, 0, "", PAT, 1, NO)                                                               \
    X(ROOT_METADATA, ROOT, metadata, GROUP, NONE, 0, "", OPT, 2, NO)                                                       \
    X(META_HOSTNAME, META, hostname, ATTR, STR, 0, "", OPT, 2, MEM(sl_file_meta, hostname))                                \
    X(META_TIMESTAMP, META, timestamp, ATTR, STR, 0, "", OPT, 2, MEM(sl_file_meta, timestamp))                             \
    X(META_MPI_SIZE, META, mpi_size, ATTR, I64, 0, "", OPT, 2, MEM(sl_file_meta, run.mpi_size))                            \
    X(META_OMP_NUM_THREADS, META, omp_num_threads, ATTR, I64, 0, "", OPT, 2, MEM(sl_file_meta, run.omp_num_threads))       \
    X(META_START_TIME_NS, META, start_time_ns, ATTR, I64, 0, "", OPT, 2, MEM(sl_file_meta, run.start_time_ns))             \
    X(META_FINALIZE_TIME_NS, META, finalize_time_ns, ATTR, I64, 0, "", OPT, 2, MEM(sl_file_meta, run.finalize_time_ns))    \
    X(META_TOTAL_CORES, META, total_cores, ATTR, I64, 0, "", OPT, 2, MEM(sl_file_meta, total_cores))                       \
    X(META_WORKING_DIRECTORY, META, working_directory, ATTR, STR, 0, "", OPT, 2, MEM(sl_file_meta, run.working_directory)) \
    X(META_USER, META, user, ATTR, STR, 0, "", OPT, 2, MEM(sl_file_meta, run.user))                                        \
    X(META_RUN_ID, META, run_id, ATTR, STR, 0, "", OPT, 2, SET(sl_file_meta, run.run_id))                                  \
    X(META_SLURM, META, SLURM_, ATTR, STR, 0, "", PAT, 2, FN)                                                              \
    X(RANK_HOSTNAME, RANK, hostname, ATTR, STR, 0, "", REQ, 1, MEM(sl_run, hostname))                                      \
    X(RANK_EXECUTABLE, RANK, executable, ATTR, STR, 0, "", REQ, 1, MEM(sl_run, executable))                                \
    X(RANK_COMMAND_LINE, RANK, command_line, ATTR, STR, 0, "", REQ, 1, MEM(sl_run, command_line))                          \
    X(RANK_PID, RANK, pid, ATTR, I64, 0, "", REQ, 1, MEM(sl_run, pid))                                                     \
    X(RANK_MPI_RANK, RANK, mpi_rank, ATTR, I64, 0, "", REQ, 1, MEM(sl_run, mpi_rank))                                      \
    X(RANK_LIKWID_STATUS, RANK, likwid_status, ATTR, STR, 0, "", REQ, 1, MEM(sl_run, likwid_status))                       \
    X(RANK_LIKWID_VERSION, RANK, likwid_version, ATTR, STR, 0, "", OPT, 2, SET(sl_run, likwid_version))                    \
    X(RANK_PARENT_PID, RANK, parent_pid, ATTR, I64, 0, "", OPT, 2, SET(sl_run, parent_pid))                                \
    X(RANK_CPU_MODEL, RANK, cpu_model, ATTR, STR, 0, "", OPT, 2, SET(sl_run, cpu_model))                                  \
    X(RANK_KERNEL_RELEASE, RANK, kernel_release, ATTR, STR, 0, "", OPT, 2, SET(sl_run, kernel_release))                    \
    X(RANK_CLOCK_SOURCE, RANK, clock_source, ATTR, STR, 0, "", OPT, 2, SET(sl_run, clock_source))                          \
    X(RANK_TSC_HZ, RANK, tsc_hz, ATTR, I64, 0, "", OPT, 2, SET(sl_run, tsc_hz))                                            \
    X(RANK_MERGED_FROM, RANK, merged_from, ATTR, STR, 0, "", OPT, 2, SET(sl_run, merged_from))                             \
    X(RANK_MERGED_FROM_GROUP, RANK, merged_from_group, ATTR, STR, 0, "", OPT, 2, SET(sl_run, merged_from_group))           \
    X(RANK_REGIONS, RANK, regions, GROUP, NONE, 0, "", OPT, 2, NO)                                                         \
    X(RANK_TIMING, RANK, timing, GROUP, NONE, 0, "", REQ, 1, NO)                                                           \
    X(RANK_LIKWID, RANK, likwid, GROUP, NONE, 0, "", OPT, 1, NO)                                                           \
    X(TIMING_CLOCK, TIMING, clock, ATTR, STR, 0, "", REQ, 1, MEM(sl_timing, clock))                                        \
    X(TIMING_ORIGIN_UNIX_NS, TIMING, origin_unix_ns, ATTR, I64, 0, "", REQ, 1, MEM(sl_timing, origin_unix_ns))             \
    X(TIMING_REGIONS, TIMING, regions, GROUP, NONE, 0, "", REQ, 1, NO)                                                     \
    X(TREG_TAG, TREG, tag, ATTR, STR, 0, "", REQ, 1, TAG(sl_timing_region, tag, tag_len))                                  \
    X(TREG_TAG_BYTES, TREG, tag_bytes, ATTR, U8V, 1, "(N,)", OPT, 1, TAG(sl_timing_region, tag, tag_len))                  \
    X(TREG_DROPPED_CALLS, TREG, dropped_calls, ATTR, I64, 0, "", REQ, 1, MEM(sl_timing_region, dropped_calls))             \
    X(TREG_OPEN_AT_CLOSE, TREG, open_at_close, ATTR, I64, 0, "", REQ, 1, MEM(sl_timing_region, open_at_close))             \
    X(TREG_UNMATCHED_STOPS, TREG, unmatched_stops, ATTR, I64, 0, "", OPT, 1, MEM(sl_timing_region, unmatched_stops))       \
    X(TREG_NESTED_STARTS, TREG, nested_starts, ATTR, I64, 0, "", OPT, 1, MEM(sl_timing_region, nested_starts))             \
    X(TREG_THREADS, TREG, threads, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_timing_region, threads, nthreads))                 \
    X(TREG_CALL_COUNTS, TREG, call_counts, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_timing_region, call_counts, nthreads))     \
    X(TREG_TOTAL_NS, TREG, total_ns, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_timing_region, total_ns, nthreads))              \
    X(TREG_MIN_NS, TREG, min_ns, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_timing_region, min_ns, nthreads))                    \
    X(TREG_MAX_NS, TREG, max_ns, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_timing_region, max_ns, nthreads))                    \
    X(TREG_CALL_THREADS, TREG, call_threads, DATA, I64, 1, "(C,)", REQ, 1, ARR(sl_timing_region, call_threads, ncalls))    \
    X(TREG_START_TIMES, TREG, start_times, DATA, I64, 1, "(C,)", REQ, 1, ARR(sl_timing_region, start_times, ncalls))       \
    X(TREG_END_TIMES, TREG, end_times, DATA, I64, 1, "(C,)", REQ, 1, ARR(sl_timing_region, end_times, ncalls))             \
    X(LIKWID_NUM_REGIONS, LIKWID, num_regions, ATTR, I64, 0, "", REQ, 1, FN)                                               \
    X(LIKWID_SOURCE, LIKWID, source, ATTR, STR, 0, "", REQ, 1, SRC(sl_likwid, source))                                     \
    X(LIKWID_ENV, LIKWID, LIKWID_, ATTR, STR, 0, "", PAT, 1, FN)                                                           \
    X(LIKWID_REGIONS, LIKWID, regions, GROUP, NONE, 0, "", REQ, 1, NO)                                                     \
    X(LREG_TAG, LREG, tag, ATTR, STR, 0, "", REQ, 1, TAG(sl_region, tag, tag_len))                                         \
    X(LREG_TAG_BYTES, LREG, tag_bytes, ATTR, U8V, 1, "(N,)", OPT, 1, TAG(sl_region, tag, tag_len))                         \
    X(LREG_GROUP_NAME, LREG, group_name, ATTR, STR, 0, "", REQ, 1, MEM(sl_region, group_name))                             \
    X(LREG_SOURCE, LREG, source, ATTR, STR, 0, "", REQ, 1, SRC(sl_region, source))                                         \
    X(LREG_GROUP_ID, LREG, group_id, ATTR, I64, 0, "", REQ, 1, MEM(sl_region, group_id))                                   \
    X(LREG_EVENT_NAMES, LREG, event_names, ATTR, STRV, 1, "(E,)", REQ, 1, FN)                                              \
    X(LREG_COUNTER_NAMES, LREG, counter_names, ATTR, STRV, 1, "(E,)", REQ, 1, FN)                                          \
    X(LREG_METRIC_NAMES, LREG, metric_names, ATTR, STRV, 1, "(M,)", REQ, 1, ARR(sl_region, metric_names, nmetrics))        \
    X(LREG_EVENT_LABELS, LREG, event_labels, ATTR, STRV, 1, "(E,)", REQ, 1, FN)                                            \
    X(LREG_CPUS, LREG, cpus, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_region, cpus, nthreads))                                 \
    X(LREG_TIMES, LREG, times, DATA, F64, 1, "(T,)", REQ, 1, ARR(sl_region, times, nthreads))                              \
    X(LREG_CALL_COUNTS, LREG, call_counts, DATA, I64, 1, "(T,)", REQ, 1, ARR(sl_region, call_counts, nthreads))            \
    X(LREG_EVENTS, LREG, events, DATA, F64, 2, "(E, T)", REQ, 1, MAT(sl_region, events, nevents, nthreads))                \
    X(LREG_METRICS, LREG, metrics, DATA, F64, 2, "(M, T)", REQ, 1, MAT(sl_region, metrics, nmetrics, nthreads))

typedef enum sl_h5_fid {
#define SL_H5_X(id, obj, name, kind, type, rank, shape, need, since, model) SL_H5F_##id,
    SL_H5_SCHEMA(SL_H5_X)
#undef SL_H5_X
    SL_H5F_COUNT
} sl_h5_fid;

typedef struct sl_h5_field {
    const char *name;
    const char *shape; /* for messages and the printed schema */
    sl_h5_obj obj;
    sl_h5_kind kind;
    sl_h5_type type;
    int rank; /* dimensions: 0 scalar, 1 or 2 */
    sl_h5_need need;
    int since; /* the format_version that added the field */
    sl_h5_member model;
} sl_h5_field;

extern const sl_h5_field sl_h5_schema[SL_H5F_COUNT];

/* The row of a field, and its name, by id: SL_H5_FIELD(TREG_CALL_COUNTS). */
#define SL_H5_FIELD(id) (&sl_h5_schema[SL_H5F_##id])
#define SL_H5_NAME(id) (sl_h5_schema[SL_H5F_##id].name)

/* Names of the enums, for the printed schema. */
const char *sl_h5_obj_path(sl_h5_obj o);
const char *sl_h5_kind_name(sl_h5_kind k);
const char *sl_h5_type_name(sl_h5_type t);
const char *sl_h5_need_name(sl_h5_need n);

#endif
