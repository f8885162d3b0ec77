/* Internal header: not installed. The names of the fields of one process's
 * results (core/run.h), each spelled once in the tree: the result file's
 * attributes, datasets and groups (h5/schema.h, docs/FORMAT.md) and the
 * wire format's lines that carry the same field (docs/WIRE.md) take their
 * names from here. SL_H5N_<name> is the name the result file gives it. */
#ifndef SL_FIELD_NAMES_H
#define SL_FIELD_NAMES_H

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
#define SL_H5N_likwid_version "likwid_version"
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

#endif
