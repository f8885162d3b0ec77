#!/usr/bin/env python3
"""Proves check_result.py can fail: builds a result file by hand the way the
spec (hdf5-layout.md) describes it, checks that the checker accepts it, then
breaks it in one way at a time and checks that each break is caught.
Usage: checker_selftest.py CHECKER TMPDIR.  Exit 77 without h5py."""
import os
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("checker_selftest.py: h5py/numpy not importable by %s: SKIP" % sys.executable)
    sys.exit(77)

STR = h5py.string_dtype()


def strs(values):
    return np.array(values, dtype=STR)


def write_good(path, source="full_api", names=True):
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "scope-likwid"
        f.attrs["format_version"] = np.int64(2)
        f.attrs["created_by"] = "scope-likwid 0.1.0"
        f.create_group("metadata").attrs["hostname"] = "node"
        g = f.create_group("rank0")
        for a, v in (("hostname", "node"), ("executable", "/x/examples/solver"),
                     ("command_line", "solver"), ("likwid_status", "used " + source)):
            g.attrs[a] = v
        g.attrs["pid"] = np.int64(42)
        g.attrs["mpi_rank"] = np.int64(-1)
        t = g.create_group("timing")
        t.attrs["clock"] = "CLOCK_MONOTONIC"
        t.attrs["origin_unix_ns"] = np.int64(1_700_000_000_000_000_000)
        for name, nthreads, ncalls in (("init", 1, 1), ("solve-step", 2, 3), ("io phase", 1, 1)):
            r = t.create_group("regions/" + name)
            r.attrs["tag"] = name
            r.attrs["dropped_calls"] = np.int64(0)
            r.attrs["open_at_close"] = np.int64(0)
            tids = np.arange(100, 100 + nthreads, dtype=np.int64)
            r["threads"] = tids
            r["call_counts"] = np.full(nthreads, ncalls, dtype=np.int64)
            r["total_ns"] = np.full(nthreads, 30 * ncalls, dtype=np.int64)
            r["min_ns"] = np.full(nthreads, 10, dtype=np.int64)
            r["max_ns"] = np.full(nthreads, 30, dtype=np.int64)
            n = nthreads * ncalls
            r["call_threads"] = np.repeat(tids, ncalls)
            r["start_times"] = np.arange(n, dtype=np.int64) * 100
            r["end_times"] = np.arange(n, dtype=np.int64) * 100 + 20
        g["regions"] = t["regions"]   # the hard link of format 2
        lw = g.create_group("likwid")
        lw.attrs["source"] = source
        lw.attrs["LIKWID_EVENTS"] = "FLOPS_DP"
        lw.attrs["num_regions"] = np.int64(1)
        r = lw.create_group("regions/solve-step")
        r.attrs["tag"] = "solve-step"
        r.attrs["group_name"] = "FLOPS_DP" if names else ""
        r.attrs["source"] = source
        r.attrs["group_id"] = np.int64(0)
        r.attrs["event_names"] = strs(["INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE"] if names else [])
        r.attrs["counter_names"] = strs(["FIXC0", "FIXC1"] if names else [])
        r.attrs["metric_names"] = strs(["CPI"] if names else [])
        r.attrs["event_labels"] = strs(["INSTR_RETIRED_ANY", "CPU_CLK_UNHALTED_CORE"] if names
                                       else ["event_0", "event_1"])
        r["cpus"] = np.array([0, 1], dtype=np.int64)
        r["times"] = np.array([0.5, 0.5])
        r["call_counts"] = np.array([3, 3], dtype=np.int64)
        r["events"] = np.ones((2, 2))
        r["metrics"] = np.ones((1, 2)) if names else np.zeros((0, 2))


def run(checker, path, *args):
    """Runs the checker's main() in this process (one h5py import for all
    cases keeps the test fast); returns (exit status, output)."""
    import contextlib
    import importlib.util
    import io
    spec = importlib.util.spec_from_file_location("check_result", checker)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [checker, path] + list(args)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                rc = mod.main()
            except SystemExit as e:
                rc = e.code
    finally:
        sys.argv = saved
    return rc, out.getvalue()


