#!/bin/sh
# The fallback path's names and metrics: the collector is missing, so the
# counters come from the marker file, and the writer (outside the
# application) applies LIKWID's group file of the recorded LIKWID_EVENTS
# (FLOPS_DP) for the architecture in SCOPE_LIKWID_ARCH: event and counter
# names from its EVENTSET, every metric from its METRICS, computed here
# again from the file's counters (h5py); a metric needing the clock is
# there when CPUID states the clock and otherwise named in likwid_status.
# A group file that cannot be read or does not fit the counters: the
# counters are written as they are and likwid_status says why.
# Without SCOPE_LIKWID_ARCH the architecture is LIKWID's topology's: the
# status says what happened (applied, not applicable, or unknown CPU).
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SIMLIKWID_STYLE=552
SIMLIKWID_READBACK=ok
SCOPE_LIKWID_COLLECTOR=$T/nonexistent/scope-likwid-collect
export SIMLIKWID_STYLE SIMLIKWID_READBACK SCOPE_LIKWID_COLLECTOR

# a group file for the simulated LIKWID's FLOPS_DP event set
mkdir -p "$T/pg/simarch"
cat >"$T/pg/simarch/FLOPS_DP.txt" <<'GROUP'
SHORT Double Precision MFLOP/s (the simulated LIKWID's event set)

EVENTSET
FIXC0 INSTR_RETIRED_ANY
FIXC1 CPU_CLK_UNHALTED_CORE
FIXC2 CPU_CLK_UNHALTED_REF
PMC0  FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE
PMC1  FP_ARITH_INST_RETIRED_SCALAR_DOUBLE
PMC2  FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE

METRICS
Runtime (RDTSC) [s] time
Clock [MHz]  1.E-06*(FIXC1/FIXC2)/inverseClock
CPI  FIXC1/FIXC0
DP [MFLOP/s]  1.0E-06*(PMC0*2.0+PMC1+PMC2*4.0)/time
Vectorization ratio 100*(PMC0+PMC2)/(PMC0+PMC1+PMC2)

LONG
test group
GROUP

sim arch env SCOPE_LIKWID_ARCH=simarch SCOPE_LIKWID_PERFGROUPS="$T/pg" LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
[ "$(rc_of arch)" = 0 ] || { fail "solver with the shim exited $(rc_of arch)"; show_run arch; }
if f=$(result_file arch); then
    solver_timing "$f" --source marker_file --likwid-region solve-step=2x20
    "$PY" - "$f" >"$T/groups.log" 2>&1 <<'PYEOF' || { fail "group file not applied as expected:"; sed 's/^/    /' "$T/groups.log"; }
import sys, h5py, numpy as np
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
bad = []
with h5py.File(sys.argv[1], "r") as f:
    status = s(f["rank0"].attrs["likwid_status"])
    if "group 0: FLOPS_DP of simarch: names and" not in status:
        bad.append("likwid_status %r: expected 'group 0: FLOPS_DP of simarch: names and ...'" % status)
    regs = list(f["rank0/likwid/regions"].values())
    if not regs: bad.append("no LIKWID regions")
    for reg in regs:
        a = reg.attrs
        ctr = [s(x) for x in a["counter_names"]]
        if ctr != ["FIXC0", "FIXC1", "FIXC2", "PMC0", "PMC1", "PMC2"]:
            bad.append("%s: counter_names %s" % (s(a["tag"]), ctr))
        if s(a["event_names"][3]) != "FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE" or s(a["group_name"]) != "FLOPS_DP":
            bad.append("%s: event_names %s group %s" % (s(a["tag"]), list(a["event_names"]), a["group_name"]))
        ev, t = reg["events"][()], reg["times"][()]
        names = [s(x) for x in a["metric_names"]]
        m = reg["metrics"][()]
        want = {"Runtime (RDTSC) [s]": t, "CPI": ev[1] / ev[0],
                "DP [MFLOP/s]": 1e-6 * (ev[3] * 2 + ev[4] + ev[5] * 4) / t,
                "Vectorization ratio": 100 * (ev[3] + ev[5]) / (ev[3] + ev[4] + ev[5])}
        clock = "Clock [MHz]" in names
        if not clock and "Clock [MHz] (needs the clock)" not in status:
            bad.append("Clock [MHz] neither computed nor named as left out: %r" % status)
        if names != [n for n in ["Runtime (RDTSC) [s]", "Clock [MHz]", "CPI", "DP [MFLOP/s]",
                                 "Vectorization ratio"] if clock or n != "Clock [MHz]"]:
            bad.append("%s: metric_names %s" % (s(a["tag"]), names))
            continue
        for n, w in want.items():
            g = m[names.index(n)]
            ok = np.isnan(w) == np.isnan(g)
            ok &= np.isclose(np.nan_to_num(g), np.nan_to_num(w), rtol=1e-9, atol=0)
            if not ok.all():
                bad.append("%s: %s = %s, expected %s" % (s(a["tag"]), n, g, w))
for b in bad: print(b)
sys.exit(1 if bad else 0)
PYEOF
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi

# a group file that cannot be read, or whose EVENTSET does not fit: the
# result is still written, with the marker file's counters, and the status says why
mkdir -p "$T/pg/short"
sed '/^PMC2/d' "$T/pg/simarch/FLOPS_DP.txt" >"$T/pg/short/FLOPS_DP.txt"
for case in nosuch:'cannot read' short:'not applied to 3 regions \(their event count is not its EVENTSET.s 5\)'; do
    arch=${case%%:*}
    sim "$arch" env SCOPE_LIKWID_ARCH="$arch" SCOPE_LIKWID_PERFGROUPS="$T/pg" LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
    if f=$(result_file "$arch"); then
        solver_timing "$f" --source marker_file --no-names --no-metrics --likwid-region solve-step=2x20 \
            --status "group 0: FLOPS_DP of $arch: not applied" --status "${case#*:}"
    else
        fail "no single scope-likwid-*.h5 (SCOPE_LIKWID_ARCH=$arch)"
    fi
done

# the architecture from LIKWID's topology: whatever this CPU is, the status says what happened
sim topo env SCOPE_LIKWID_PERFGROUPS="$T/pg" LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
if f=$(result_file topo); then
    "$PY" -c 'import sys, h5py
st = h5py.File(sys.argv[1], "r")["rank0"].attrs["likwid_status"]
st = st.decode() if isinstance(st, bytes) else str(st)
ok = "no group file applied: the CPU architecture is unknown" in st or "group 0: FLOPS_DP of " in st
sys.exit(0 if ok else "likwid_status %r says nothing of the group file" % st)' "$f" >"$T/topo.log" 2>&1 ||
        fail "$(cat "$T/topo.log")"
else
    fail "no single scope-likwid-*.h5 (topology case)"
fi
[ "$FAILED" = 0 ] || { show_run arch; }
finish
