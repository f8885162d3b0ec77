#!/usr/bin/env python3
"""Check that the rank files hold every value likwid-mpirun -m printed.

    check_mpirun.py MPIRUN_TXT --group NAME --groupfile FILE [--named R,...]
                    RANKFILE...

MPIRUN_TXT is likwid-mpirun's stdout (LIKWID 5.2: per region "Region: TAG",
"Group: N", an Event and a Metric table with a column per "host:rank:cpu"),
RANKFILE the shim's files of the ranks (rank<R> inside). likwid-mpirun reads
the CSV files its likwid-perfctr processes wrote (values as likwid.lua's
num2str formats them, the runtime "%.6f", the clock each measured) and
prints them again. For every region and column:
  - "Region calls" and every event: the file's value of that rank, region
    and CPU, formatted twice as LIKWID formats it, is the printed text. An
    event the rank did not count (likwid-mpirun hands a socket's uncore
    counters to one rank and prints 0 for the others) must be printed 0,
    absent from the file, and the file's likwid_status must say why;
  - every metric without inverseClock in its formula (FILE): evaluated here
    (Python's arithmetic) on the printed values and the runtime rounded to
    the microsecond it gives the printed value (to its last printed digit),
    and on the file's own values the file's metric (relative 1e-9): the
    file's metric is the printed one but for likwid-mpirun's rounding;
  - every metric with inverseClock: each likwid-perfctr and each collector
    measured the clock itself, so within 25% and all of one rank by one
    ratio (ours = printed * k, or printed / k for 1/inverseClock), as
    check_perfctr.py;
  - a metric the file lacks: its likwid_status names it as left out.
The group: NAME in every rank of --named; in the others NAME, or "Custom"
with a status saying the events fit NAME among other groups. And the same
sets: every region, CPU, event and metric of the files was printed.
Written from the printed format and the group-file format, not from the
project's code. Exit 0 when all match, 1 otherwise (one line each)."""
import argparse
import math
import os
import re
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_perfctr import cells, num2str  # noqa: E402