def main():
    checker, tmp = sys.argv[1], sys.argv[2]
    good_args = ["--timing", "init=1x1", "--timing", "solve-step=2x3", "--timing", "io phase=1x1",
                 "--source", "full_api", "--names", "--metrics", "--env", "LIKWID_EVENTS",
                 "--likwid-region", "solve-step=2x3", "--status", "full_api",
                 "--executable", "examples/solver"]
    bad = 0
    path = os.path.join(tmp, "good.h5")
    write_good(path)
    rc, out = run(checker, path, *good_args)
    if rc != 0:
        print("a valid file was rejected:\n" + out)
        bad += 1
    mf = os.path.join(tmp, "mf.h5")
    write_good(mf, source="marker_file", names=False)
    rc, out = run(checker, mf, "--source", "marker_file", "--timing", "solve-step=2x3",
                  "--no-names", "--no-metrics")
    if rc != 0:
        print("a valid marker_file result was rejected:\n" + out)
        bad += 1

    # (description, mutation of the good file, checker args)
    def attr(obj, name, value):
        return lambda f: f[obj].attrs.__setitem__(name, value)

    def delete(obj):
        return lambda f: f.__delitem__(obj)

    def data(obj, value):
        def go(f):
            del f[obj]
            f[obj] = value
        return go

    cases = [
        ("wrong format", attr("/", "format", "other"), good_args),
        ("format_version as int32", attr("/", "format_version", np.int32(2)), good_args),
        ("format_version 1", attr("/", "format_version", np.int64(1)), good_args),
        ("no /metadata", delete("metadata"), good_args),
        ("no regions link", delete("rank0/regions"), good_args),
        ("no timing group", delete("rank0/timing"), good_args),
        ("missing min_ns", delete("rank0/timing/regions/init/min_ns"), good_args),
        ("wrong call count", data("rank0/timing/regions/solve-step/call_counts",
                                  np.array([3, 2], dtype=np.int64)), good_args),
        ("trailing blank in tag", attr("rank0/timing/regions/init", "tag", "init  "), good_args),
        ("calls not matching counts", data("rank0/timing/regions/init/call_threads",
                                           np.array([], dtype=np.int64)), good_args),
        ("wrong source", attr("rank0/likwid", "source", "marker_file"), good_args),
        ("placeholder event names", attr("rank0/likwid/regions/solve-step", "event_names",
                                         strs(["event_0", "event_1"])), good_args),
        ("events wrong shape", data("rank0/likwid/regions/solve-step/events", np.ones((2, 3))), good_args),
        ("no metrics", data("rank0/likwid/regions/solve-step/metrics", np.zeros((0, 2))), good_args),
        ("status mismatch", attr("rank0", "likwid_status", "nothing"), good_args),
        ("mpi_rank wrong", attr("rank0", "mpi_rank", np.int64(3)), good_args),
        ("likwid present", lambda f: None, ["--no-likwid"]),
        ("names where none expected", lambda f: None, ["--source", "full_api", "--no-names"]),
        ("metrics where none expected", lambda f: None, ["--source", "full_api", "--no-metrics"]),
        ("wrong rank", lambda f: None, ["--rank", "1"]),
        ("wrong open_at_close", lambda f: None, ["--open", "io phase=1"]),
        ("missing timing tag", lambda f: None, ["--timing", "other=1x1"]),
    ]
    for i, (what, mutate, args) in enumerate(cases):
        p = os.path.join(tmp, "bad%d.h5" % i)
        write_good(p)
        with h5py.File(p, "r+") as f:
            mutate(f)
        rc, out = run(checker, p, *args)
        if rc != 1:
            print("%s: checker exited %d, expected 1:\n%s" % (what, rc, out))
            bad += 1
    notfile = os.path.join(tmp, "not.h5")
    with open(notfile, "w") as fh:
        fh.write("not hdf5\n")
    rc, out = run(checker, notfile)
    if rc != 1:
        print("non-HDF5 file: checker exited %d, expected 1:\n%s" % (rc, out))
        bad += 1
    print("checker self-test: %d of %d cases wrong" % (bad, len(cases) + 3))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
