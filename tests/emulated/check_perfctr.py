#!/usr/bin/env python3
"""Check that a result file holds every value likwid-perfctr -m printed.

    check_perfctr.py PERFCTR_TXT RESULT_H5 --group NAME --groupfile FILE
                     [--group NAME --groupfile FILE]... [--regions A,B,...]
                     [--clock-tolerance R]

PERFCTR_TXT is likwid-perfctr's stdout of a marker-API run (LIKWID 5.2's
tables; several groups: one --group and --groupfile each, in -g order),
RESULT_H5 the shim's result file of the same run. For every region
table ("Region TAG, Group N: NAME") and every HWThread column:
  - Region Info: the RDTSC runtime ("%.6f") and the call count equal
    likwid/regions/<r>/times and call_counts of that CPU;
  - Event table: every (event, counter) row equals events[e, t] of the row
    whose event_names/counter_names are the same;
  - Metric table: every metric row equals metrics[m, t] of the same name.
"Equal" means: our value, formatted the way likwid-perfctr formats it
(likwid.lua's num2str), is the printed text. One exception, LIKWID's own:
a metric whose formula in the group file (FILE) uses inverseClock depends
on the CPU clock that each LIKWID process measures for itself when its timer
starts (rdtsc across a 0.5 s sleep), so likwid-perfctr's process and the
collector's differ by that measurement's noise (10% seen on a loaded
machine); those must agree within the relative tolerance R (default 0.25),
and all of them by one ratio: ours = printed * k for metrics with
inverseClock, printed / k for those with 1/inverseClock, one k for the run,
up to the printed rounding. The STAT tables are not compared: LIKWID
computes them from the printed per-thread strings, which are compared.
LIKWID 5.5.0 and 5.5.1 print a column for a thread that never ran a region
(its CPU shown as 0, call count 0): such a column is left out, its events
must be 0 or -22 (LIKWID's -EINVAL). The
sets must match too: the same regions, CPUs, events and metrics on both
sides. Written from the printed format, the group-file format and
docs/FORMAT.md, not from the project's code.
Exit 0 when all match, 1 otherwise (each difference on one line)."""
import argparse
import math
import sys

import h5py


def num2str(v):
    """likwid.lua's num2str: integral values as integers, else %.4f when
    that is short and not 0, else %e."""
    v = float(v)
    if v != v:
        return "nan"
    if v == 0:
        return "0"
    if math.isfinite(v) and v.is_integer() and abs(v) < 2**63:
        return str(int(v))
    f = "%.4f" % v
    if len(f) < 12 and (not math.isfinite(v) or float(f) != 0):
        return f
    return "%e" % v


