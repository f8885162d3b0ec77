#!/usr/bin/env python3
"""Checks one scope-likwid result file against the layout of
docs/FORMAT.md (spec hdf5-layout.md) and against what a test expects.

Usage: check_result.py FILE [options]   (see --help)
Exit status: 0 all checks passed, 1 a check failed (each failure printed as
"FILE: what is wrong: expected what"), 2 bad usage, 77 h5py is missing
(meson reports SKIP).
"""
import argparse
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError:  # the test cannot run here: SKIP, not pass
    print("check_result.py: h5py/numpy not importable by %s: SKIP" % sys.executable)
    sys.exit(77)


class Checker:
    def __init__(self, path):
        self.path = path
        self.failures = []

    def fail(self, what, expected):
        self.failures.append("%s: %s: expected %s" % (self.path, what, expected))

    def expect(self, cond, what, expected):
        if not cond:
            self.fail(what, expected)
        return cond


def as_str(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, np.ndarray) and v.shape == ():
        return as_str(v[()])
    return v


def is_str_attr(obj, name):
    if name not in obj.attrs:
        return False
    return isinstance(as_str(obj.attrs[name]), str)


def is_int64_attr(obj, name):
    if name not in obj.attrs:
        return False
    v = obj.attrs[name]
    return np.asarray(v).dtype == np.int64 and np.asarray(v).shape in ((), (1,))


def str_array_attr(obj, name):
    """1-D variable-length string array attribute, as a list of str, or None."""
    if name not in obj.attrs:
        return None
    v = obj.attrs[name]
    arr = np.asarray(v)
    if arr.ndim != 1:
        return None
    out = []
    for x in arr:
        x = as_str(x)
        if not isinstance(x, str):
            return None
        out.append(x)
    return out


def int_of(obj, name):
    return int(np.asarray(obj.attrs[name]).reshape(-1)[0])


def dataset(c, grp, name, dtype, ndim):
    where = "%s/%s" % (grp.name, name)
    if not c.expect(name in grp and isinstance(grp[name], h5py.Dataset),
                    where, "a dataset"):
        return None
    ds = grp[name]
    c.expect(ds.dtype == np.dtype(dtype), "%s has dtype %s" % (where, ds.dtype), dtype)
    c.expect(len(ds.shape) == ndim, "%s has shape %s" % (where, ds.shape), "%d dimension(s)" % ndim)
    return ds[()]


def check_root(c, f):
    c.expect(as_str(f.attrs.get("format")) == "scope-likwid",
             "root attr format is %r" % as_str(f.attrs.get("format")), '"scope-likwid"')
    c.expect(is_int64_attr(f, "format_version") and int_of(f, "format_version") == 2,
             "root attr format_version", "int64 2")
    c.expect("metadata" in f, "no /metadata", "the run's metadata (format 2)")
    cb = as_str(f.attrs.get("created_by"))
    c.expect(isinstance(cb, str) and cb.startswith("scope-likwid "),
             "root attr created_by is %r" % cb, '"scope-likwid <version>"')


def check_rank(c, f, args):
    name = "rank%d" % args.rank
    ranks = sorted(k for k in f.keys() if k.startswith("rank"))
    if not c.expect(name in f, "groups %s" % ranks, "group /%s" % name):
        return None
    if args.nranks is not None:
        c.expect(len(ranks) == args.nranks, "%d rank groups %s" % (len(ranks), ranks),
                 "%d" % args.nranks)
    g = f[name]
    c.expect("regions" in g and "timing/regions" in g and g["regions"] == g["timing/regions"],
             "/%s/regions is not /%s/timing/regions" % (name, name),
             "a hard link to timing/regions (format 2)")
    for a in ("hostname", "executable", "command_line", "likwid_status"):
        c.expect(is_str_attr(g, a), "/%s attr %s" % (name, a), "a string")
    for a in ("pid", "mpi_rank"):
        c.expect(is_int64_attr(g, a), "/%s attr %s" % (name, a), "an int64")
    if is_int64_attr(g, "mpi_rank"):
        mr = int_of(g, "mpi_rank")
        c.expect(mr == args.mpi_rank, "/%s attr mpi_rank is %d" % (name, mr), "%d" % args.mpi_rank)
    if args.executable and is_str_attr(g, "executable"):
        exe = as_str(g.attrs["executable"])
        c.expect(exe.endswith(args.executable), "/%s attr executable is %r" % (name, exe),
                 "a path ending in %r" % args.executable)
    status = as_str(g.attrs.get("likwid_status", ""))
    for pat in args.status:
        c.expect(re.search(pat, status, re.IGNORECASE) is not None,
                 "likwid_status %r" % status, "to match /%s/" % pat)
    for pat in args.status_not:
        c.expect(re.search(pat, status, re.IGNORECASE) is None,
                 "likwid_status %r" % status, "not to match /%s/" % pat)
    return g


