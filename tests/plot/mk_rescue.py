#!/usr/bin/env python3
"""Writes a synthetic scope-likwid rescue file (docs/WIRE.md, kind run) for
the plot tests and bench/bench_plot.sh; `scope-likwid convert` turns it into
a result file with timing, per-call samples and full_api counter data.

usage: mk_rescue.py [--awkward] [--no-likwid] [--rank R] [--origin NS] [--shift NS]
                    [--scale F] [--roofline] OUT REGIONS THREADS CALLS [EVENTS [METRICS]]
  REGIONS regions, each run by THREADS threads (tids 5000, 5001, ...) on
  CPUs 0..THREADS-1, CALLS recorded calls per region and thread (one call in
  three of region r nests a call of region r+1 in the same thread), EVENTS
  events and METRICS metrics per region (defaults 4 and 2; metric 0 is
  "Runtime (RDTSC) [s]", the others "M<m> [units]").
--awkward: the first regions get tags HTML must escape (AWKWARD below),
and host, status and command line hold < & " and a byte that is not UTF-8.
--no-likwid: no counter data (likwid none).
--rank R: rank R, mpi_rank R (default rank 0, mpi_rank -1), pid 5000 + R.
--origin NS: the timing clock's origin_unix_ns (default 0: not recorded).
--shift NS: every call starts NS later (a late rank).
--scale F: every call lasts F times as long, LIKWID's times likewise (a
slower run).
--roofline: the metrics are "Runtime (RDTSC) [s]", "DP [MFLOP/s]" and
"Memory bandwidth [MBytes/s]" (FLOPS_DP's and MEM's rates; METRICS ignored),
values 100*(r+1)*(t+1) and 50*(r+1)**2*(t+1)*R1 with R1 = rank + 1.
Call durations are pseudo-random (nested ones may tie).
"""
import struct
import sys


def s(x):
    if isinstance(x, str):
        x = x.encode()
    return "=" + "".join(chr(b) if 0x21 <= b <= 0x7E and b != 0x25 else "%%%02X" % b for b in x)


def d(v):
    return struct.pack(">d", v).hex()


AWKWARD = [b"<script>alert(1)</script>", b"a&b \"c\" 'd'", b"]]> <!-- x -->", b"\xff\xfe<",
           b"ctl\x01\x1f\x7f", "non-char \ufffe".encode(), b"", b"caf\xc3\xa9 &amp; &#x41;"]


def tag(r, awkward):
    return AWKWARD[r] if awkward and r < len(AWKWARD) else ("region-%d" % r).encode()