def clock_metrics(path):
    """Names of the metrics whose formula uses inverseClock (a group file's
    METRICS section: one metric a line, the formula its last word)."""
    names = set()
    section = None
    for line in open(path, encoding="utf-8"):
        word = line.strip()
        if word in ("EVENTSET", "METRICS", "LONG"):
            section = word
            continue
        if section == "METRICS" and word:
            name, _, formula = word.rpartition(" ")
            if "inverseClock" in formula:
                names.add(name.strip())
    return names


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(path):
    """[(tag, group_name, {"info": rows, "event": rows, ...})]: each table
    as (header cells, [row cells])."""
    regions = []
    cur = None
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Region ") and ", Group " in line:
            head, _, group = line[len("Region "):].rpartition(", Group ")
            cur = {"tag": head, "group": group.split(":", 1)[1].strip(), "tables": []}
            regions.append(cur)
            i += 1
            continue
        if cur is not None and line.startswith("+-") and i + 2 < len(lines) and lines[i + 1].startswith("|"):
            header = cells(lines[i + 1])
            rows = []
            j = i + 3
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(cells(lines[j]))
                j += 1
            cur["tables"].append((header, rows))
            i = j + 1
            continue
        i += 1
    return regions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perfctr")
    ap.add_argument("result")
    ap.add_argument("--group", required=True, action="append")
    ap.add_argument("--groupfile", required=True, action="append")
    ap.add_argument("--regions", default=None, help="comma-separated tags that must be present")
    ap.add_argument("--clock-tolerance", type=float, default=0.25)
    a = ap.parse_args()
    if len(a.group) != len(a.groupfile):
        ap.error("one --groupfile per --group")
    by_clock = {g: clock_metrics(f) for g, f in zip(a.group, a.groupfile)}
    worst_clock = 0.0
    clock_pairs = []  # (what, ours, printed, printed ulp) of inverseClock metrics

    def printed_text(p, ulp):
        return "%.*f" % (max(0, -int(round(math.log10(ulp)))), p)

    errors = []
    compared = 0
    placeholders = 0

    def err(msg):
        errors.append(msg)

    def same(what, ours, printed):
        nonlocal compared
        compared += 1
        if ours != printed:
            err("%s: likwid-perfctr printed %r, result file has %r" % (what, printed, ours))

    def near(what, ours, printed):
        nonlocal compared, worst_clock
        compared += 1
        try:
            p = float(printed)
        except ValueError:
            err("%s: likwid-perfctr printed %r: expected a number" % (what, printed))
            return
        # the printed text is rounded: half its last digit is no difference
        mant, _, exp = printed.lower().partition("e")
        ulp = 10.0 ** ((int(exp) if exp else 0) - (len(mant.partition(".")[2])))
        dev = max(0.0, abs(float(ours) - p) - ulp / 2) / max(abs(p), 1e-300)
        worst_clock = max(worst_clock, dev)
        if not dev <= a.clock_tolerance:
            err("%s (uses inverseClock): likwid-perfctr printed %r, result file has %r: more than %g apart"
                % (what, printed, num2str(ours), a.clock_tolerance))
        elif p != 0:
            clock_pairs.append((what, float(ours), p, ulp))

    def same_clock_ratio():
        """Each process measured one clock: every inverseClock metric of ours
        is the printed one times k (metrics with inverseClock) or divided
        by k (metrics with 1/inverseClock), one k for the whole run, up to
        the printed rounding."""
        if not clock_pairs:
            return None
        _, o0, p0, u0 = min(clock_pairs, key=lambda x: x[3] / abs(x[2]))
        k = o0 / p0
        rel0 = u0 / 2 / abs(p0)  # how well the printed text fixes k
        for what, o, p, ulp in clock_pairs:
            slack = (ulp / 2) * max(k, 1 / k) + abs(o) * (2 * rel0 + 1e-12)
            if min(abs(o - p * k), abs(o - p / k)) > slack:
                err("%s (uses inverseClock): result file has %r, likwid-perfctr printed %r: not the "
                    "run's clock ratio %.9g (nor its inverse) times it" % (what, o, printed_text(p, ulp), k))
        return k

    printed = parse(a.perfctr)
    if not printed:
        print("check_perfctr: %s: no 'Region TAG, Group N: NAME' table: expected likwid-perfctr -m output" % a.perfctr)
        return 1
    f = h5py.File(a.result, "r")
    if "rank0/likwid/regions" not in f:
        print("check_perfctr: %s: no rank0/likwid/regions: expected counters from LIKWID" % a.result)
        return 1
    ours = {}
    for name, g in f["rank0/likwid/regions"].items():
        key = (g.attrs["tag"], g.attrs["group_name"])
        if key in ours:
            err("%s: two regions for tag %r group %r" % (a.result, key[0], key[1]))
        ours[key] = g
    seen = set()
    for reg in printed:
        key = (reg["tag"], reg["group"])
        where = "region %r group %s" % key
        if reg["group"] not in a.group:
            err("%s: likwid-perfctr printed group %s: expected %s" % (where, reg["group"], " or ".join(a.group)))
            continue
        if key not in ours:
            err("%s: printed by likwid-perfctr, not in %s" % (where, a.result))
            continue
        seen.add(key)
        g = ours[key]
        cpus = [int(c) for c in g["cpus"][()]]
        times = g["times"][()]
        counts = g["call_counts"][()]
        events = g["events"][()]
        metrics = g["metrics"][()]
        enames = [str(x) for x in g.attrs["event_names"]]
        cnames = [str(x) for x in g.attrs["counter_names"]]
        mnames = [str(x) for x in g.attrs["metric_names"]]
        kinds = set()
        # LIKWID 5.5.0/5.5.1 print a column for a thread that never ran the
        # region ("HWThread 0" again, call count 0, every event 0 or -22,
        # its -EINVAL): not a thread of the region
        ph = set()
        for header, rows in reg["tables"]:
            if header[0] == "Region Info":
                for row in rows:
                    if row[0] == "call count":
                        ph = {i for i, c in enumerate(row[1:]) if c == "0"}
        placeholders += len(ph)
        for header, rows in reg["tables"]:
            kind = header[0]
            if "Sum" in header:
                continue  # a STAT table: computed from the printed per-thread values
            off = 2 if kind == "Event" else 1
            for row in rows:
                if kind == "Event" and any(row[off + i] not in ("0", "-22") for i in ph):
                    err("%s: %s: a column of call count 0 holds %r: expected 0 or -22" % (where, row[0], row))
            header = [c for i, c in enumerate(header) if i - off not in ph]
            rows = [[c for i, c in enumerate(row) if i - off not in ph] for row in rows]
            cols = header[2:] if kind == "Event" else header[1:]
            try:
                col_cpus = [int(c.split()[1]) for c in cols]
            except (IndexError, ValueError):
                err("%s: table %r: columns %r: expected 'HWThread N'" % (where, kind, cols))
                continue
            if sorted(col_cpus) != sorted(cpus):
                err("%s: table %r: HWThreads %r, result file cpus %r" % (where, kind, col_cpus, cpus))
                continue
            tcol = [cpus.index(c) for c in col_cpus]
            kinds.add(kind)

            def per_thread(values, what, row, by_clock=False):
                for k, p in zip(tcol, row):
                    label = "%s: %s HWThread %d" % (where, what, cpus[k])
                    if by_clock:
                        near(label, values[k], p)
                    else:
                        same(label, num2str(values[k]), p)

            if kind == "Region Info":
                for row in rows:
                    if row[0] == "RDTSC Runtime [s]":
                        for k, p in zip(tcol, row[1:]):
                            same("%s: runtime HWThread %d" % (where, cpus[k]), "%.6f" % times[k], p)
                    elif row[0] == "call count":
                        for k, p in zip(tcol, row[1:]):
                            same("%s: call count HWThread %d" % (where, cpus[k]), str(int(counts[k])), p)
                    else:
                        err("%s: Region Info row %r: unknown" % (where, row[0]))
            elif kind == "Event":
                printed_rows = set()
                for row in rows:
                    ev = row[0]
                    match = [e for e in range(len(enames)) if enames[e] == ev and cnames[e] == row[1]]
                    if len(match) != 1:
                        err("%s: event %s on %s: %d rows in the result file, expected 1" % (where, ev, row[1], len(match)))
                        continue
                    printed_rows.add(match[0])
                    per_thread(events[match[0]], "%s:%s" % (ev, row[1]), row[2:])
                missing = set(range(len(enames))) - printed_rows
                if missing:
                    err("%s: %s table lacks the result file's events %s" % (where, kind, sorted(enames[e] for e in missing)))
            elif kind == "Metric":
                printed_rows = set()
                for row in rows:
                    mn = row[0]
                    match = [m for m in range(len(mnames)) if mnames[m] == mn]
                    if len(match) != 1:
                        err("%s: metric %r: %d in the result file, expected 1" % (where, mn, len(match)))
                        continue
                    printed_rows.add(match[0])
                    per_thread(metrics[match[0]], "metric %r" % mn, row[1:], mn in by_clock[reg["group"]])
                missing = set(range(len(mnames))) - printed_rows
                if missing:
                    err("%s: %s table lacks the result file's metrics %s" % (where, kind, sorted(mnames[m] for m in missing)))
            else:
                err("%s: table %r: unknown" % (where, kind))
        for need in ("Region Info", "Event", "Metric"):
            if need not in kinds:
                err("%s: no %s table printed" % (where, need))
    for key in ours:
        if key not in seen:
            err("region %r group %s: in %s, not printed by likwid-perfctr" % (key[0], key[1], a.result))
    if a.regions:
        for tag in a.regions.split(","):
            if not any((tag, g) in seen for g in a.group):
                err("region %r: expected, not found on both sides" % tag)
    k = same_clock_ratio()
    if errors:
        for e in errors[:40]:
            print("check_perfctr: " + e)
        print("check_perfctr: FAIL: %d differences (%d values compared)" % (len(errors), compared))
        return 1
    print("check_perfctr: %d values equal in %d regions (%s; metrics with inverseClock within %.2g%%, "
          "all by one clock ratio %s)%s" % (compared, len(seen), ", ".join(a.group), 100 * worst_clock,
                                            "%.6f" % k if k else "-",
                                            "; %d columns of call count 0 (LIKWID 5.5.0/5.5.1's "
                                            "threads without the region) left out" % placeholders
                                            if placeholders else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