def regions_by_tag(c, regions_grp):
    out = {}
    for name, rg in regions_grp.items():
        if not c.expect(is_str_attr(rg, "tag"), "%s attr tag" % rg.name, "a string"):
            continue
        out.setdefault(as_str(rg.attrs["tag"]), []).append(rg)
    return out


def check_timing(c, g, args):
    if not c.expect("timing" in g, "/%s has no timing group" % g.name.strip("/"), "timing/ always present"):
        return
    t = g["timing"]
    c.expect(is_str_attr(t, "clock") and as_str(t.attrs["clock"]).startswith("CLOCK_"),
             "timing attr clock is %r" % as_str(t.attrs.get("clock")), 'a clock name like "CLOCK_MONOTONIC"')
    c.expect(is_int64_attr(t, "origin_unix_ns") and int_of(t, "origin_unix_ns") > 10**18,
             "timing attr origin_unix_ns", "int64 Unix time in ns")
    if not c.expect("regions" in t, "%s has no regions group" % t.name, "timing/regions"):
        return
    by_tag = regions_by_tag(c, t["regions"])
    for tag, rgs in by_tag.items():
        c.expect(len(rgs) == 1, "timing tag %r in %d groups" % (tag, len(rgs)), "one group per tag")
        if tag != tag.rstrip(" "):
            c.fail("timing tag %r has trailing blanks" % tag, "tags trimmed (Fortran)")
    for rg in (r for rgs in by_tag.values() for r in rgs):
        where = rg.name
        for a in ("dropped_calls", "open_at_close"):
            c.expect(is_int64_attr(rg, a), "%s attr %s" % (where, a), "an int64")
        per = {n: dataset(c, rg, n, "int64", 1) for n in
               ("threads", "call_counts", "total_ns", "min_ns", "max_ns")}
        calls = {n: dataset(c, rg, n, "int64", 1) for n in
                 ("call_threads", "start_times", "end_times")}
        if any(v is None for v in list(per.values()) + list(calls.values())):
            continue
        nt = len(per["threads"])
        c.expect(all(len(v) == nt for v in per.values()), "%s per-thread lengths" % where, "all (T,)")
        nc = len(calls["call_threads"])
        c.expect(all(len(v) == nc for v in calls.values()), "%s per-call lengths" % where, "all (C,)")
        c.expect(len(set(per["threads"].tolist())) == nt, "%s threads %s" % (where, per["threads"]),
                 "distinct thread ids")
        for i in range(nt):
            if per["call_counts"][i] > 0:
                c.expect(0 <= per["min_ns"][i] <= per["max_ns"][i] <= per["total_ns"][i],
                         "%s thread %d min/max/total %d/%d/%d" % (where, i, per["min_ns"][i],
                         per["max_ns"][i], per["total_ns"][i]), "0 <= min <= max <= total")
        if is_int64_attr(rg, "dropped_calls"):
            total_calls = int(per["call_counts"].sum())
            c.expect(nc + int_of(rg, "dropped_calls") == total_calls,
                     "%s: %d recorded + %d dropped calls vs %d counted" % (
                         where, nc, int_of(rg, "dropped_calls"), total_calls),
                     "recorded + dropped == sum(call_counts)")
        c.expect(bool(np.all(calls["end_times"] >= calls["start_times"])),
                 "%s end_times before start_times" % where, "end >= start")
        c.expect(set(calls["call_threads"].tolist()) <= set(per["threads"].tolist()),
                 "%s call_threads not in threads" % where, "every call's thread listed in threads")

    for spec in args.timing:
        m = re.fullmatch(r"(.*)=(\d+)x(\d+)", spec)
        if not m:
            print("check_result.py: --timing %r: expected TAG=THREADSxCALLS" % spec)
            sys.exit(2)
        tag, nthreads, ncalls = m.group(1), int(m.group(2)), int(m.group(3))
        if not c.expect(tag in by_tag, "timing tags %s" % sorted(by_tag), "tag %r" % tag):
            continue
        rg = by_tag[tag][0]
        cc = rg["call_counts"][()]
        c.expect(len(cc) == nthreads, "timing %r: %d threads (%s)" % (tag, len(cc), cc.tolist()),
                 "%d threads" % nthreads)
        c.expect(bool(np.all(cc == ncalls)), "timing %r: call counts %s" % (tag, cc.tolist()),
                 "%d calls on every thread" % ncalls)
    for spec in args.open:
        tag, _, n = spec.rpartition("=")
        if not c.expect(tag in by_tag, "timing tags %s" % sorted(by_tag), "tag %r" % tag):
            continue
        rg = by_tag[tag][0]
        c.expect(is_int64_attr(rg, "open_at_close") and int_of(rg, "open_at_close") == int(n),
                 "timing %r: open_at_close %s" % (tag, rg.attrs.get("open_at_close")), n)
    if args.timing_tags is not None:
        want = sorted(args.timing_tags)
        c.expect(sorted(by_tag) == want, "timing tags %s" % sorted(by_tag), "exactly %s" % want)


