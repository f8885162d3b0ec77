#!/usr/bin/env python3
"""Loads a result file the way scope-profiler's readers do, and checks it
against our own timing. Written from the facts in
../shared/spec/scope-profiler-layout.md (scope-profiler itself is not
installed in CI: no network), in two flavours:

  strict  0.2.1's ProfilingH5Reader: every top-level name except
          "metadata" is a rank, its number int(name.replace("rank", ""));
          a name such as "rank0.1" makes the whole load fail.
  newer   later readers: only "rank" + decimal digits, sorted by number;
          anything else is dropped silently (which we count as a failure).

Both: rank<N>/regions/<name> must each be a group with start_times and
end_times (int64, 1-D, same length; KeyError otherwise); rank<N>/likwid/
regions/<name> needs cpus, times, call_counts, events, metrics (KeyError
otherwise), keyed by attr tag; /metadata is attrs only.

Then, against our own layout (rank<R>/timing/regions/<name>): every timing
region is a scope-profiler region of the same name, the name scope-profiler
gives that region (the tag verbatim, '/' as '|'), with exactly our
recorded calls (start/end pairs, in the same order), and /metadata holds
the fields the spec requires.

Every call: each timing region holds sum(call_counts) - dropped_calls
recorded calls (all threads pooled), and --calls N checks the total over all
ranks, so a region or rank that scope-profiler does not see is a failure.

Usage: sp_load.py FILE [--ranks N] [--calls N] [--likwid]
                       [--require-metadata] [--mpi-size N] [--omp-threads N]
                       [--expect-fail]
--expect-fail inverts the verdict (a file scope-profiler must NOT load, such
as a format-1 merged file with rank0.1: shows the loader can fail).
Exit 0 all checks passed, 1 a check failed ("FILE: what: expected ..."),
77 h5py missing (SKIP).
"""
import argparse
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("sp_load.py: h5py/numpy not importable by %s: SKIP" % sys.executable)
    sys.exit(77)

REQUIRED_METADATA = {
    "hostname": str, "timestamp": str, "mpi_size": int, "omp_num_threads": int,
    "start_time_ns": int, "finalize_time_ns": int,
}
LIKWID_DATASETS = ("cpus", "times", "call_counts", "events", "metrics")


def as_py(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, np.ndarray) and v.shape == ():
        return as_py(v[()])
    if isinstance(v, np.integer):
        return int(v)
    return v


class LoadError(Exception):
    pass


def load_strict(f):
    """0.2.1: int() of every top-level name but metadata."""
    ranks = {}
    for name in f:
        if name == "metadata":
            continue
        try:
            n = int(name.replace("rank", ""))
        except ValueError as e:
            raise LoadError("top-level %r: %s" % (name, e))
        ranks[n] = name
    return ranks


def load_newer(f):
    """Later readers: rank + digits only, the rest dropped."""
    ranks, dropped = {}, []
    for name in f:
        if name == "metadata":
            continue
        m = re.fullmatch(r"rank(\d+)", name)
        if not m:
            dropped.append(name)
            continue
        n = int(m.group(1))
        if n in ranks:
            raise LoadError("%r and %r give one rank number %d" % (ranks[n], name, n))
        ranks[n] = name
    return dict(sorted(ranks.items())), dropped


def read_regions(grp):
    """regions/<name> -> (starts, ends); KeyError as scope-profiler raises it."""
    out = {}
    if "regions" not in grp:
        return out
    for name, r in grp["regions"].items():
        if not isinstance(r, h5py.Group):
            raise LoadError("%s/regions/%s is not a group" % (grp.name, name))
        try:
            s, e = r["start_times"], r["end_times"]
        except KeyError as exc:
            raise LoadError("%s/regions/%s: %s" % (grp.name, name, exc))
        s, e = np.asarray(s), np.asarray(e)
        if s.dtype != np.int64 or e.dtype != np.int64 or s.ndim != 1 or s.shape != e.shape:
            raise LoadError("%s/regions/%s: start_times/end_times not int64 1-D of one length"
                            % (grp.name, name))
        out[name] = (s, e)
    return out


def timing_tags(timing):
    return {as_py(t.attrs.get("tag", "")) for t in timing.values()}


