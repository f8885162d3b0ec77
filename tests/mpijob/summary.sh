#!/bin/sh
# shellcheck disable=SC2086 # $MPIRUN is a command with its options, split on purpose
# `scope-likwid show --summary` of a 4-rank MPI job (4 Open MPI ranks x 2
# OpenMP threads of examples/mpi_solver, each rank under the simulated
# likwid-perfctr -m with the shim preloaded): every number of the summary's
# CSV (time over ranks and threads, imbalance, LIKWID metrics over
# HWThreads with their sums) against an independent h5py computation, for
# the 4 rank files given together and for their merged file; then show
# --threads sum (summable metrics summed, others without a value) and the
# summary leading show of a file of 8 ranks.
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SHIM SL_CLI SL_MPI_SOLVER SL_SIM_DIR SL_SIM_PERFCTR
. "$SL_SRC/tests/mpijob/job_lib.sh"
run job $MPIRUN -x SIM_MARKER_DIR -x SIMLIKWID_READBACK -x LD_PRELOAD="$SL_SHIM" \
    -x SCOPE_LIKWID_COLLECTOR -x SCOPE_LIKWID_WRITER -x SCOPE_LIKWID_TIMEOUT \
    $SL_SIM_PERFCTR -C 0,1 -g FLOPS_DP -m -- $SL_MPI_SOLVER
