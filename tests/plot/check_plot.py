#!/usr/bin/env python3
"""Checks a report of `scope-likwid plot` against its result file (read with
h5py, independently of scope-likwid's reader).

usage: check_plot.py REPORT FILE.h5 [MORE.h5...] [--svg] [--cap N] [--metric NAME]...
Exit 0: all checks pass; 1: a check failed (each failure on one line);
77: h5py missing.
Checks: the report is well-formed XML (the whole file; so is every <svg>
in it), valid UTF-8, has no script, no URL (the standalone SVG: only its
namespace), no raw control byte; per rank, in rank order: the header
shows likwid_status and the host; the region-time chart has one group per
timing region, costliest first, titled with the exact (escaped) tag, one
rect per thread, widths proportional to the totals; the timeline draws
min(calls, cap) rects in the whole report, the longest ones, one row per
thread; each metric chart has one group per LIKWID region holding the metric
and one rect per thread of it, values as the file has them.
Several ranks: the "All ranks" charts come first: the spans of every rank
on one axis (from the earliest recorded start of any rank, on Unix time
when every rank has origin_unix_ns), each rank's timeline on that axis, the
min/mean/max/imbalance per region over ranks (time, each metric), the
per-rank sections folded in HTML beyond 16 ranks. A FLOP rate and a memory
bandwidth: the roofline points (sums and their ratio). Several files: the
comparison charts first (per region each file's total time and metric
mean, the change relative to file 1), then each file's section (HTML:
checked as a report of its own; SVG: its chart kinds).
"""
import re
import sys
import xml.etree.ElementTree as ET

try:
    import h5py
    import numpy as np
except ImportError as e:
    print("check_plot: %s" % e)
    sys.exit(77)

FAILS = []


def fail(msg):
    FAILS.append(msg)


def display(tag, limit=0):
    """scope-likwid's text of a tag in the report: the file's tag attr
    (already \\xHH for non-UTF-8 bytes), control bytes and U+FFFE/F as \\xHH,
    cut at limit characters with an ellipsis; the empty tag as "(empty tag)"."""
    if tag == "":
        return "(empty tag)"
    return text(tag, limit)


def text(tag, limit=0):
    """Any string as the report shows it (display without the empty-tag rule)."""
    out = []
    for i, ch in enumerate(tag):
        if limit and i == limit:
            out.append("\u2026")
            break
        o = ord(ch)
        if o < 0x20 or o == 0x7F:
            out.append("\\x%02X" % o)
        elif o in (0xFFFE, 0xFFFF):
            out.append("\\xEF\\xBF\\x%02X" % (0xBE if o == 0xFFFE else 0xBF))
        else:
            out.append(ch)
    return "".join(out)


