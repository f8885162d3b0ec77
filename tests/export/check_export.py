#!/usr/bin/python3
"""Cross-checks `scope-likwid export` against the result file it came from:
   check_export.py FILE.h5 EXPORT.csv EXPORT.json
The result file is read with h5py, the export with pandas (read_csv,
read_json) and, for exact text, with the csv and json modules. Every cell is
compared: columns in the documented order (the rank's origin: group name,
pid, merged_from and merged_from_group, empty when never merged), one row
per (rank, region, group, thread) plus timing-only regions, events per label and thread,
metrics, cpus, times, call counts, timing totals. Exit 77 when h5py or
pandas is missing, 1 on the first disagreement."""
import csv
import json
import math
import sys

try:
    import h5py
    import numpy as np
    import pandas as pd
except ImportError as e:  # not counted as a pass: one line naming the package
    print("SKIP: %s missing (Debian package python3-%s)" % (e.name, e.name))
    sys.exit(77)

FIXED = ["rank", "mpi_rank", "rank_group", "pid", "merged_from", "merged_from_group", "hostname",
         "tag", "region", "group_id", "group_name", "source", "thread_index", "cpu", "call_count",
         "time_s"]
NRUN = FIXED.index("group_id")  # the cells every row has
TIMING = ["timing_threads", "timing_calls", "timing_total_ns", "timing_min_ns", "timing_max_ns",
          "timing_dropped_calls"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def tag_key(g):
    """The exact tag bytes of a region group (tag_bytes when present)."""
    if "tag_bytes" in g.attrs:
        return bytes(np.asarray(g.attrs["tag_bytes"], dtype=np.uint8))
    return s(g.attrs["tag"]).encode()


def col_names(prefix, names):
    out = []
    for i, n in enumerate(names):
        out.append(prefix + n + ("#%d" % i if list(names).count(n) > 1 else ""))
    return out


def expected(path):
    """Header and rows (lists of python values, None = empty) from h5py."""
    f = h5py.File(path, "r")
    ranks = sorted((int(k[4:]), k) for k in f.keys() if k.startswith("rank"))
    regs = []  # (group_id, rank order, file order, rank name, region name)
    for ri, (_, rk) in enumerate(ranks):
        if "likwid" in f[rk]:
            for fi, name in enumerate(f[rk]["likwid/regions"]):
                g = f[rk]["likwid/regions"][name]
                regs.append((int(g.attrs["group_id"]), ri, fi, rk, name))
    regs.sort()
    ev, met = [], []
    for *_, rk, name in regs:
        g = f[rk]["likwid/regions"][name]
        for c in col_names("event:", [s(x) for x in g.attrs["event_labels"]]):
            if c not in ev:
                ev.append(c)
        for c in col_names("metric:", [s(x) for x in g.attrs["metric_names"]]):
            if c not in met:
                met.append(c)
    header = FIXED + ev + met + TIMING
    rows = []
    for ri, (rank, rk) in enumerate(ranks):
        a = f[rk].attrs
        # a rank that was never merged has no origin: empty cells
        origin = [s(a[k]) if k in a else None for k in ("merged_from", "merged_from_group")]
        base = [rank, int(a["mpi_rank"]), rk, int(a["pid"])] + origin + [s(a["hostname"])]
        timing = {}
        for name in f[rk]["timing/regions"]:
            t = f[rk]["timing/regions"][name]
            timing.setdefault(tag_key(t), (name, t))
        lw_tags = set()

        def timing_cells(key):
            if key not in timing:
                return [None] * len(TIMING)
            t = timing[key][1]
            calls = [int(x) for x in t["call_counts"][()]]
            ran = [i for i, c in enumerate(calls) if c > 0]
            mins = [int(t["min_ns"][i]) for i in ran]
            maxs = [int(t["max_ns"][i]) for i in ran]
            return [len(calls), sum(calls), sum(int(x) for x in t["total_ns"][()]),
                    min(mins) if ran else None, max(maxs) if ran else None,
                    int(t.attrs["dropped_calls"])]

        for gid, rj, fi, rk2, name in regs:
            if rj != ri:
                continue
            g = f[rk]["likwid/regions"][name]
            lw_tags.add(tag_key(g))
            ecols = col_names("event:", [s(x) for x in g.attrs["event_labels"]])
            mcols = col_names("metric:", [s(x) for x in g.attrs["metric_names"]])
            events, metrics = g["events"][()], g["metrics"][()]
            cpus, times, counts = g["cpus"][()], g["times"][()], g["call_counts"][()]
            for t in range(len(cpus)):
                row = base + [s(g.attrs["tag"]), name, gid, s(g.attrs["group_name"]),
                              s(g.attrs["source"]), t, int(cpus[t]), int(counts[t]), float(times[t])]
                cells = dict(zip(ecols, (float(events[e][t]) for e in range(len(ecols)))))
                cells.update(zip(mcols, (float(metrics[m][t]) for m in range(len(mcols)))))
                row += [cells.get(c) for c in ev + met]
                row += timing_cells(tag_key(g))
                rows.append(row)
        for key, (name, t) in timing.items():
            if key in lw_tags:
                continue
            rows.append(base + [s(t.attrs["tag"]), name] + [None] * (len(FIXED) - NRUN + len(ev) + len(met))
                        + timing_cells(key))
    return header, rows


def sig_digits(text):
    m = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(m.rstrip("0")) if "." not in text.split("e")[0] else len(m)


def same_text(text, want, where):
    """CSV text: empty = None; integers as integers; doubles exact."""
    if want is None:
        if text != "":
            fail("%s: '%s', expected an empty cell" % (where, text))
        return
    if isinstance(want, str):
        if text != want:
            fail("%s: %r, expected %r" % (where, text, want))
        return
    if isinstance(want, int):
        if text != str(want):
            fail("%s: '%s', expected the integer %d" % (where, text, want))
        return
    if math.isnan(want):
        if text != "nan":
            fail("%s: '%s', expected nan" % (where, text))
        return
    if math.isinf(want):
        if text != ("inf" if want > 0 else "-inf"):
            fail("%s: '%s', expected %s" % (where, text, want))
        return
    if float(text) != want:
        fail("%s: %s reads back as %r, expected %r" % (where, text, float(text), want))
    if want == int(want) and abs(want) < 2 ** 53:
        if text != str(int(want)):
            fail("%s: '%s': a whole value must be written as an integer" % (where, text))
    elif sig_digits(text) > sig_digits(repr(want)):
        fail("%s: '%s' is longer than the shortest form %s" % (where, text, repr(want)))


def same_json(v, want, where):
    if want is None or (isinstance(want, float) and not math.isfinite(want)):
        if v is not None:
            fail("%s: %r, expected null" % (where, v))
        return
    if isinstance(want, (str, int)) and (type(v) is not type(want) or v != want):
        fail("%s: %r, expected %r" % (where, v, want))
    if isinstance(want, float) and (isinstance(v, (bool, str)) or v is None or float(v) != want):
        fail("%s: %r, expected %r" % (where, v, want))


def same_pandas(v, want, where):
    if want is None or (isinstance(want, float) and math.isnan(want)):
        if not (v is None or (isinstance(v, float) and math.isnan(v))):
            fail("%s: pandas read %r, expected NaN/empty" % (where, v))
        return
    if isinstance(want, str):
        if s(v) != want and not (want == "" and isinstance(v, float) and math.isnan(v)):
            fail("%s: pandas read %r, expected %r" % (where, v, want))
        return
    if float(v) != float(want):
        fail("%s: pandas read %r, expected %r" % (where, v, want))


def main():
    path, csv_path, json_path = sys.argv[1:4]
    header, rows = expected(path)
    # exact text
    with open(csv_path, newline="") as fh:
        text_rows = list(csv.reader(fh))
    if text_rows[0] != header:
        fail("CSV header %s\n  expected %s" % (text_rows[0], header))
    if len(text_rows) - 1 != len(rows):
        fail("CSV has %d rows, expected %d" % (len(text_rows) - 1, len(rows)))
    for i, (got, want) in enumerate(zip(text_rows[1:], rows)):
        if len(got) != len(header):
            fail("CSV row %d has %d cells, expected %d" % (i + 1, len(got), len(header)))
        for c, (t, w) in enumerate(zip(got, want)):
            same_text(t, w, "CSV row %d column %s" % (i + 1, header[c]))
    # JSON: keys in column order, values
    with open(json_path) as fh:
        doc = json.load(fh, object_pairs_hook=lambda p: p)
    if len(doc) != len(rows):
        fail("JSON has %d objects, expected %d" % (len(doc), len(rows)))
    for i, (obj, want) in enumerate(zip(doc, rows)):
        if [k for k, _ in obj] != header:
            fail("JSON object %d keys %s, expected %s" % (i, [k for k, _ in obj], header))
        for c, ((k, v), w) in enumerate(zip(obj, want)):
            same_json(v, w, "JSON object %d key %s" % (i, k))
    # pandas: what a user gets
    # float_precision: pandas' default float parser is not exact
    df = pd.read_csv(csv_path, keep_default_na=False, na_values=[""], float_precision="round_trip", dtype={"hostname": str, "tag": str, "rank_group": str,
                     "merged_from": str, "merged_from_group": str,
                     "region": str, "group_name": str, "source": str})
    # precise_float: pandas' default JSON float parser is not exact
    dj = pd.read_json(json_path, orient="records", dtype=False, precise_float=True)
    for frame, name in ((df, "read_csv"), (dj, "read_json")):
        if (rows or name == "read_csv") and list(frame.columns) != header:
            fail("pandas.%s columns %s, expected %s" % (name, list(frame.columns), header))
        if len(frame) != len(rows):
            fail("pandas.%s: %d rows, expected %d" % (name, len(frame), len(rows)))
    for i, want in enumerate(rows):  # (no rows: an empty JSON array has no columns)
        for c, col in enumerate(header):
            w = want[c]
            same_pandas(df.iat[i, c], w, "read_csv row %d %s" % (i, col))
            jw = None if isinstance(w, float) and not math.isfinite(w) else w
            same_pandas(dj.iat[i, c], jw, "read_json row %d %s" % (i, col))
    n = sum(1 for r in rows for v in r if v is not None)
    print("%d rows, %d columns, %d values agree (h5py, csv, json, pandas)" % (len(rows), len(header), n))


main()
