/* Internal header: not installed. The result file's schema (docs/FORMAT.md):
 * every group, attribute and dataset the file holds, declared once. This is
 * the source of truth: the writer and the reader spell field names only
 * through it, the reader checks each field against its row (type, rank,
 * required, the format version that added it), and tests/docs checks that
 * docs/FORMAT.md names every row.
 *
 * Adding a field: one SL_H5N_ name (if new), one row in SL_H5_SCHEMA with
 * the format version that adds it, and its producer in h5_run.c (writer)
 * and consumer in h5read.c. Files of an older format_version lack it: the
 * reader treats a row whose `since` is above the file's version as absent.
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

/* ---- names: each field name spelled once in the tree ---- */
#define SL_H5N_format "format"
#define SL_H5N_format_version "format_version"
#define SL_H5N_created_by "created_by"
#define SL_H5N_rank "rank" /* rank<R>; rank<R>.<k> in format 1 (h5_rank.c) */
#define SL_H5N_metadata "metadata"
#define SL_H5N_timestamp "timestamp"
#define SL_H5N_mpi_size "mpi_size"
#define SL_H5N_omp_num_threads "omp_num_threads"
#define SL_H5N_start_time_ns "start_time_ns"
#define SL_H5N_finalize_time_ns "finalize_time_ns"
#define SL_H5N_total_cores "total_cores"
#define SL_H5N_working_directory "working_directory"
#define SL_H5N_user "user"
#define SL_H5N_SLURM_ "SLURM_" /* one attr per SLURM_* variable */
#define SL_H5N_merged_from "merged_from"
#define SL_H5N_merged_from_group "merged_from_group"
#define SL_H5N_hostname "hostname"
#define SL_H5N_executable "executable"
#define SL_H5N_command_line "command_line"
#define SL_H5N_pid "pid"
#define SL_H5N_parent_pid "parent_pid"
#define SL_H5N_mpi_rank "mpi_rank"
#define SL_H5N_likwid_status "likwid_status"
#define SL_H5N_timing "timing"
#define SL_H5N_likwid "likwid"
#define SL_H5N_clock "clock"
#define SL_H5N_origin_unix_ns "origin_unix_ns"
#define SL_H5N_regions "regions"
#define SL_H5N_tag "tag"
#define SL_H5N_tag_bytes "tag_bytes"
#define SL_H5N_dropped_calls "dropped_calls"
#define SL_H5N_open_at_close "open_at_close"
#define SL_H5N_unmatched_stops "unmatched_stops"
#define SL_H5N_nested_starts "nested_starts"
#define SL_H5N_threads "threads"
#define SL_H5N_call_counts "call_counts"
#define SL_H5N_total_ns "total_ns"
#define SL_H5N_min_ns "min_ns"
#define SL_H5N_max_ns "max_ns"
#define SL_H5N_call_threads "call_threads"
#define SL_H5N_start_times "start_times"
#define SL_H5N_end_times "end_times"
#define SL_H5N_LIKWID_ "LIKWID_" /* one attr per LIKWID_* variable */
#define SL_H5N_num_regions "num_regions"
#define SL_H5N_source "source"
#define SL_H5N_group_name "group_name"
#define SL_H5N_group_id "group_id"
#define SL_H5N_event_names "event_names"
#define SL_H5N_counter_names "counter_names"
#define SL_H5N_metric_names "metric_names"
#define SL_H5N_event_labels "event_labels"
#define SL_H5N_cpus "cpus"
#define SL_H5N_times "times"
#define SL_H5N_events "events"
#define SL_H5N_metrics "metrics"

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

/* X(id, object, name, kind, type, rank, shape, need, since)
 * shape: T threads, C recorded calls, E events, M metrics (FORMAT.md).
 * Format 2 (issue #14) added the scope-profiler layout: /metadata, the
 * rank<R>/regions hard link to timing/regions (left out when timing/regions
 * is empty) and merge's origin attrs. */