def check_likwid(c, g, args):
    if args.no_likwid:
        c.expect("likwid" not in g, "%s/likwid exists" % g.name, "no likwid group (no counter data)")
        return
    if args.source is None:
        return
    if not c.expect("likwid" in g, "%s has no likwid group" % g.name, "likwid/ with source %s" % args.source):
        return
    lw = g["likwid"]
    c.expect(as_str(lw.attrs.get("source")) == args.source,
             "likwid attr source is %r" % as_str(lw.attrs.get("source")), repr(args.source))
    for a in args.env:
        c.expect(is_str_attr(lw, a), "likwid attrs %s" % sorted(lw.attrs.keys()), "string attr %s" % a)
    if not c.expect("regions" in lw, "%s has no regions group" % lw.name, "likwid/regions"):
        return
    c.expect(is_int64_attr(lw, "num_regions") and int_of(lw, "num_regions") == len(lw["regions"]),
             "likwid attr num_regions", "int64 == number of region groups (%d)" % len(lw["regions"]))
    by_tag = regions_by_tag(c, lw["regions"])
    for rg in (r for rgs in by_tag.values() for r in rgs):
        where = rg.name
        c.expect(as_str(rg.attrs.get("source")) == args.source,
                 "%s attr source is %r" % (where, as_str(rg.attrs.get("source"))), repr(args.source))
        c.expect(is_str_attr(rg, "group_name"), "%s attr group_name" % where, "a string")
        c.expect(is_int64_attr(rg, "group_id"), "%s attr group_id" % where, "an int64")
        lists = {a: str_array_attr(rg, a) for a in
                 ("event_names", "counter_names", "metric_names", "event_labels")}
        for a, v in lists.items():
            c.expect(v is not None, "%s attr %s" % (where, a), "a 1-D string array")
        cpus = dataset(c, rg, "cpus", "int64", 1)
        times = dataset(c, rg, "times", "float64", 1)
        counts = dataset(c, rg, "call_counts", "int64", 1)
        events = dataset(c, rg, "events", "float64", 2)
        metrics = dataset(c, rg, "metrics", "float64", 2)
        if any(v is None for v in (cpus, times, counts, events, metrics)) or \
                any(v is None for v in lists.values()):
            continue
        nt = len(times)
        c.expect(len(cpus) == nt and len(counts) == nt, "%s cpus/times/call_counts lengths %d/%d/%d" % (
            where, len(cpus), nt, len(counts)), "all (T,)")
        c.expect(events.shape[1] == nt, "%s events shape %s" % (where, events.shape), "(E, %d)" % nt)
        c.expect(metrics.shape[1] == nt, "%s metrics shape %s" % (where, metrics.shape), "(M, %d)" % nt)
        ne = events.shape[0]
        c.expect(len(lists["event_labels"]) == ne, "%s %d event_labels" % (where, len(lists["event_labels"])),
                 "%d (one per event)" % ne)
        c.expect(len(set(lists["event_labels"])) == ne, "%s event_labels %s" % (where, lists["event_labels"]),
                 "distinct labels")
        c.expect(bool(np.all(counts > 0)), "%s call_counts %s" % (where, counts.tolist()),
                 "only threads that ran the region")
        c.expect(bool(np.all(cpus >= 0)), "%s cpus %s" % (where, cpus.tolist()), "real CPUs (>= 0)")
        c.expect(ne > 0, "%s has no events" % where, "at least one event")
        if args.names:
            c.expect(len(lists["event_names"]) == ne and all(lists["event_names"]),
                     "%s event_names %s" % (where, lists["event_names"]), "%d names" % ne)
            c.expect(not any(re.fullmatch(r"event_\d+", n) for n in lists["event_names"]),
                     "%s event_names %s" % (where, lists["event_names"]), "LIKWID's event names")
            c.expect(len(lists["counter_names"]) == ne and all(lists["counter_names"]),
                     "%s counter_names %s" % (where, lists["counter_names"]), "%d counter names" % ne)
            c.expect(as_str(rg.attrs.get("group_name")) != "",
                     "%s attr group_name is empty" % where, "the group's name")
        elif args.no_names:
            # "Without names events are named event_0, ...": as event_names
            # or not at all; counter names are unknown (empty).
            placeholders = ["event_%d" % e for e in range(ne)]
            c.expect(lists["event_names"] in ([], placeholders),
                     "%s event_names %s" % (where, lists["event_names"]),
                     "none or event_0..event_%d (this source has no names)" % (ne - 1))
            c.expect(not any(lists["counter_names"]),
                     "%s counter_names %s" % (where, lists["counter_names"]),
                     "none or empty (this source has no names)")
            c.expect(lists["event_labels"] == ["event_%d" % e for e in range(ne)],
                     "%s event_labels %s" % (where, lists["event_labels"]), "event_0..event_%d" % (ne - 1))
        if args.metrics:
            c.expect(metrics.shape[0] > 0 and len(lists["metric_names"]) == metrics.shape[0],
                     "%s %d metrics, %d metric_names" % (where, metrics.shape[0], len(lists["metric_names"])),
                     "M > 0 metrics, one name each")
        elif args.no_metrics:
            c.expect(metrics.shape[0] == 0, "%s metrics shape %s" % (where, metrics.shape),
                     "(0, T): metrics come from full_api only")
    for spec in args.likwid_region:
        m = re.fullmatch(r"(.*)=(\d+)(?:x(\d+))?", spec)
        if not m:
            print("check_result.py: --likwid-region %r: expected TAG=THREADS[xCALLS]" % spec)
            sys.exit(2)
        tag, nthreads = m.group(1), int(m.group(2))
        if not c.expect(tag in by_tag, "likwid tags %s" % sorted(by_tag), "tag %r" % tag):
            continue
        rg = by_tag[tag][0]
        counts = rg["call_counts"][()]
        c.expect(len(counts) == nthreads, "likwid %r: %d threads" % (tag, len(counts)), "%d" % nthreads)
        if m.group(3) is not None:
            c.expect(bool(np.all(counts == int(m.group(3)))),
                     "likwid %r: call counts %s" % (tag, counts.tolist()), "%s on every thread" % m.group(3))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--rank", type=int, default=0, help="rank group to check (default 0)")
    p.add_argument("--mpi-rank", type=int, default=-1, help="expected attr mpi_rank (default -1)")
    p.add_argument("--nranks", type=int, help="expected number of rank groups")
    p.add_argument("--executable", help="attr executable must end with this")
    p.add_argument("--status", action="append", default=[], metavar="REGEX",
                   help="likwid_status must match (case-insensitive; repeatable)")
    p.add_argument("--status-not", action="append", default=[], metavar="REGEX",
                   help="likwid_status must not match")
    p.add_argument("--timing", action="append", default=[], metavar="TAG=TxC",
                   help="timing region TAG entered by T threads, C calls each")
    p.add_argument("--timing-tags", nargs="*", metavar="TAG", help="exactly these timing tags")
    p.add_argument("--open", action="append", default=[], metavar="TAG=N",
                   help="timing region TAG has open_at_close N")
    p.add_argument("--no-likwid", action="store_true", help="no likwid group may exist")
    p.add_argument("--source", help="likwid group must exist with this source")
    p.add_argument("--names", action="store_true", help="event/counter/group names must be LIKWID's")
    p.add_argument("--no-names", action="store_true",
                   help="no names: events labelled event_0, event_1, ... (marker_file, marker_api)")
    p.add_argument("--metrics", action="store_true", help="metrics must be present")
    p.add_argument("--no-metrics", action="store_true", help="metrics must have shape (0, T)")
    p.add_argument("--env", action="append", default=[], metavar="NAME",
                   help="likwid group must carry this LIKWID_* attribute")
    p.add_argument("--likwid-region", action="append", default=[], metavar="TAG=T[xC]",
                   help="likwid region TAG with T threads (and C calls each)")
    args = p.parse_args()

    c = Checker(args.file)
    try:
        f = h5py.File(args.file, "r")
    except OSError as e:
        print("%s: cannot open: %s: expected a readable HDF5 result file" % (args.file, e))
        return 1
    with f:
        check_root(c, f)
        g = check_rank(c, f, args)
        if g is not None:
            check_timing(c, g, args)
            check_likwid(c, g, args)
    for line in c.failures:
        print(line)
    if c.failures:
        return 1
    print("%s: ok" % args.file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