def main():
    argv = sys.argv[1:]
    awkward = "--awkward" in argv
    likwid = "--no-likwid" not in argv
    roofline = "--roofline" in argv
    argv = [a for a in argv if a not in ("--awkward", "--no-likwid", "--roofline")]
    opt = {"--rank": None, "--origin": "0", "--shift": "0", "--scale": "1"}
    rest = []
    while argv:
        if argv[0] in opt:
            opt[argv[0]] = argv[1]
            argv = argv[2:]
        else:
            rest.append(argv.pop(0))
    argv = rest
    rank = int(opt["--rank"]) if opt["--rank"] is not None else None
    origin, shift, scale = int(opt["--origin"]), int(opt["--shift"]), float(opt["--scale"])
    if len(argv) < 4:
        sys.exit(__doc__)
    out = argv[0]
    nreg, nthr, ncalls = (int(a) for a in argv[1:4])
    nev = int(argv[4]) if len(argv) > 4 else 4
    nmet = int(argv[5]) if len(argv) > 5 else 2
    host = b"<host>&\xff" if awkward else b"benchhost"
    status = b"<b>used</b> full_api & \"more\" \xfe" if awkward else b"synthetic rescue file (mk_rescue.py)"
    lines = ["scope-likwid-wire 1", "kind run", "rank %d" % (rank or 0),
             "mpi_rank %d" % (-1 if rank is None else rank), "pid %d" % (5000 + (rank or 0)),
             "hostname " + s(host), "executable " + s("/usr/bin/synthetic"),
             "command_line " + s(b"synthetic --regions <%d> & \"x\"" % nreg),
             "likwid_status " + s(status),
             "env 1", "var " + s("LIKWID_EVENTS") + " " + s("FLOPS_DP"),
             "timing " + s("CLOCK_MONOTONIC") + " %d %d" % (origin, nreg)]
    # per thread a time cursor; call k of region r in thread t lasts a
    # distinct number of ns
    cursor = [1_000_000 + shift + t * 1000 for t in range(nthr)]
    seq = 0
    regions = []
    for r in range(nreg):
        calls, threads = [], []
        for t in range(nthr):
            durs = []
            for k in range(ncalls):
                seq += 1
                dur = int((2000 + (seq * 7919) % 997 * 1000 + seq) * scale)  # distinct
                start = cursor[t]
                cursor[t] += dur + 500
                calls.append((5000 + t, start, start + dur))
                durs.append(dur)
            threads.append((5000 + t, ncalls, sum(durs), min(durs) if durs else 0,
                            max(durs) if durs else 0))
        regions.append((threads, calls))
    # nesting: one call in three of region r+1 moves inside a call of region r
    for r in range(nreg - 1):
        outer, inner = regions[r][1], regions[r + 1][1]
        for i in range(0, min(len(outer), len(inner)), 3):
            tid, s0, e0 = outer[i]
            if inner[i][0] != tid:
                continue
            dur = min(inner[i][2] - inner[i][1], max((e0 - s0) // 3, 1))
            inner[i] = (tid, s0 + (e0 - s0) // 4, s0 + (e0 - s0) // 4 + dur)
    for r, (threads, calls) in enumerate(regions):
        # totals follow the calls after the nesting changes
        per = {}
        for tid, a, b in calls:
            per.setdefault(tid, []).append(b - a)
        lines.append("tregion %s 0 0 0 0 %d %d" % (s(tag(r, awkward)), len(threads), len(calls)))
        for tid, _, _, _, _ in threads:
            du = per.get(tid, [0])
            lines.append("thread %d %d %d %d %d" % (tid, len(per.get(tid, [])), sum(du), min(du), max(du)))
        for tid, a, b in calls:
            lines.append("call %d %d %d" % (tid, a, b))
    lines.append("likwid %s %d" % (("full_api", nreg) if likwid else ("none", 0)))
    for r in range(nreg if likwid else 0):
        lines.append("region %s 0 %s full_api %d %d %d 1" % (s(tag(r, awkward)), s("FLOPS_DP"),
                                                             nthr, nev, 3 if roofline else nmet))
        times = [scale * 1e-3 * (1 + (r * 31 + t * 7) % 50) for t in range(nthr)]
        lines.append(" ".join(["cpus"] + [str(t) for t in range(nthr)]))
        lines.append(" ".join(["times"] + [d(v) for v in times]))
        lines.append(" ".join(["counts"] + [str(ncalls)] * nthr))
        for e in range(nev):
            lines.append(" ".join(["event", s("EV_%d" % e), s("PMC%d" % e)] +
                                  [d(float((r + 1) * (e + 1) * 1000 + t)) for t in range(nthr)]))
        r1 = (rank or 0) + 1
        mets = [("Runtime (RDTSC) [s]", times),
                ("DP [MFLOP/s]", [100.0 * (r + 1) * (t + 1) for t in range(nthr)]),
                ("Memory bandwidth [MBytes/s]", [50.0 * (r + 1) ** 2 * (t + 1) * r1 for t in range(nthr)])] \
            if roofline else \
            [("Runtime (RDTSC) [s]" if m == 0 else "M%d [units]" % m,
              times if m == 0 else [float(r % 17 + t + m) for t in range(nthr)]) for m in range(nmet)]
        for name, vals in mets:
            lines.append(" ".join(["metric", s(name)] + [d(v) for v in vals]))
    lines.append("end %d" % len(lines))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


main()
