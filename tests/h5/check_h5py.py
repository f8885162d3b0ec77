"""h5py's view of a result file (docs/FORMAT.md): strings come back as str,
numbers with the documented dtypes and shapes. Run by check_h5py.sh."""
import sys

import h5py
import numpy as np

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def is_str_attr(obj, name):
    v = obj.attrs[name]
    check(isinstance(v, str), f"{obj.name}@{name} is {type(v).__name__}, want str")
    return v


def is_int_attr(obj, name):
    v = obj.attrs[name]
    check(isinstance(v, np.int64), f"{obj.name}@{name} is {type(v).__name__}, want int64")
    return v


def is_str_array(obj, name, n=None):
    v = obj.attrs[name]
    check(isinstance(v, np.ndarray) and v.ndim == 1, f"{obj.name}@{name} not a 1-D array")
    check(all(isinstance(x, str) for x in v), f"{obj.name}@{name} holds non-str items")
    if n is not None:
        check(len(v) == n, f"{obj.name}@{name} has {len(v)} items, want {n}")
    return list(v)


def dataset(g, name, dtype, shape):
    d = g[name]
    check(d.dtype == np.dtype(dtype), f"{d.name} dtype {d.dtype}, want {dtype}")
    check(d.shape == shape, f"{d.name} shape {d.shape}, want {shape}")
    return d[()]


def check_tag(g):
    tag = is_str_attr(g, "tag")
    if "tag_bytes" in g.attrs:
        raw = bytes(g.attrs["tag_bytes"])
        check(g.attrs["tag_bytes"].dtype == np.uint8, f"{g.name}@tag_bytes not uint8")
        try:
            raw.decode("utf-8")
            failures.append(f"{g.name}: tag_bytes on a UTF-8 tag")
        except UnicodeDecodeError:
            pass
    return tag


def main(path):
    f = h5py.File(path, "r")
    check(is_str_attr(f, "format") == "scope-likwid", "format")
    check(is_int_attr(f, "format_version") == 2, "format_version")
    md = f["metadata"].attrs
    check(is_str_attr(f["metadata"], "timestamp").endswith("+00:00"), "timestamp in UTC")
    for a in ("mpi_size", "omp_num_threads", "start_time_ns", "finalize_time_ns", "total_cores"):
        is_int_attr(f["metadata"], a)
    check("scope_profiler_version" not in md, "no scope_profiler_version")
    check(is_str_attr(f, "created_by").startswith("scope-likwid "), "created_by")
    ranks = [k for k in f if k.startswith("rank")]
    check(ranks == ["rank0", "rank3"], f"rank groups {ranks}")
    for r in ranks:
        g = f[r]
        for a in ("hostname", "executable", "command_line", "likwid_status"):
            is_str_attr(g, a)
        is_int_attr(g, "pid")
        is_int_attr(g, "mpi_rank")
        t = g["timing"]
        check(g["regions"] == t["regions"], f"{r}/regions is not timing/regions")
        is_str_attr(t, "clock")
        is_int_attr(t, "origin_unix_ns")
        for name, reg in t["regions"].items():
            check_tag(reg)
            for a in ("dropped_calls", "open_at_close", "unmatched_stops", "nested_starts"):
                is_int_attr(reg, a)
            n = reg["threads"].shape[0]
            for d in ("threads", "call_counts", "total_ns", "min_ns", "max_ns"):
                dataset(reg, d, "int64", (n,))
            c = reg["call_threads"].shape[0]
            for d in ("call_threads", "start_times", "end_times"):
                dataset(reg, d, "int64", (c,))
        lw = g["likwid"]
        check(is_str_attr(lw, "source") in ("full_api", "marker_file", "marker_api"), "source")
        check(is_int_attr(lw, "num_regions") == len(lw["regions"]), "num_regions")
        check(is_str_attr(lw, "LIKWID_EVENTS") == "MEM_DP", "LIKWID_EVENTS")
        tags = set()
        for name, reg in lw["regions"].items():
            tag = check_tag(reg)
            tags.add((tag, int(reg.attrs["group_id"])))
            is_str_attr(reg, "group_name")
            check(is_str_attr(reg, "source") in ("full_api", "marker_file", "marker_api"),
                  f"{reg.name}@source")
            is_int_attr(reg, "group_id")
            ev = is_str_array(reg, "event_names")
            e = len(ev)
            is_str_array(reg, "counter_names", e)
            labels = is_str_array(reg, "event_labels", e)
            m = len(is_str_array(reg, "metric_names"))
            tt = reg["cpus"].shape[0]
            dataset(reg, "cpus", "int64", (tt,))
            dataset(reg, "times", "float64", (tt,))
            dataset(reg, "call_counts", "int64", (tt,))
            dataset(reg, "events", "float64", (e, tt))
            dataset(reg, "metrics", "float64", (m, tt))
            if reg.attrs["source"] != "full_api":
                check(labels == [f"event_{i}" for i in range(e)], f"{reg.name}: labels {labels}")
        check(len(tags) == len(lw["regions"]), "(tag, group_id) pairs not distinct")
        solve = lw["regions"]["solve-step%g0"]
        check(list(solve.attrs["event_labels"]) ==
              ["CAS_COUNT_RD:MBOX0C0", "CAS_COUNT_RD:MBOX1C0", "INSTR_RETIRED_ANY", "X#3", "X#4"],
              f"labels {list(solve.attrs['event_labels'])}")
        check(lw["regions"]["%2E"].attrs["tag"] == ".", "tag of '.'")
        check(lw["regions"]["%FF%FEabc%g1"].attrs["tag"] == "\\xFF\\xFEabc", "shown tag")
    if failures:
        for msg in failures:
            print("FAIL:", msg)
        return 1
    print("h5py reads the file as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