#define SL_H5_SCHEMA(X)                                                             \
    X(ROOT_FORMAT, ROOT, format, ATTR, STR, 0, "", REQ, 1)                          \
    X(ROOT_FORMAT_VERSION, ROOT, format_version, ATTR, I64, 0, "", REQ, 1)          \
    X(ROOT_CREATED_BY, ROOT, created_by, ATTR, STR, 0, "", REQ, 1)                  \
    X(ROOT_RANK, ROOT, rank, GROUP, NONE, 0, "", PAT, 1)                            \
    X(ROOT_METADATA, ROOT, metadata, GROUP, NONE, 0, "", OPT, 2)                    \
    X(META_HOSTNAME, META, hostname, ATTR, STR, 0, "", OPT, 2)                      \
    X(META_TIMESTAMP, META, timestamp, ATTR, STR, 0, "", OPT, 2)                    \
    X(META_MPI_SIZE, META, mpi_size, ATTR, I64, 0, "", OPT, 2)                      \
    X(META_OMP_NUM_THREADS, META, omp_num_threads, ATTR, I64, 0, "", OPT, 2)        \
    X(META_START_TIME_NS, META, start_time_ns, ATTR, I64, 0, "", OPT, 2)            \
    X(META_FINALIZE_TIME_NS, META, finalize_time_ns, ATTR, I64, 0, "", OPT, 2)      \
    X(META_TOTAL_CORES, META, total_cores, ATTR, I64, 0, "", OPT, 2)                \
    X(META_WORKING_DIRECTORY, META, working_directory, ATTR, STR, 0, "", OPT, 2)    \
    X(META_USER, META, user, ATTR, STR, 0, "", OPT, 2)                              \
    X(META_SLURM, META, SLURM_, ATTR, STR, 0, "", PAT, 2)                           \
    X(RANK_HOSTNAME, RANK, hostname, ATTR, STR, 0, "", REQ, 1)                      \
    X(RANK_EXECUTABLE, RANK, executable, ATTR, STR, 0, "", REQ, 1)                  \
    X(RANK_COMMAND_LINE, RANK, command_line, ATTR, STR, 0, "", REQ, 1)              \
    X(RANK_PID, RANK, pid, ATTR, I64, 0, "", REQ, 1)                                \
    X(RANK_PARENT_PID, RANK, parent_pid, ATTR, I64, 0, "", OPT, 2)                  \
    X(RANK_MPI_RANK, RANK, mpi_rank, ATTR, I64, 0, "", REQ, 1)                      \
    X(RANK_LIKWID_STATUS, RANK, likwid_status, ATTR, STR, 0, "", REQ, 1)            \
    X(RANK_MERGED_FROM, RANK, merged_from, ATTR, STR, 0, "", OPT, 2)                \
    X(RANK_MERGED_FROM_GROUP, RANK, merged_from_group, ATTR, STR, 0, "", OPT, 2)    \
    X(RANK_REGIONS, RANK, regions, GROUP, NONE, 0, "", OPT, 2)                      \
    X(RANK_TIMING, RANK, timing, GROUP, NONE, 0, "", REQ, 1)                        \
    X(RANK_LIKWID, RANK, likwid, GROUP, NONE, 0, "", OPT, 1)                        \
    X(TIMING_CLOCK, TIMING, clock, ATTR, STR, 0, "", REQ, 1)                        \
    X(TIMING_ORIGIN_UNIX_NS, TIMING, origin_unix_ns, ATTR, I64, 0, "", REQ, 1)      \
    X(TIMING_REGIONS, TIMING, regions, GROUP, NONE, 0, "", REQ, 1)                  \
    X(TREG_TAG, TREG, tag, ATTR, STR, 0, "", REQ, 1)                                \
    X(TREG_TAG_BYTES, TREG, tag_bytes, ATTR, U8V, 1, "(N,)", OPT, 1)                \
    X(TREG_DROPPED_CALLS, TREG, dropped_calls, ATTR, I64, 0, "", REQ, 1)            \
    X(TREG_OPEN_AT_CLOSE, TREG, open_at_close, ATTR, I64, 0, "", REQ, 1)            \
    X(TREG_UNMATCHED_STOPS, TREG, unmatched_stops, ATTR, I64, 0, "", OPT, 1)        \
    X(TREG_NESTED_STARTS, TREG, nested_starts, ATTR, I64, 0, "", OPT, 1)            \
    X(TREG_THREADS, TREG, threads, DATA, I64, 1, "(T,)", REQ, 1)                    \
    X(TREG_CALL_COUNTS, TREG, call_counts, DATA, I64, 1, "(T,)", REQ, 1)            \
    X(TREG_TOTAL_NS, TREG, total_ns, DATA, I64, 1, "(T,)", REQ, 1)                  \
    X(TREG_MIN_NS, TREG, min_ns, DATA, I64, 1, "(T,)", REQ, 1)                      \
    X(TREG_MAX_NS, TREG, max_ns, DATA, I64, 1, "(T,)", REQ, 1)                      \
    X(TREG_CALL_THREADS, TREG, call_threads, DATA, I64, 1, "(C,)", REQ, 1)          \
    X(TREG_START_TIMES, TREG, start_times, DATA, I64, 1, "(C,)", REQ, 1)            \
    X(TREG_END_TIMES, TREG, end_times, DATA, I64, 1, "(C,)", REQ, 1)                \
    X(LIKWID_ENV, LIKWID, LIKWID_, ATTR, STR, 0, "", PAT, 1)                        \
    X(LIKWID_NUM_REGIONS, LIKWID, num_regions, ATTR, I64, 0, "", REQ, 1)            \
    X(LIKWID_SOURCE, LIKWID, source, ATTR, STR, 0, "", REQ, 1)                      \
    X(LIKWID_REGIONS, LIKWID, regions, GROUP, NONE, 0, "", REQ, 1)                  \
    X(LREG_TAG, LREG, tag, ATTR, STR, 0, "", REQ, 1)                                \
    X(LREG_TAG_BYTES, LREG, tag_bytes, ATTR, U8V, 1, "(N,)", OPT, 1)                \
    X(LREG_GROUP_NAME, LREG, group_name, ATTR, STR, 0, "", REQ, 1)                  \
    X(LREG_SOURCE, LREG, source, ATTR, STR, 0, "", REQ, 1)                          \
    X(LREG_GROUP_ID, LREG, group_id, ATTR, I64, 0, "", REQ, 1)                      \
    X(LREG_EVENT_NAMES, LREG, event_names, ATTR, STRV, 1, "(E,)", REQ, 1)           \
    X(LREG_COUNTER_NAMES, LREG, counter_names, ATTR, STRV, 1, "(E,)", REQ, 1)       \
    X(LREG_METRIC_NAMES, LREG, metric_names, ATTR, STRV, 1, "(M,)", REQ, 1)         \
    X(LREG_EVENT_LABELS, LREG, event_labels, ATTR, STRV, 1, "(E,)", REQ, 1)         \
    X(LREG_CPUS, LREG, cpus, DATA, I64, 1, "(T,)", REQ, 1)                          \
    X(LREG_TIMES, LREG, times, DATA, F64, 1, "(T,)", REQ, 1)                        \
    X(LREG_CALL_COUNTS, LREG, call_counts, DATA, I64, 1, "(T,)", REQ, 1)            \
    X(LREG_EVENTS, LREG, events, DATA, F64, 2, "(E, T)", REQ, 1)                    \
    X(LREG_METRICS, LREG, metrics, DATA, F64, 2, "(M, T)", REQ, 1)

typedef enum sl_h5_fid {
#define SL_H5_X(id, obj, name, kind, type, rank, shape, need, since) SL_H5F_##id,
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