def s(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def strip_ns(root):
    for el in root.iter():
        if "}" in el.tag:
            el.tag = el.tag.split("}", 1)[1]
    return root


def text_of(el):
    return "".join(el.itertext())


def cls(el):
    return (el.get("class") or "").split()


def load(path):
    ranks = []
    with h5py.File(path, "r") as f:
        names = sorted((k for k in f.keys() if k.startswith("rank")), key=lambda k: int(k[4:]))
        for name in names:
            g = f[name]
            r = {"rank": int(name[4:]), "status": s(g.attrs["likwid_status"]),
                 "hostname": s(g.attrs["hostname"]), "timing": [], "likwid": [],
                 "group": name, "mpi_rank": int(g.attrs["mpi_rank"]), "pid": int(g.attrs["pid"]),
                 "from": (s(g.attrs["merged_from"]), s(g.attrs["merged_from_group"]))
                 if "merged_from" in g.attrs else None}
            r["origin"] = int(g["timing"].attrs["origin_unix_ns"])
            tr = g["timing/regions"]
            for idx, k in enumerate(tr):
                x = tr[k]
                r["timing"].append({
                    "idx": idx, "tag": s(x.attrs["tag"]),
                    "threads": [int(v) for v in x["threads"][()]],
                    "totals": [int(v) for v in x["total_ns"][()]],
                    "call_threads": [int(v) for v in x["call_threads"][()]],
                    "durs": [max(int(b) - int(a), 0) for a, b in zip(x["start_times"][()], x["end_times"][()])],
                    "starts": [int(v) for v in x["start_times"][()]],
                    "ends": [max(int(a), int(b)) for a, b in zip(x["start_times"][()], x["end_times"][()])],
                })
            if "likwid" in g:
                lr = g["likwid/regions"]
                for k in lr:
                    x = lr[k]
                    labels = [s(v) for v in x.attrs["event_labels"]]
                    metrics = [s(v) for v in x.attrs["metric_names"]]
                    r["likwid"].append({
                        "tag": s(x.attrs["tag"]), "group_id": int(x.attrs["group_id"]),
                        "times": [float(v) for v in x["times"][()]],
                        "cpus": [int(v) for v in x["cpus"][()]],
                        "labels": labels, "metrics": metrics,
                        "group_name": s(x.attrs["group_name"]),
                        "rows": rows_of(x, labels, metrics),
                    })
            r["has_likwid"] = "likwid" in g
            ranks.append(r)
    return ranks


def rows_of(x, labels, metrics):
    """A LIKWID region's value rows by show's names: call count,
    runtime [s], event labels, metric names (the first of a name wins)."""
    rows = {}
    for m, name in enumerate(metrics):
        rows.setdefault(name, [float(v) for v in x["metrics"][m]])
    for e, name in enumerate(labels):
        rows.setdefault(name, [float(v) for v in x["events"][e]])
    rows.setdefault("runtime [s]", [float(v) for v in x["times"][()]])
    rows.setdefault("call count", [float(v) for v in x["call_counts"][()]])
    return rows


def load_meta(path):
    """/metadata's attributes as the report shows them, plus total_time_ns."""
    with h5py.File(path, "r") as f:
        if "metadata" not in f:
            return {}
        m = {k: s(v) if isinstance(v, (str, bytes)) else int(v) for k, v in f["metadata"].attrs.items()}
    if "start_time_ns" in m and "finalize_time_ns" in m and m["finalize_time_ns"] >= m["start_time_ns"]:
        m["total_time_ns"] = m["finalize_time_ns"] - m["start_time_ns"]
    return m


def check_origin(root, ranks, meta, svg):
    """Each rank's title says its origin; the report's header the /metadata."""
    if svg:
        heads = [text_of(x) for x in root.iter("text") if "h2" in cls(x)]
    else:
        heads = [text_of(x) for x in root.iter("h2")]
    for r in ranks:
        want = "Rank %d (group %s, mpi_rank %d, pid %d" % (r["rank"], r["group"], r["mpi_rank"], r["pid"])
        mine = [h for h in heads if h.startswith(want)]
        if len(mine) != 1:
            fail("rank %d: no title starting %r: %s" % (r["rank"], want, heads))
        elif r["from"] and (", from %s:%s" % tuple(text(x) for x in r["from"])) not in mine[0]:
            fail("rank %d: title %r lacks 'from %s:%s'" % ((r["rank"], mine[0]) + r["from"]))
        elif not r["from"] and ", from " in mine[0]:
            fail("rank %d: title %r says 'from' but the rank was never merged" % (r["rank"], mine[0]))
    if meta and "Run (metadata)" not in heads:
        fail("no 'Run (metadata)' heading for the file's /metadata: %s" % heads)
    alltext = text_of(root)
    for k, v in meta.items():
        shown = "%s: %s" % (k, text(str(v), 160)) if svg else text(str(v))
        if shown not in alltext:
            fail("/metadata %s = %r not in the report's header" % (k, v))


def show_order(r):
    return sorted(r["likwid"], key=lambda x: (x["group_id"], -sum(t for t in x["times"] if np.isfinite(t))))


def default_metric(files):
    """The first metric with FLOP/s or Bytes/s in its name, else the first
    not starting with Runtime, else "runtime [s]" (show's order, files and
    ranks in order)."""
    for rule in (lambda m: "FLOP/s" in m or "Bytes/s" in m, lambda m: not m.startswith("Runtime")):
        for ranks in files:
            for r in ranks:
                for reg in show_order(r):
                    for m in reg["metrics"]:
                        if rule(m):
                            return m
    return "runtime [s]"


def has_metric(reg, m):
    return m in reg["rows"]


def values_of(g):
    """The numbers of a bar group's value column (class v), in order; "no
    value" as nan."""
    out = []
    for t in g.findall("text"):
        if "v" not in cls(t):
            continue
        w = text_of(t).split()[0]
        out.append(float("nan") if w == "no" else float(w))
    return out


def close(a, b):
    """a as the report writes b (4 significant digits; 3 in exponent form)."""
    if not np.isfinite(b):
        return not np.isfinite(a) or a == b
    rel = 6e-4 if 1e-4 <= abs(b) < 1e9 else 6e-3
    return abs(a - b) <= rel * abs(b) + 1e-300


def check_raw(raw, svg):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("not valid UTF-8: %s" % e)
        return
    low = text.lower()
    if "<script" in low or "javascript:" in low:
        fail("has a script")
    allowed = 'xmlns="http://www.w3.org/2000/svg"'
    urls = re.findall(r"(?<![\w-])(?:(?:https?|ftp|file)://|data:)", low.replace(allowed, "") if svg else low)
    if urls:
        fail("has URLs: %s" % urls[:5])
    if svg and text.count(allowed) != 1:
        fail("standalone SVG: expected exactly one svg namespace declaration")
    for pat in ("href=", "src=", "url(", "@import", "<img", "<link", "<iframe", "<object"):
        if pat in low:
            fail("refers to something outside the file: %r" % pat)
    bad = sorted({c for c in raw if c < 0x20 and c not in (0x0A,)})
    if bad:
        fail("raw control bytes %s" % bad)


def check_times(svg_el, r):
    groups = [g for g in svg_el.iter("g") if "region" in cls(g)]
    if len(groups) != len(r["timing"]):
        fail("rank %d times: %d region groups, expected %d" % (r["rank"], len(groups), len(r["timing"])))
        return
    by_title = {}
    for reg in r["timing"]:
        by_title.setdefault(display(reg["tag"], 400), []).append(reg)
    last = None
    ratio = None
    for g in groups:
        title = g.find("title")
        t = text_of(title) if title is not None else None
        if t not in by_title or not by_title[t]:
            fail("rank %d times: group title %r is no timing region's tag" % (r["rank"], t))
            continue
        # equal totals: any of the tags' regions (ties keep file order)
        reg = by_title[t].pop(0)
        total = sum(reg["totals"])
        if last is not None and total > last:
            fail("rank %d times: %r (total %d) after a cheaper region: expected costliest first"
                 % (r["rank"], t, total))
        last = total
        rects = g.findall("rect")
        if len(rects) != len(reg["threads"]):
            fail("rank %d times: %r has %d bars, expected %d (one per thread)"
                 % (r["rank"], t, len(rects), len(reg["threads"])))
            continue
        for rect, tot in zip(rects, reg["totals"]):
            w = float(rect.get("width"))
            if tot > 0 and w > 2:
                q = w / tot
                if ratio is None:
                    ratio = q
                elif abs(q / ratio - 1) > 0.02 and abs(w - ratio * tot) > 0.2:
                    fail("rank %d times: bar width %g for %d ns: not proportional" % (r["rank"], w, tot))
        labels = [text_of(x) for x in g.findall("text") if "tl" in cls(x)]
        want = ["tid %d" % t for t in reg["threads"]]
        if labels != want:
            fail("rank %d times: thread labels %s, expected %s" % (r["rank"], labels, want))


def expected_drawn(ranks, cap):
    """Per (rank index, region index): (calls surely drawn, calls maybe
    drawn) under 'the cap longest, ties in file order'."""
    allc = [d for r in ranks for reg in r["timing"] for d in reg["durs"]]
    out = {}
    if len(allc) <= cap:
        for i, r in enumerate(ranks):
            for reg in r["timing"]:
                out[(i, reg["idx"])] = (len(reg["durs"]), len(reg["durs"]))
        return out
    cut = sorted(allc, reverse=True)[cap - 1] if cap else None
    for i, r in enumerate(ranks):
        for reg in r["timing"]:
            if cut is None:
                out[(i, reg["idx"])] = (0, 0)
            else:
                out[(i, reg["idx"])] = (sum(d > cut for d in reg["durs"]), sum(d >= cut for d in reg["durs"]))
    return out


def check_timeline(svg_el, r, ri, exp):
    calls = [g for g in svg_el.iter("g") if "calls" in cls(g)]
    if len(calls) != 1:
        fail("rank %d timeline: %d <g class=calls>, expected 1" % (r["rank"], len(calls)))
        return 0
    per_title = {}
    n = 0
    for g in calls[0].findall("g"):
        t = text_of(g.find("title"))
        k = len(g.findall("rect"))
        per_title[t] = per_title.get(t, 0) + k
        n += k
    for reg in r["timing"]:
        lo, hi = exp[(ri, reg["idx"])]
        got = per_title.get(display(reg["tag"], 400), 0)
        if not lo <= got <= hi:
            fail("rank %d timeline: %d calls of %r drawn, expected %s"
                 % (r["rank"], got, reg["tag"][:40], lo if lo == hi else "%d..%d" % (lo, hi)))
    rows = {t for reg in r["timing"] for t in reg["call_threads"]}
    labels = [text_of(x) for x in svg_el.iter("text") if "tl" in cls(x)]
    if labels != ["tid %d" % t for t in sorted(rows)]:
        fail("rank %d timeline: rows %s, expected one per thread %s" % (r["rank"], labels, sorted(rows)))
    legend = [g for g in svg_el.iter("g") if "legend" in cls(g)]
    if len(legend) != 1 or (n and not legend[0].findall(".//rect")):
        fail("rank %d timeline: no legend" % r["rank"])
    elif len(legend[0].findall(".//rect")) > 60:
        fail("rank %d timeline: legend of %d entries, expected at most 60" % (r["rank"], len(legend[0].findall(".//rect"))))
    else:
        drawn_titles = {t for t, k in per_title.items() if k}
        for g in legend[0].findall("g"):
            t = text_of(g.find("title"))
            if t not in drawn_titles:
                fail("rank %d timeline: legend entry %r has no drawn call" % (r["rank"], t[:40]))
            rc = cls(g.find("rect"))
            if not rc or not rc[0].startswith("c"):
                fail("rank %d timeline: legend swatch without colour class" % r["rank"])
    return n


def check_metric(svg_el, r, metric):
    want = [reg for reg in r["likwid"] if has_metric(reg, metric)]
    groups = [g for g in svg_el.iter("g") if "region" in cls(g)]
    if len(groups) != len(want):
        fail("rank %d metric %r: %d region groups, expected %d" % (r["rank"], metric, len(groups), len(want)))
        return
    nrect = sum(len(g.findall("rect")) for g in groups)
    if nrect != sum(len(reg["cpus"]) for reg in want):
        fail("rank %d metric: %d bars, expected %d (one per region and thread)"
             % (r["rank"], nrect, sum(len(reg["cpus"]) for reg in want)))
    order = show_order(r)
    want = [reg for reg in order if has_metric(reg, metric)]
    for g, reg in zip(groups, want):
        got = values_of(g)
        exp = [v for v in reg["rows"][metric]]
        if len(got) != len(exp) or not all(close(a, b) for a, b in zip(got, exp)):
            fail("rank %d metric %r, region %r: values %s, expected %s"
                 % (r["rank"], metric, reg["tag"][:40], got, exp))


PER_RANK = ("times", "timeline", "metric")
ROOF_FLOP, ROOF_BW = "[MFLOP/s]", "Memory bandwidth [MBytes/s]"


def axis(ranks):
    """The common clock: (offset per rank index, t0, t1); t0 None: no call."""
    unix = bool(ranks) and all(r["origin"] != 0 for r in ranks)
    offs = [r["origin"] if unix else 0 for r in ranks]
    starts = [min(min(reg["starts"]) for reg in r["timing"] if reg["starts"]) + o
              for r, o in zip(ranks, offs) if any(reg["starts"] for reg in r["timing"])]
    ends = [max(max(reg["ends"]) for reg in r["timing"] if reg["ends"]) + o
            for r, o in zip(ranks, offs) if any(reg["ends"] for reg in r["timing"])]
    return offs, (min(starts) if starts else None), (max(ends) if ends else None)


def groups_of(chart):
    return [g for g in chart.iter("g") if "region" in cls(g)]


def titled_groups(chart, want, what):
    """The chart's region groups when their titles are want's first items
    in order, else None (and a failure)."""
    groups = groups_of(chart)
    if [text_of(g.find("title")) for g in groups] != [w[0] for w in want]:
        fail("%s: regions %s, expected %s" % (what, [text_of(g.find("title"))[:30] for g in groups],
                                              [w[0][:30] for w in want]))
        return None
    return groups


def check_stat_groups(chart, want, what):
    """want: [(title, [max, mean, min], n, rank of the first max)] in chart order."""
    groups = titled_groups(chart, want, what)
    if groups is None:
        return
    for g, (title, exp, n, max_rank) in zip(groups, want):
        labels = [text_of(t) for t in g.findall("text") if "tl" in cls(t)]
        if labels != ["max (rank %d)" % max_rank, "mean", "min"]:
            fail("%s, %r: labels %s, expected max (rank %d), mean, min" % (what, title[:30], labels, max_rank))
        got = values_of(g)
        if len(got) != 3 or not all(close(a, b) for a, b in zip(got, exp)):
            fail("%s, %r: max/mean/min %s, expected %s" % (what, title[:30], got, exp))
        imb = (exp[0] - exp[1]) / exp[0] * 100 if exp[0] > 0 else float("nan")
        imb = 0.0 if abs(imb) < 1e-7 else imb   # equal values, the mean rounded
        notes = [text_of(t) for t in g.findall("text") if "v" in cls(t)]
        m = re.search(r"imbalance (\S+)%", notes[0]) if notes else None
        if not m or not close(float(m.group(1)), imb):
            fail("%s, %r: imbalance %s, expected %.4g%%" % (what, title[:30], notes[:1], imb))
        if len(notes) < 2 or ("(%d " % n) not in notes[1]:
            fail("%s, %r: count %s, expected %d" % (what, title[:30], notes[1:2], n))


def stats(vr):
    """[max, mean, min], count, the rank of the first max of [(value, rank)]."""
    v = [x for x, _ in vr]
    top = max(v)
    return [top, sum(v) / len(v), min(v)], len(v), next(r for x, r in vr if x == top)


def check_summary(chart, ranks):
    per = {}
    order = []
    for r in ranks:
        for reg in r["timing"]:
            if reg["tag"] not in per:
                per[reg["tag"]] = []
                order.append(reg["tag"])
            per[reg["tag"]].append((sum(reg["totals"]) / 1e6, r["rank"]))
    order.sort(key=lambda t: -sum(v for v, _ in per[t]))
    want = [(display(t, 400), *stats(per[t])) for t in order]
    check_stat_groups(chart, want, "summary")


def check_summary_metric(chart, ranks, metric):
    per = {}
    order = []
    for r in ranks:
        for reg in r["likwid"]:
            if not has_metric(reg, metric):
                continue
            k = (reg["tag"], reg["group_id"])
            if k not in per:
                per[k] = []
                order.append(k)
            per[k] += [(v, r["rank"]) for v in reg["rows"][metric] if np.isfinite(v)]
    order = [k for k in order if per[k]]
    want = []
    for k in order:
        gname = next(reg["group_name"] for r in ranks for reg in r["likwid"] if (reg["tag"], reg["group_id"]) == k)
        title = display(k[0], 400) + (" [%s]" % text(gname) if gname else "")
        want.append((title, *stats(per[k])))
    check_stat_groups(chart, want, "summary %r" % metric)


def check_spans(chart, ranks):
    offs, t0, t1 = axis(ranks)
    rects = [x for x in chart.iter("rect") if "span" in cls(x)]
    with_calls = [(r, o) for r, o in zip(ranks, offs) if any(reg["starts"] for reg in r["timing"])]
    if len(rects) != len(with_calls):
        fail("spans: %d rects, expected one per rank with calls (%d)" % (len(rects), len(with_calls)))
        return
    xs = []
    for rect, (r, o) in zip(rects, with_calls):
        a = min(min(reg["starts"]) for reg in r["timing"] if reg["starts"]) + o
        z = max(max(reg["ends"]) for reg in r["timing"] if reg["ends"]) + o
        want = "rank %d: %.3f to %.3f ms" % (r["rank"], (a - t0) / 1e6, (z - t0) / 1e6)
        got = text_of(rect.find("title"))
        if got != want:
            fail("spans: %r, expected %r" % (got, want))
        xs.append((float(rect.get("x")), (a - t0) / max(t1 - t0, 1), float(rect.get("width")),
                   (z - a) / max(t1 - t0, 1)))
    # one scale for all ranks: x and width linear in time
    x0 = min(x for x, f, _, _ in xs if f == min(q for _, q, _, _ in xs))
    full = max(x + w for x, _, w, _ in xs) - x0
    for x, f, w, g in xs:
        if abs((x - x0) - f * full) > 1.0 or abs(w - max(g * full, 0.5)) > 1.0:
            fail("spans: rect at x %.1f width %.1f, expected %.1f, %.1f on one axis"
                 % (x, w, x0 + f * full, g * full))


def check_timeline_axis(chart, r, off, t0, t1, x_from, x_to):
    """The rank's calls sit on the file's common axis: its earliest drawn
    call at x_from + (start + off - t0) scaled to the chart's width."""
    rects = [x for g in chart.iter("g") if "calls" in cls(g) for x in g.iter("rect")]
    if not rects:
        return
    first = min(a for reg in r["timing"] for a in reg["starts"]) + off
    want = x_from + (first - t0) / max(t1 - t0, 1) * (x_to - x_from)
    got = min(float(x.get("x")) for x in rects)
    if abs(got - want) > 1.0:
        fail("rank %d timeline: first call at x %.1f, expected %.1f (the file's common axis)"
             % (r["rank"], got, want))


def roofline_points(ranks):
    flop = next((m for r in ranks for reg in show_order(r) for m in reg["metrics"] if ROOF_FLOP in m), None)
    bw = next((m for r in ranks for reg in show_order(r) for m in reg["metrics"] if ROOF_BW in m), None)
    if not flop or not bw:
        return None
    sums, order = {}, []
    for r in ranks:
        for reg in r["likwid"]:
            if reg["tag"] not in sums:
                sums[reg["tag"]] = [0.0, 0.0, 0, 0]
                order.append(reg["tag"])
            for i, name in enumerate((flop, bw)):
                if name in reg["rows"]:
                    vals = [v for v in reg["rows"][name] if np.isfinite(v)]
                    sums[reg["tag"]][i] += sum(vals)
                    sums[reg["tag"]][2 + i] += len(vals)
    return [(t, sums[t][0], sums[t][1]) for t in order
            if sums[t][2] and sums[t][3] and sums[t][0] > 0 and sums[t][1] > 0]


def check_roofline(chart, ranks):
    want = roofline_points(ranks)
    pts = [g for g in chart.iter("g") if "point" in cls(g)]
    if len(pts) != len(want):
        fail("roofline: %d points, expected %d" % (len(pts), len(want)))
        return
    for g, (tag, f, m) in zip(pts, want):
        title = text_of(g.find("title"))
        head, _, nums = title.partition("\n")
        got = re.findall(r"([-0-9.e+]+) ", nums)
        if head != display(tag, 400) or len(got) != 3 or not (
                close(float(got[0]), f / m) and close(float(got[1]), f) and close(float(got[2]), m)):
            fail("roofline: point %r, expected %r: %s FLOP/byte, %s MFLOP/s, %s MBytes/s"
                 % (title[:120], tag[:40], f / m, f, m))
        if len(g.findall("circle")) != 1:
            fail("roofline: point %r without exactly one circle" % tag[:40])


def want_kinds(ranks, metrics, svg):
    want = []
    if len(ranks) > 1:
        if axis(ranks)[1] is not None:
            want.append("spans")
        if any(r["timing"] for r in ranks):
            want.append("summary")
        for m in metrics:
            if any(has_metric(reg, m) and any(np.isfinite(v) for v in reg["rows"][m])
                   for r in ranks for reg in r["likwid"]):
                want.append("summary-metric")
    if roofline_points(ranks):
        want.append("roofline")
    for r in ranks:
        if r["timing"]:
            want.append("times")
        if any(reg["durs"] for reg in r["timing"]):
            want.append("timeline")
        for m in metrics:
            if any(has_metric(reg, m) for reg in r["likwid"]):
                want.append("metric")
    return want


def check_file(root, ranks, h5, svg, cap, metrics):
    """One file's report (the whole report, or a file's section)."""
    charts = [el for el in root.iter("svg") if "chart" in cls(el)]
    kinds = [cls(el)[1] for el in charts]
    want = want_kinds(ranks, metrics, svg)
    if kinds != want:
        fail("charts %s, expected %s" % (kinds, want))
        return
    offs, t0, t1 = axis(ranks)
    k = 0
    if len(ranks) > 1:
        if t0 is not None:
            check_spans(charts[k], ranks)
            k += 1
        if any(r["timing"] for r in ranks):
            check_summary(charts[k], ranks)
            k += 1
        for m in metrics:
            if k < len(kinds) and kinds[k] == "summary-metric" and \
                    any(has_metric(reg, m) for r in ranks for reg in r["likwid"]):
                check_summary_metric(charts[k], ranks, m)
                k += 1
    if k < len(kinds) and kinds[k] == "roofline":
        check_roofline(charts[k], ranks)
        k += 1
    exp = expected_drawn(ranks, cap)
    drawn = 0
    for ri, r in enumerate(ranks):
        if r["timing"]:
            check_times(charts[k], r)
            k += 1
        if any(reg["durs"] for reg in r["timing"]):
            n = check_timeline(charts[k], r, ri, exp)
            rec = sum(len(reg["durs"]) for reg in r["timing"])
            if ("Drew %d of %d recorded calls" % (n, rec)) not in text_of(root):
                fail("rank %d timeline: no note 'Drew %d of %d recorded calls'" % (r["rank"], n, rec))
            if n == rec:
                check_timeline_axis(charts[k], r, offs[ri], t0, t1, 156.0, 1100.0 - 16)
            drawn += n
            k += 1
        for m in metrics:
            if any(has_metric(reg, m) for reg in r["likwid"]):
                check_metric(charts[k], r, m)
                k += 1
    total = sum(len(reg["durs"]) for r in ranks for reg in r["timing"])
    if drawn != min(total, cap):
        fail("timeline: %d calls drawn in all, expected min(%d calls, cap %d)" % (drawn, total, cap))
    check_origin(root, ranks, load_meta(h5), svg)
    alltext = text_of(root)
    for r in ranks:
        st = text(r["status"], 160 if svg else 0)
        if st not in alltext:
            fail("rank %d: likwid_status %r not in the header" % (r["rank"], st))
        if text(r["hostname"]) not in alltext:
            fail("rank %d: hostname %r not in the header" % (r["rank"], r["hostname"]))
        for m in metrics:
            if any(has_metric(reg, m) for reg in r["likwid"]) or r["has_likwid"]:
                if ("Counters: " + m) not in alltext:
                    fail("rank %d: no heading 'Counters: %s'" % (r["rank"], m))
    folded = [el for el in root.iter("details") if "rank" in cls(el)]
    if not svg and len(folded) != (len(ranks) if len(ranks) > 16 else 0):
        fail("%d ranks folded in <details>, expected %d (fold beyond 16 ranks)"
             % (len(folded), len(ranks) if len(ranks) > 16 else 0))
    for el, r in zip(folded, ranks):
        want = "Rank %d (group %s, mpi_rank %d" % (r["rank"], r["group"], r["mpi_rank"])
        got = text_of(el.find("summary")) if el.find("summary") is not None else ""
        if not got.startswith(want):
            fail("rank %d folded under %r, expected its title %r..." % (r["rank"], got[:60], want))


def check_compare(root, files, names, metrics):
    """The comparison charts: region time (sum over ranks and threads, ms)
    and per metric the mean over ranks and threads, a bar per file."""
    charts = [el for el in root.iter("svg") if "chart" in cls(el)]
    kinds = [cls(el)[1] for el in charts]
    nm = sum(1 for m in metrics if any(has_metric(reg, m) for ranks in files for r in ranks for reg in r["likwid"]))
    if kinds[:1 + nm] != ["compare"] + ["compare-metric"] * nm:
        fail("comparison charts %s, expected %s" % (kinds[:1 + nm], ["compare"] + ["compare-metric"] * nm))
        return
    note = "%d files compared: " % len(files) + ", ".join(
        "file %d %s%s" % (i + 1, text(n), " (the base)" if i == 0 else "") for i, n in enumerate(names))
    if note not in text_of(root):
        fail("no note %r" % note)
    tot, order = {}, []
    for f, ranks in enumerate(files):
        for r in ranks:
            for reg in r["timing"]:
                if reg["tag"] not in tot:
                    tot[reg["tag"]] = [None] * len(files)
                    order.append(reg["tag"])
                tot[reg["tag"]][f] = (tot[reg["tag"]][f] or 0) + sum(reg["totals"]) / 1e6
    order.sort(key=lambda t: -(tot[t][0] or 0))
    check_compare_chart(charts[0], [(display(t, 400), tot[t]) for t in order], "compare")
    k = 1
    for m in metrics:
        per, order = {}, []
        for f, ranks in enumerate(files):
            for r in ranks:
                for reg in r["likwid"]:
                    if not has_metric(reg, m):
                        continue
                    key = (reg["tag"], reg["group_id"])
                    if key not in per:
                        per[key] = ([[] for _ in files], reg["group_name"])
                        order.append(key)
                    per[key][0][f] += [v for v in reg["rows"][m] if np.isfinite(v)]
        if not order:
            continue
        want = [(display(key[0], 400) + (" [%s]" % text(per[key][1]) if per[key][1] else ""),
                 [sum(v) / len(v) if v else None for v in per[key][0]]) for key in order]
        check_compare_chart(charts[k], want, "compare %r" % m)
        k += 1


def check_compare_chart(chart, want, what):
    groups = titled_groups(chart, want, what)
    if groups is None:
        return
    for g, (title, vals) in zip(groups, want):
        got = values_of(g)
        rects = g.findall("rect")
        if [r.get("class") for r in rects] != ["f%d" % (i % 6) for i, v in enumerate(vals) if v is not None]:
            fail("%s, %r: bar classes %s: expected one per file with a value, f<file>"
                 % (what, title[:30], [r.get("class") for r in rects]))
        exp = [float("nan") if v is None else v for v in vals]
        if len(got) != len(exp) or not all(close(a, b) for a, b in zip(got, exp)):
            fail("%s, %r: values %s, expected %s" % (what, title[:30], got, exp))
            continue
        notes = [text_of(t) for t in g.findall("text") if "v" in cls(t)]
        for i in range(1, len(vals)):
            if vals[i] is None or not vals[0]:
                continue
            pct = (vals[i] - vals[0]) / abs(vals[0]) * 100
            m = re.search(r"\(([-+0-9.e]+)%\)", notes[i])
            if not m or not close(float(m.group(1)), pct):
                fail("%s, %r, file %d: change %r, expected %+.4g%%" % (what, title[:30], i + 1, notes[i], pct))


def main():
    args = sys.argv[1:]
    metrics, cap, svg, pos = [], 20000, False, []
    i = 0
    while i < len(args):
        if args[i] == "--metric":
            metrics.append(args[i + 1])
            i += 1
        elif args[i] == "--cap":
            cap = int(args[i + 1])
            i += 1
        elif args[i] == "--svg":
            svg = True
        else:
            pos.append(args[i])
        i += 1
    if len(pos) < 2:
        sys.exit(__doc__)
    report, h5s = pos[0], pos[1:]
    files = [load(h) for h in h5s]
    if not metrics:
        metrics = [default_metric(files)]
    raw = open(report, "rb").read()
    check_raw(raw, svg)
    try:
        root = strip_ns(ET.fromstring(raw))
    except ET.ParseError as e:
        fail("not well-formed XML: %s" % e)
        root = None
    if root is not None:
        if root.tag != ("svg" if svg else "html"):
            fail("root element <%s>, expected <%s>" % (root.tag, "svg" if svg else "html"))
        if len(files) == 1:
            check_file(root, files[0], h5s[0], svg, cap, metrics)
        else:
            check_compare(root, files, h5s, metrics)
            sections = [el for el in root.iter("section") if "file" in cls(el)]
            if svg:
                charts = [cls(el)[1] for el in root.iter("svg") if "chart" in cls(el)]
                want = [k for ranks in files for k in want_kinds(ranks, metrics, svg)]
                if [c for c in charts if not c.startswith("compare")] != want:
                    fail("files' charts %s, expected %s" % (charts, want))
            elif len(sections) != len(files):
                fail("%d file sections, expected %d" % (len(sections), len(files)))
            else:
                for sec, ranks, h5 in zip(sections, files, h5s):
                    check_file(sec, ranks, h5, svg, cap, metrics)
    for f in FAILS:
        print("check_plot: FAIL: %s" % f)
    if FAILS:
        return 1
    print("check_plot: ok (%d file%s, %d ranks, metrics %s)"
          % (len(files), "" if len(files) == 1 else "s", sum(len(r) for r in files), metrics))
    return 0


sys.exit(main())