def read_likwid(grp):
    out = {}
    if "likwid" not in grp or "regions" not in grp["likwid"]:
        return out
    for name, r in grp["likwid"]["regions"].items():
        for d in LIKWID_DATASETS:
            if d not in r:
                raise LoadError("%s/likwid/regions/%s: KeyError %s" % (grp.name, name, d))
        tag = as_py(r.attrs.get("tag", ""))
        out[tag] = {d: np.asarray(r[d]) for d in LIKWID_DATASETS}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--ranks", type=int, help="number of rank groups expected")
    ap.add_argument("--require-metadata", action="store_true")
    ap.add_argument("--likwid", action="store_true", help="every rank has LIKWID regions")
    ap.add_argument("--calls", type=int, help="recorded calls expected over all ranks")
    ap.add_argument("--mpi-size", type=int, help="/metadata mpi_size expected")
    ap.add_argument("--omp-threads", type=int, help="/metadata omp_num_threads expected")
    ap.add_argument("--expect-fail", action="store_true", help="the file must fail to load")
    args = ap.parse_args()
    fails = []

    def fail(what, expected):
        fails.append("%s: %s: expected %s" % (args.file, what, expected))

    with h5py.File(args.file, "r") as f:
        try:
            strict = load_strict(f)
        except LoadError as e:
            fail("scope-profiler 0.2.1 rank discovery fails (%s)" % e, "rank<N> names only")
            strict = None
        try:
            ranks, dropped = load_newer(f)
        except LoadError as e:
            fail("rank discovery fails (%s)" % e, "distinct rank numbers")
            ranks, dropped = {}, []
        for d in dropped:
            fail("top-level %r dropped by newer readers" % d, "only metadata and rank<N>")
        if strict is not None and sorted(strict) != sorted(ranks):
            fail("readers disagree on ranks", "the same ranks")
        if args.ranks is not None and len(ranks) != args.ranks:
            fail("%d ranks" % len(ranks), str(args.ranks))
        if "scope_profiler_schema" in f.attrs and as_py(f.attrs["scope_profiler_schema"]) != 1:
            fail("root attr scope_profiler_schema", "absent or 1")

        total_calls = 0
        for n, name in ranks.items():
            g = f[name]
            try:
                regs = read_regions(g)
                lw = read_likwid(g)
            except LoadError as e:
                fail("read fails: %s" % e, "a readable rank")
                continue
            if args.likwid and not lw:
                fail("%s: no likwid regions" % name, "LIKWID data")
            if "timing" not in g:
                # a rank group of scope-profiler's own layout (their file, or
                # copied from one by merge): nothing of ours to compare
                total_calls += sum(len(s) for s, _ in regs.values())
                continue
            timing = g["timing/regions"] if "timing/regions" in g else {}
            for tname, t in timing.items():
                if tname not in regs:
                    fail("%s: timing region %r has no regions/%s" % (name, tname, tname),
                         "every timing region in scope-profiler's layout")
                    continue
                s, e = regs[tname]
                ts, te = np.asarray(t["start_times"]), np.asarray(t["end_times"])
                if not (np.array_equal(s, ts) and np.array_equal(e, te)):
                    fail("%s/regions/%s: calls differ from timing" % (name, tname),
                         "exactly our recorded calls")
                if np.any(e < s):
                    fail("%s/regions/%s: an end before its start" % (name, tname), "end >= start")
                want = int(np.asarray(t["call_counts"]).sum()) - int(as_py(t.attrs["dropped_calls"]))
                if len(s) != want:
                    fail("%s/regions/%s: %d calls" % (name, tname, len(s)),
                         "%d (call_counts - dropped_calls)" % want)
                # scope-profiler names a region by its name verbatim, and
                # its LIKWID writer writes '/' as '|': the same region must
                # have that name here (unless it cannot be a name, or
                # another tag of the rank is that name)
                tag = as_py(t.attrs.get("tag", ""))
                if tag not in ("", ".", "..") and "tag_bytes" not in t.attrs:
                    sp_name = tag.replace("/", "|")
                    if tname != sp_name and ("/" not in tag or sp_name not in timing_tags(timing)):
                        fail("%s: tag %r stored as %r" % (name, tag, tname),
                             "%r, as scope-profiler names it" % sp_name)
                total_calls += len(s)
            for rname in regs:
                if rname not in timing:
                    fail("%s/regions/%s not in timing" % (name, rname), "regions == timing/regions")
            # plot_likwid links a LIKWID tag to the timing region of that name
            for tag in lw:
                if tag in timing_tags(timing) and tag not in regs:
                    fail("%s: LIKWID tag %r has no timing region of that name" % (name, tag),
                         "the tag as the region's name")
        if args.calls is not None and total_calls != args.calls:
            fail("%d calls in all" % total_calls, str(args.calls))
        if args.require_metadata:
            if "metadata" not in f:
                fail("no /metadata", "a metadata group")
            else:
                md = {k: as_py(v) for k, v in f["metadata"].attrs.items()}
                for k, typ in REQUIRED_METADATA.items():
                    if k not in md:
                        fail("/metadata has no %s" % k, "the field")
                    elif not isinstance(md[k], typ):
                        fail("/metadata %s is %r" % (k, md[k]), typ.__name__)
                for k, want in (("mpi_size", args.mpi_size), ("omp_num_threads", args.omp_threads)):
                    if want is not None and md.get(k) != want:
                        fail("/metadata %s is %r" % (k, md.get(k)), str(want))
                if ("total_cores" in md and isinstance(md.get("mpi_size"), int)
                        and isinstance(md.get("omp_num_threads"), int)
                        and md["total_cores"] != md["mpi_size"] * md["omp_num_threads"]):
                    fail("/metadata total_cores %r" % md["total_cores"], "mpi_size * omp_num_threads")
                if "scope_profiler_version" in md:
                    fail("/metadata has scope_profiler_version", "not their package's field")
                if isinstance(md.get("omp_num_threads"), int) and md["omp_num_threads"] < 1:
                    fail("omp_num_threads %d" % md["omp_num_threads"], ">= 1")
                if isinstance(md.get("mpi_size"), int) and md["mpi_size"] < 1:
                    fail("mpi_size %d" % md["mpi_size"], ">= 1")
                st, fin = md.get("start_time_ns"), md.get("finalize_time_ns")
                if isinstance(st, int) and isinstance(fin, int):
                    if fin < st:
                        fail("finalize_time_ns < start_time_ns", "finalize >= start")
                    for n, name in ranks.items():
                        for tname, (s, e) in read_regions(f[name]).items():
                            if len(s) and name == ranks.get(min(ranks)) and s.min() < st:
                                fail("%s/regions/%s starts before start_time_ns" % (name, tname),
                                     "start_time_ns <= first call")
                ts = md.get("timestamp")
                if isinstance(ts, str) and not re.fullmatch(
                        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)", ts):
                    fail("timestamp %r" % ts, "ISO-8601 UTC")
    if args.expect_fail:
        if not fails:
            print("%s: loaded, but it must not: expected a failure" % args.file)
            return 1
        print("%s: not loaded, as expected (%s)" % (args.file, fails[0]))
        return 0
    for x in fails:
        print(x)
    if not fails:
        print("%s: scope-profiler reads %d rank(s), %d call(s)" % (args.file, len(ranks), total_calls))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
