#!/usr/bin/env python3
"""check_marker.py FILE: reads a LIKWID marker file by the syntax of
/work/shared/spec/marker-file.md, independently of the project's reader
(core/markerfile/), and prints what it holds without the timing-dependent
values, one line per region: tag, group, events, cpus and call counts.

Lines without data are left out: a CPU of -1 (5.2 to 5.4: the CPU never ran
the region) and a placeholder (5.5.0/5.5.1: count 0, time and values all
zero). Any defect prints "FILE:LINE: what was expected" on stderr and
exits 1."""
import math
import sys


class Defect(Exception):
    pass


def integer(tok, what, lineno):
    try:
        return int(tok, 10)
    except ValueError:
        raise Defect(f"{lineno}: expected {what} (a decimal integer), found '{tok}'")


def number(tok, what, lineno):
    try:
        return float(tok)  # %e, or nan for an event that could not be counted
    except ValueError:
        raise Defect(f"{lineno}: expected {what} (a number), found '{tok}'")


def read(path):
    with open(path, "rb") as f:
        data = f.read().decode("utf-8", errors="surrogateescape")
    if not data.endswith("\n"):
        raise Defect(f"{data.count(chr(10)) + 1}: expected the line to end in a newline")
    lines = data[:-1].split("\n")
    head = lines[0].split(" ")
    if len(head) != 3:
        raise Defect(f"1: expected the header '<nthreads> <nregions> <ngroups>', found '{lines[0]}'")
    nthreads, nregions, ngroups = (integer(t, n, 1) for t, n in zip(head, ("nthreads", "nregions", "ngroups")))
    if nregions < 0 or len(lines) < 1 + nregions:
        raise Defect(f"{len(lines)}: expected {nregions} region lines after the header")
    regions = []
    for i in range(nregions):
        lineno, line = 2 + i, lines[1 + i]
        rid, colon, rest = line.partition(":")
        dash = rest.rfind("-")
        if not colon or dash < 0:
            raise Defect(f"{lineno}: expected the region line '<id>:<tag>-<group>', found '{line}'")
        if integer(rid, "the region id", lineno) != i:
            raise Defect(f"{lineno}: expected region id {i}, found '{rid}'")
        group = integer(rest[dash + 1:], "the group id", lineno)
        regions.append({"tag": rest[:dash], "group": group, "nevents": None,
                        "cpus": [], "counts": [], "positive": True, "lines": 0})
    done = set()    # regions whose value lines have ended
    current = None
    for lineno, line in enumerate(lines[1 + nregions:], start=2 + nregions):
        if not line.endswith(" "):
            raise Defect(f"{lineno}: expected the value line to end in a blank")
        tok = line[:-1].split(" ")
        if len(tok) < 6:
            raise Defect(f"{lineno}: expected '<region> <group> <cpu> <count> <time> <nevents> <values>'")
        rid = integer(tok[0], "the region id", lineno)
        if not 0 <= rid < nregions:
            raise Defect(f"{lineno}: expected a region id below {nregions}, found {rid}")
        if rid != current:
            if rid in done:
                raise Defect(f"{lineno}: expected the value lines of region {rid} together")
            if current is not None:
                done.add(current)
            current = rid
        r = regions[rid]
        gid = integer(tok[1], "the group id", lineno)
        if gid != r["group"]:
            raise Defect(f"{lineno}: expected group {r['group']} of region {rid}, found {gid}")
        cpu = integer(tok[2], "the cpu", lineno)
        count = integer(tok[3], "the count", lineno)
        time = number(tok[4], "the time", lineno)
        nevents = integer(tok[5], "the number of events", lineno)
        values = [number(t, "an event value", lineno) for t in tok[6:]]
        if nevents < 0 or len(values) != nevents:
            raise Defect(f"{lineno}: expected {nevents} event values, found {len(values)}")
        if r["nevents"] is not None and r["nevents"] != nevents:
            raise Defect(f"{lineno}: expected {r['nevents']} events as on the region's other lines")
        r["nevents"] = nevents
        r["lines"] += 1
        if count < 0:
            raise Defect(f"{lineno}: expected a count of 0 or more, found {count}")
        placeholder = count == 0 and time == 0 and all(v == 0 for v in values)
        if cpu < 0 or placeholder:
            continue
        r["cpus"].append(cpu)
        r["counts"].append(count)
        r["positive"] &= time > 0 and all(not math.isnan(v) and v > 0 for v in values)
    for rid, r in enumerate(regions):
        if not r["lines"]:
            raise Defect(f"{len(lines)}: expected value lines for region {rid} ('{r['tag']}')")
    return (nthreads, nregions, ngroups), regions


def main():
    if len(sys.argv) != 2:
        print("usage: check_marker.py FILE", file=sys.stderr)
        return 2
    path = sys.argv[1]
    try:
        header, regions = read(path)
    except OSError as e:
        print(f"check_marker: {path}: {e.strerror}", file=sys.stderr)
        return 1
    except Defect as e:
        print(f"check_marker: {path}:{e}", file=sys.stderr)
        return 1
    print("header %d %d %d" % header)
    for r in regions:
        cpus = "".join((" " if i == 0 else ",") + str(c) for i, c in enumerate(r["cpus"]))
        counts = "".join((" " if i == 0 else ",") + str(c) for i, c in enumerate(r["counts"]))
        print("region '%s' group %d events %d cpus%s counts%s values %s" % (
            r["tag"], r["group"], r["nevents"], cpus, counts,
            "positive" if r["positive"] else "NOT-POSITIVE"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