def group_file(path):
    """[(counter, event)], [(metric name, formula)] as LIKWID reads them."""
    ev, me, sec = [], [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        words = line.split()
        if line.startswith("#"):
            continue
        if words and words[0] in ("SHORT", "EVENTSET", "METRICS", "LONG", "LUA"):
            sec = words[0]
        elif not words:
            sec = None
        elif sec == "EVENTSET":
            ev.append((words[0], words[1]))
        elif sec == "METRICS":
            me.append((" ".join(words[:-1]), words[-1]))
    return ev, me


def evaluate(formula, env):
    """The names replaced by their values, longest first (as LIKWID's
    calculator does); a division by zero is 0, as likwid-mpirun prints it."""
    expr = formula
    for name in sorted(env, key=len, reverse=True):
        expr = expr.replace(name, "(%r)" % float(env[name]))
    if re.search(r"[A-Za-z_]", re.sub(r"\d+\.?\d*([eE][+-]?\d+)?", "0", expr)):
        raise ValueError("%s: a name without a value" % formula)
    try:
        return float(eval(expr.replace("^", "**"), {"__builtins__": {}}))
    except ZeroDivisionError:
        return 0.0


def parse(path):
    """{(tag, group index): {"event": (header, rows), "metric": ...}}"""
    out = {}
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    tag, gid, i = None, None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Region: "):
            tag, gid = line[len("Region: "):], None
        elif line.startswith("Group: ") and tag is not None:
            gid = int(line.split()[1])
        elif line.startswith("+-") and i + 2 < len(lines) and lines[i + 1].startswith("|") and gid is not None:
            header = cells(lines[i + 1])
            rows, j = [], i + 3
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(cells(lines[j]))
                j += 1
            if "Sum" not in header:  # STAT tables: computed from the printed values
                out.setdefault((tag, gid), {})[header[0].lower()] = (header, rows)
            i = j
        i += 1
    return out


def ulp(text):
    mant, _, exp = text.lower().partition("e")
    return 10.0 ** ((int(exp) if exp else 0) - len(mant.partition(".")[2]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mpirun")
    ap.add_argument("ranks", nargs="+")
    ap.add_argument("--group", required=True)
    ap.add_argument("--groupfile", required=True)
    ap.add_argument("--named", default="")
    a = ap.parse_args()
    _, gmetrics = group_file(a.groupfile)
    formula = dict(gmetrics)
    named = {int(r) for r in a.named.split(",") if r}
    errors, compared = [], [0]
    err = errors.append

    files = {}
    for path in a.ranks:
        f = h5py.File(path, "r")
        groups = [k for k in f if k.startswith("rank")]
        if len(groups) != 1:
            err("%s: %d rank groups: expected one" % (path, len(groups)))
            continue
        files[int(groups[0][4:])] = f[groups[0]]

    printed = parse(a.mpirun)
    if not printed:
        print("check_mpirun: %s: no 'Region: TAG' tables: expected likwid-mpirun -m output" % a.mpirun)
        return 1
    clock_pairs = {}  # rank -> [(what, ours, printed, ulp, inverse)]
    seen = set()
    for (tag, gid), tables in sorted(printed.items()):
        if "event" not in tables or "metric" not in tables:
            err("region %r group %d: no Event or Metric table printed" % (tag, gid))
            continue
        eh, erows = tables["event"]
        mh, mrows = tables["metric"]
        for col, where in enumerate(eh[2:]):
            host, rank, cpu = where.rsplit(":", 2)
            rank, cpu = int(rank), int(cpu)
            label = "region %r rank %d CPU %d" % (tag, rank, cpu)
            if rank not in files:
                err("%s: printed, no rank file" % label)
                continue
            r = files[rank]
            status = str(r.attrs["likwid_status"])
            regs = [g for g in r["likwid/regions"].values()
                    if g.attrs["tag"] == tag and int(g.attrs["group_id"]) == gid - 1]
            if len(regs) != 1:
                err("%s: %d regions in the rank file: expected 1" % (label, len(regs)))
                continue
            g = regs[0]
            seen.add((rank, g.name))
            cpus = [int(c) for c in g["cpus"][()]]
            if cpu not in cpus:
                err("%s: not among the file's CPUs %r" % (label, cpus))
                continue
            t = cpus.index(cpu)
            gname = str(g.attrs["group_name"])
            if rank in named and gname != a.group:
                err("%s: group %r: expected %s (recognised from its events)" % (label, gname, a.group))
            elif gname != a.group and not (gname == "Custom" and "not named" in status and a.group in status):
                err("%s: group %r, status %r: expected %s, or Custom and a status naming it"
                    % (label, gname, status, a.group))
            enames = [str(x) for x in g.attrs["event_names"]]
            cnames = [str(x) for x in g.attrs["counter_names"]]
            events = g["events"][()]
            env = {"time": float("%.6f" % g["times"][t])}
            exact = {"time": float(g["times"][t])}
            counted = set()
            for row in erows:
                p = row[2 + col]
                compared[0] += 1
                if row[1] == "CTR":
                    if str(int(g["call_counts"][t])) != p:
                        err("%s: calls: printed %s, file %d" % (label, p, g["call_counts"][t]))
                    continue
                m = [e for e in range(len(enames)) if enames[e] == row[0] and cnames[e] == row[1]]
                env[row[1]] = exact[row[1]] = 0.0
                if not m:
                    if p != "0" or "does not hand every rank" not in status:
                        err("%s: %s:%s printed %s, not in the file (status %r): expected 0 and a "
                            "status saying why" % (label, row[0], row[1], p, status))
                    continue
                counted.add(m[0])
                v = float(events[m[0]][t])
                want = num2str(float(num2str(v)))
                if want != p:
                    err("%s: %s:%s printed %s, file %r (%s)" % (label, row[0], row[1], p, v, want))
                env[row[1]] = float(num2str(v))
                exact[row[1]] = v
            if counted != set(range(len(enames))):
                err("%s: file events %r not printed" % (label, sorted(set(enames) - {enames[e] for e in counted})))
            mnames = [str(x) for x in g.attrs["metric_names"]]
            metrics = g["metrics"][()]
            printed_m = set()
            for row in mrows:
                name, p = row[0], row[1 + col]
                compared[0] += 1
                printed_m.add(name)
                if name not in mnames:
                    if "left out: " not in status or (name + " (") not in status.split("left out: ", 1)[1]:
                        err("%s: metric %r printed %s, not in the file nor left out in its status %r"
                            % (label, name, p, status))
                    continue
                v = float(metrics[mnames.index(name)][t])
                f = formula.get(name)
                if f is None:
                    err("%s: metric %r: not in %s" % (label, name, a.groupfile))
                elif "inverseClock" in f:
                    pv = float(p)
                    dev = abs(v - pv) / max(abs(pv), 1e-300)
                    if dev > 0.25 + ulp(p) / max(abs(pv), 1e-300):
                        err("%s: metric %r (inverseClock): printed %s, file %r: more than 25%% apart"
                            % (label, name, p, v))
                    elif pv:
                        clock_pairs.setdefault(rank, []).append(
                            ("%s: metric %r" % (label, name), v, pv, ulp(p)))
                else:
                    mine = evaluate(f, env)
                    if abs(mine - float(p)) > ulp(p):
                        err("%s: metric %r: printed %s, from the printed values %r" % (label, name, p, mine))
                    want = evaluate(f, exact)
                    if abs(v - want) > 1e-9 * abs(want) + 1e-300:
                        err("%s: metric %r: file %r, from the file's values %r" % (label, name, v, want))
            missing = set(mnames) - printed_m
            if missing:
                err("%s: file metrics %r not printed" % (label, sorted(missing)))
    for rank, r in files.items():
        for g in r["likwid/regions"].values():
            if (rank, g.name) not in seen:
                err("rank %d region %r: in the file, not printed" % (rank, str(g.attrs["tag"])))
    for rank, pairs in clock_pairs.items():
        _, o0, p0, u0 = min(pairs, key=lambda x: x[3] / abs(x[2]))
        k = o0 / p0
        rel0 = u0 / 2 / abs(p0)
        for what, o, p, u in pairs:
            if min(abs(o - p * k), abs(o - p / k)) > (u / 2) * max(k, 1 / k) + abs(o) * (2 * rel0 + 1e-12):
                err("%s: file %r, printed %r: not the rank's clock ratio %.9g" % (what, o, p, k))
    if errors:
        for e in errors[:40]:
            print("check_mpirun: " + e)
        print("check_mpirun: FAIL: %d differences (%d values compared)" % (len(errors), compared[0]))
        return 1
    print("check_mpirun: %d printed values in %d rank files (%s)" % (compared[0], len(files), a.group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
