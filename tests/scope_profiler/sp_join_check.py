#!/usr/bin/env python3
"""Checks a scope-profiler file after `scope-likwid convert SOURCE --into`,
with h5py (independent of our reader), against the file before it:

1. nothing else changed: every object and attribute of BEFORE but
   /RANK/likwid is in AFTER with the same type, shape, storage (chunks,
   maxshape, filters) and values, and AFTER has no other object;
2. /RANK/likwid is exactly the layout of scope-profiler's LIKWID writer
   (write_likwid_results, ../shared/spec/scope-profiler-layout.md): group
   attrs only LIKWID_* strings and num_regions (int64, = number of regions);
   regions/<tag with '/' as '|'>/ with attrs exactly tag, group_id,
   group_name, source, event_names, counter_names, metric_names and datasets
   exactly cpus int64 (T,), times float64 (T,), call_counts int64 (T,),
   events float64 (E, T), metrics float64 (M, T); nothing else;
3. with --like OURS.h5: its values are those of OURS.h5's /RANK/likwid
   (our layout), region by (tag, group_id).

Usage: sp_join_check.py BEFORE AFTER RANK [--like OURS.h5 [--like-rank GROUP]]
Exit 0 all checks passed, 1 a check failed (one line each).
"""
import argparse
import sys

import h5py
import numpy as np

fails = []


def fail(what, expected):
    fails.append("%s: expected %s" % (what, expected))


def s(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, np.ndarray):
        return [s(x) for x in v.tolist()]
    return v


def attrs_of(obj):
    out = {}
    for k in obj.attrs:
        a = obj.attrs.get_id(k)
        v = obj.attrs[k]
        out[k] = (a.dtype.str, a.shape, repr(s(v)))
    return out


def objects(f, skip):
    out = {"/": ("group", attrs_of(f))}

    def visit(name, obj):
        path = "/" + name
        if path == skip or path.startswith(skip + "/"):
            return
        if isinstance(obj, h5py.Dataset):
            out[path] = ("dataset", obj.dtype.str, obj.shape, obj.chunks, obj.maxshape,
                         obj.compression, obj[()].tobytes() if obj.size else b"", attrs_of(obj))
        else:
            out[path] = ("group", attrs_of(obj))
    f.visititems(visit)
    return out


def is_str(obj, k, scalar=True):
    if k not in obj.attrs:
        return False
    a = obj.attrs.get_id(k)
    if h5py.check_string_dtype(a.dtype) is None:
        return False
    return a.shape == () if scalar else len(a.shape) == 1


def is_i64(obj, k):
    return k in obj.attrs and obj.attrs.get_id(k).dtype == np.int64 and obj.attrs.get_id(k).shape == ()


def check_layout(lw, where):
    for k in lw.attrs:
        if k == "num_regions":
            if not is_i64(lw, k):
                fail("%s attr num_regions" % where, "int64")
        elif not (k.startswith("LIKWID_") and is_str(lw, k)):
            fail("%s attr %r" % (where, k), "only LIKWID_* strings and num_regions")
    if set(lw.keys()) != {"regions"}:
        fail("%s holds %s" % (where, sorted(lw.keys())), "only regions")
        return {}
    regs = lw["regions"]
    if "num_regions" in lw.attrs and int(lw.attrs["num_regions"]) != len(regs):
        fail("%s num_regions %d" % (where, lw.attrs["num_regions"]), "%d" % len(regs))
    out = {}
    for name, r in regs.items():
        rw = "%s/regions/%s" % (where, name)
        want_attrs = {"tag", "group_id", "group_name", "source", "event_names", "counter_names",
                      "metric_names"}
        if set(r.attrs) != want_attrs:
            fail("%s attrs %s" % (rw, sorted(r.attrs)), "exactly %s" % sorted(want_attrs))
            continue
        for k in ("tag", "group_name", "source"):
            if not is_str(r, k):
                fail("%s attr %s" % (rw, k), "a string")
        if not is_i64(r, "group_id"):
            fail("%s attr group_id" % rw, "int64")
        for k in ("event_names", "counter_names", "metric_names"):
            if not is_str(r, k, scalar=False):
                fail("%s attr %s" % (rw, k), "a 1-D string array")
        tag = s(r.attrs["tag"])
        if name != tag.replace("/", "|") and not name.startswith(tag.replace("/", "|") + "%g"):
            fail("%s: tag %r" % (rw, tag), "the name %r" % tag.replace("/", "|"))
        if set(r.keys()) != {"cpus", "times", "call_counts", "events", "metrics"}:
            fail("%s holds %s" % (rw, sorted(r.keys())), "exactly the five datasets")
            continue
        t = r["cpus"].shape[0] if r["cpus"].ndim == 1 else -1
        e, m = len(r.attrs["event_names"]), len(r.attrs["metric_names"])
        for k, dt, shape in (("cpus", np.int64, (t,)), ("times", np.float64, (t,)),
                             ("call_counts", np.int64, (t,)), ("events", np.float64, (e, t)),
                             ("metrics", np.float64, (m, t))):
            if r[k].dtype != dt or r[k].shape != shape:
                fail("%s/%s is %s %s" % (rw, k, r[k].dtype, r[k].shape), "%s %s" % (dt.__name__, shape))
        out[(tag, int(r.attrs["group_id"]))] = r
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("rank")
    ap.add_argument("--like")
    ap.add_argument("--like-rank", help="the rank group of --like (default: RANK)")
    a = ap.parse_args()
    skip = "/%s/likwid" % a.rank
    with h5py.File(a.before, "r") as b, h5py.File(a.after, "r") as f:
        ob, oa = objects(b, skip), objects(f, skip)
        for p in sorted(set(ob) | set(oa)):
            if p not in oa:
                fail("%s: %s is gone" % (a.after, p), "every other object kept")
            elif p not in ob:
                fail("%s: %s is new" % (a.after, p), "nothing but %s added" % skip)
            elif ob[p] != oa[p]:
                fail("%s: %s changed (%r -> %r)" % (a.after, p, ob[p], oa[p]), "it unchanged")
        if skip not in f:
            fail("%s has no %s" % (a.after, skip), "the joined counters")
        else:
            got = check_layout(f[skip], a.after + ":" + skip)
            if a.like:
                with h5py.File(a.like, "r") as o:
                    ours = {(s(r.attrs["tag"]), int(r.attrs["group_id"])): r
                            for r in o["/%s/likwid/regions" % (a.like_rank or a.rank)].values()}
                    if sorted(ours) != sorted(got):
                        fail("regions %s" % sorted(got), "those of %s: %s" % (a.like, sorted(ours)))
                    for key in sorted(set(ours) & set(got)):
                        x, y = ours[key], got[key]
                        for k in ("cpus", "times", "call_counts", "events", "metrics"):
                            if x[k].size + y[k].size and not np.array_equal(x[k][()], y[k][()]):
                                fail("region %r %s differs" % (key, k), "the values of %s" % a.like)
                        for k in ("group_name", "source"):
                            if s(x.attrs[k]) != s(y.attrs[k]):
                                fail("region %r attr %s" % (key, k), repr(s(x.attrs[k])))
                        if s(x.attrs["metric_names"]) != s(y.attrs["metric_names"]):
                            fail("region %r metric_names" % (key,), "those of %s" % a.like)
                        if s(x.attrs["source"]) == "full_api" and \
                                s(x.attrs["event_names"]) != s(y.attrs["event_names"]):
                            fail("region %r event_names" % (key,), "those of %s" % a.like)
    for x in fails:
        print(x)
    if not fails:
        print("%s: only %s added, in scope-profiler's LIKWID layout" % (a.after, skip))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
