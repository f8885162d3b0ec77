#!/usr/bin/env python3
"""Checks a report of `scope-likwid plot` against its result file (read with
h5py, independently of scope-likwid's reader).

usage: check_plot.py REPORT FILE.h5 [--svg] [--cap N] [--metric NAME]
Exit 0: all checks pass; 1: a check failed (each failure on one line);
77: h5py missing.
Checks: the report is well-formed XML (the whole file; so is every <svg>
in it), valid UTF-8, has no script, no URL (the standalone SVG: only its
namespace), no raw control byte; per rank, in rank order: the header
shows likwid_status and the host; the region-time chart has one group per
timing region, costliest first, titled with the exact (escaped) tag, one
rect per thread, widths proportional to the totals; the timeline draws
min(calls, cap) rects in the whole report, the longest ones, one row per
thread; the metric chart has one group per LIKWID region holding the metric
and one rect per thread of it.
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
            tr = g["timing/regions"]
            for idx, k in enumerate(tr):
                x = tr[k]
                r["timing"].append({
                    "idx": idx, "tag": s(x.attrs["tag"]),
                    "threads": [int(v) for v in x["threads"][()]],
                    "totals": [int(v) for v in x["total_ns"][()]],
                    "call_threads": [int(v) for v in x["call_threads"][()]],
                    "durs": [max(int(b) - int(a), 0) for a, b in zip(x["start_times"][()], x["end_times"][()])],
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
                    })
            r["has_likwid"] = "likwid" in g
            ranks.append(r)
    return ranks


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


def default_metric(ranks):
    for r in ranks:
        order = sorted(r["likwid"], key=lambda x: (x["group_id"],
                                                   -sum(t for t in x["times"] if np.isfinite(t))))
        for reg in order:
            if reg["metrics"]:
                return reg["metrics"][0]
    return "runtime"


def has_metric(reg, m):
    return m in reg["metrics"] or m in reg["labels"] or m in ("runtime", "call count")


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


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    report, h5 = args[0], args[1]
    svg = "--svg" in args
    cap = int(args[args.index("--cap") + 1]) if "--cap" in args else 20000
    ranks = load(h5)
    metric = args[args.index("--metric") + 1] if "--metric" in args else default_metric(ranks)
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
        charts = [el for el in root.iter("svg") if "chart" in cls(el)]
        kinds = [cls(el)[1] for el in charts]
        want = []
        exp = expected_drawn(ranks, cap)
        for ri, r in enumerate(ranks):
            if r["timing"]:
                want.append("times")
            if any(reg["durs"] for reg in r["timing"]):
                want.append("timeline")
            if any(has_metric(reg, metric) for reg in r["likwid"]):
                want.append("metric")
        if kinds != want:
            fail("charts %s, expected %s" % (kinds, want))
        else:
            k = 0
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
                    drawn += n
                    k += 1
                if any(has_metric(reg, metric) for reg in r["likwid"]):
                    check_metric(charts[k], r, metric)
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
            if any(has_metric(reg, metric) for reg in r["likwid"]) or r["has_likwid"]:
                if ("Counters: " + metric) not in alltext:
                    fail("rank %d: no heading 'Counters: %s'" % (r["rank"], metric))
    for f in FAILS:
        print("check_plot: FAIL: %s" % f)
    if FAILS:
        return 1
    print("check_plot: ok (%d ranks, metric %r)" % (len(ranks), metric))
    return 0


sys.exit(main())