[ "$(rc_of job)" = 0 ] || { fail "the job with the shim exited $(rc_of job): expected 0"; show_run job; finish; }
set -- "$T/job"/*.h5
[ $# = "$NP" ] || { fail "$# result files ($*): expected $NP"; finish; }
FILES="$*"

# The summary computed from the files by h5py alone (FORMAT.md's layout):
# per region, per rank: the sum of timing/<region>/total_ns over threads;
# per LIKWID group, region and metric: every HWThread's value. Compared
# with the CSV to 1e-9 relative.
cat >"$T/check.py" <<'PYEOF'
import csv, math, sys, h5py, numpy as np
out, files = sys.argv[1], sys.argv[2:]
SUMMABLE = ("J", "W", "Bytes", "kBytes", "MBytes", "GBytes", "TBytes", "Byte", "MByte", "GByte")
def summable(name):
    if "[" not in name: return False
    unit = name[name.rindex("[") + 1:].split("]")[0]
    return unit.endswith("/s") and len(unit) > 2 or unit in SUMMABLE
times, metrics = {}, {}
nranks = 0
for path in files:
    with h5py.File(path, "r") as f:
        for rk in sorted(k for k in f if k.startswith("rank")):
            g = f[rk]; nranks += 1
            for name, reg in g["timing/regions"].items():
                tag = reg.attrs["tag"]; tag = tag.decode() if isinstance(tag, bytes) else str(tag)
                t = times.setdefault(tag, {"s": [], "threads": 0, "calls": 0})
                t["s"].append(float(np.sum(reg["total_ns"][()])) / 1e9)
                t["threads"] += len(reg["threads"][()]); t["calls"] += int(np.sum(reg["call_counts"][()]))
            if "likwid" not in g: continue
            for reg in g["likwid/regions"].values():
                a = reg.attrs
                s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
                gn = s(a["group_name"]) or "group %d" % a["group_id"]
                tag = s(a["tag"])
                vals = reg["metrics"][()]
                for m, n in enumerate(s(x) for x in a["metric_names"]):
                    e = metrics.setdefault((gn, tag, n), {"v": [], "ranks": 0})
                    e["v"] += [float(x) for x in vals[m] if not math.isnan(x)]
                    e["ranks"] += 1
bad = []
def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
rows = list(csv.DictReader(open(out)))
head = list(rows[0].keys()) if rows else []
if head[:8] != "region,ranks,threads,calls,min_s,mean_s,max_s,imbalance_pct".split(","):
    bad.append("CSV header %s" % head)
seen_t, seen_m = set(), set()
for r in rows:
    if not r["metric"]:
        t = times.get(r["region"])
        if t is None: bad.append("region %s not in the files" % r["region"]); continue
        seen_t.add(r["region"]); s = t["s"]
        mn, mean, mx = min(s), sum(s) / len(s), max(s)
        imb = (mx - mean) / mx * 100 if mx > 0 else 0
        want = [len(s), t["threads"], t["calls"], mn, mean, mx, imb]
        got = [int(r["ranks"]), int(r["threads"]), int(r["calls"]), float(r["min_s"]),
               float(r["mean_s"]), float(r["max_s"]), float(r["imbalance_pct"])]
        if got[:3] != want[:3] or not all(close(a, b) for a, b in zip(got[3:], want[3:])):
            bad.append("region %s: %s, expected %s" % (r["region"], got, want))
    else:
        k = (r["group"], r["region"], r["metric"]); e = metrics.get(k)
        if e is None: bad.append("metric %s not in the files" % (k,)); continue
        seen_m.add(k); v = e["v"]
        want = [e["ranks"], len(v), min(v), sum(v) / len(v), max(v)]
        got = [int(r["ranks"]), int(r["threads"]), float(r["min"]), float(r["mean"]), float(r["max"])]
        if got[:2] != want[:2] or not all(close(a, b) for a, b in zip(got[2:], want[2:])):
            bad.append("metric %s: %s, expected %s" % (k, got, want))
        if summable(k[2]) != (r["sum"] != ""):
            bad.append("metric %s: sum '%s' (summable: %s)" % (k, r["sum"], summable(k[2])))
        if r["sum"] and not close(float(r["sum"]), sum(v)):
            bad.append("metric %s: sum %s, expected %s" % (k, r["sum"], sum(v)))
if seen_t != set(times): bad.append("regions %s, expected %s" % (sorted(seen_t), sorted(times)))
if seen_m != set(metrics): bad.append("metrics %s, expected %s" % (sorted(seen_m), sorted(metrics)))
if not any(summable(k[2]) for k in seen_m) or all(summable(k[2]) for k in seen_m):
    bad.append("expected summable and non-summable metrics in the job, got %s" % sorted(seen_m))
for b in bad: print(b)
sys.exit(1 if bad else 0)
PYEOF

# summary CASE FILE...: show --summary --csv of the files against check.py
summary() {
    name=$1
    shift
    run "$name" "$SL_CLI" show --summary --csv "$@"
    if [ "$(rc_of "$name")" != 0 ]; then
        fail "show --summary --csv ($name) exited $(rc_of "$name"): expected 0"
        show_run "$name"
        return
    fi
    "$PY" "$T/check.py" "$T/$name.out" "$@" >"$T/$name.check" 2>&1 ||
        { fail "show --summary --csv ($name) differs from h5py's numbers:"; sed 's/^/    /' "$T/$name.check"; }
}
summary ranks $FILES
run merge "$SL_CLI" merge -o "$T/job.h5" $FILES
[ "$(rc_of merge)" = 0 ] || { fail "merge exited $(rc_of merge)"; show_run merge; finish; }
summary merged "$T/job.h5"
# the table: one row per region with 4 ranks and 8 threads
run table "$SL_CLI" show --summary "$T/job.h5"
grep -q "^| solve-step *| *4 | *8 | *80 |" "$T/table.out" ||
    { fail "show --summary table has no row '| solve-step | 4 | 8 | 80 |'"; show_run table; }
grep -q "^LIKWID group FLOPS_DP" "$T/table.out" || fail "show --summary table has no 'LIKWID group FLOPS_DP' table"

# show --threads sum: DP [MFLOP/s] is the sum over threads, CPI has no value
run tsum "$SL_CLI" show --threads sum --csv --rank 1 --region solve-step "$T/job.h5"
"$PY" - "$T/tsum.out" "$T/job.h5" >"$T/tsum.check" 2>&1 <<'PYEOF' || { fail "show --threads sum:"; sed 's/^/    /' "$T/tsum.check"; }
import csv, sys, h5py, numpy as np
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["section"] == "likwid"]
got = {r["row"]: r["value"] for r in rows}
with h5py.File(sys.argv[2], "r") as f:
    reg = f["rank1/likwid/regions/solve-step"]
    names = [n.decode() if isinstance(n, bytes) else n for n in reg.attrs["metric_names"]]
    vals = reg["metrics"][()]
bad = []
for m, n in enumerate(names):
    if n == "DP [MFLOP/s]" and abs(float(got.get(n, "nan")) - float(np.sum(vals[m]))) > 1e-9 * abs(np.sum(vals[m])):
        bad.append("%s under sum: %s, expected the sum %s" % (n, got.get(n), np.sum(vals[m])))
    if n == "CPI" and got.get(n) != "":
        bad.append("CPI under sum: '%s', expected no value" % got.get(n))
if "DP [MFLOP/s]" not in names or "CPI" not in names: bad.append("metrics %s" % names)
for b in bad: print(b)
sys.exit(1 if bad else 0)
PYEOF
run tsumtab "$SL_CLI" show --threads sum --rank 1 "$T/job.h5"
grep -q "^\[sum\]: a metric without a sum" "$T/tsumtab.out" || fail "show --threads sum has no note on the metrics without a sum"

# a file of 8 ranks (the job merged twice): plain show leads with the
# summary, 8 ranks per region; a filter gives the plain tables
run merge8 "$SL_CLI" merge -o "$T/job8.h5" $FILES $FILES
[ "$(rc_of merge8)" = 0 ] || { fail "merge of 8 exited $(rc_of merge8)"; show_run merge8; finish; }
run show8 "$SL_CLI" show "$T/job8.h5"
head -1 "$T/show8.out" | grep -q "^Summary over 8 ranks" || fail "show of 8 ranks does not start with 'Summary over 8 ranks': $(head -1 "$T/show8.out")"
grep -q "^| solve-step *| *8 | *16 |" "$T/show8.out" || fail "show of 8 ranks: no summary row for solve-step with 8 ranks, 16 threads"
grep -q "^Rank 7 " "$T/show8.out" || fail "show of 8 ranks: no table of rank 7 after the summary"
run show8r "$SL_CLI" show --rank 7 "$T/job8.h5"
grep -q "^Summary" "$T/show8r.out" && fail "show --rank 7 of 8 ranks starts with the summary: expected only the rank"
run show4 "$SL_CLI" show "$T/job.h5"
grep -q "^Summary" "$T/show4.out" && fail "show of 4 ranks starts with the summary: expected it from 8 ranks on"
# --summary and --json / --threads are usage errors
run js "$SL_CLI" show --summary --json "$T/job.h5"
[ "$(rc_of js)" = 2 ] || fail "show --summary --json exited $(rc_of js): expected 2"
finish
