#!/bin/sh
# -g given as an event list on the emulated PMU (Intel Skylake): the bundled
# solver under likwid-perfctr -M 0 -C 0-1 -g SET -m with the shim, for
#   flops        FLOPS_DP's events in another order: named FLOPS_DP, with
#                its metrics (collector: full_api)
#   flops-file   the same through LIKWID's marker file alone
#                (SCOPE_LIKWID_SOURCES=marker_file: the writer)
#   uops         UOPS_ISSUE's events but the fixed counters (LIKWID adds
#                them), one with an option (PMC3:EDGEDETECT; LIKWID's
#                names drop it): named UOPS_ISSUE
#   none         events no group of Skylake has: "Custom", no metrics
# Every metric without inverseClock must be what check_mpirun.py's
# evaluation of the group file makes of the file's own counts and times; one
# with it is there when the process had a clock (full_api: LIKWID's) and
# named as left out otherwise; the status says what was recognised.
# Environment: SL_SRC, SL_BUILD, SL_SOLVER. Exit 0 pass, 1 fail, 77 skip.
set -u
src=$SL_SRC build=$SL_BUILD app=${SL_SOLVER:-}
. "$src/tests/emulated/emul_lib.sh"
emul_voice custom_sets
[ -x "$app" ] || skip "the solver is not built"
emul_begin
flops=FP_ARITH_INST_RETIRED_256B_PACKED_DOUBLE:PMC2,FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC1
flops=$flops,FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE:PMC0,INSTR_RETIRED_ANY:FIXC0
flops=$flops,CPU_CLK_UNHALTED_CORE:FIXC1,CPU_CLK_UNHALTED_REF:FIXC2
none=INSTR_RETIRED_ANY:FIXC0,FP_ARITH_INST_RETIRED_SCALAR_DOUBLE:PMC1
uops=UOPS_ISSUED_USED_CYCLES:PMC0,UOPS_ISSUED_STALL_CYCLES:PMC1
uops=$uops,CPU_CLOCK_UNHALTED_TOTAL_CYCLES:PMC2,UOPS_ISSUED_STALL_CYCLES:PMC3:EDGEDETECT

# NAME SET [VAR=VALUE...]
run() {
    name=$1 set=$2
    shift 2
    mkdir "$T/$name" && : >"$T/$name/state"
    (cd "$T/$name" && env EMULPMU_STATE="$T/$name/state" EMULPMU_TOPO="$T/topo.cfg" \
        LD_PRELOAD="$emul:$shim" SCOPE_LIKWID_COLLECTOR="$build/helpers/scope-likwid-collect" \
        SCOPE_LIKWID_WRITER="$build/helpers/scope-likwid-write" \
        SCOPE_LIKWID_OUTPUT="$T/$name/result.h5" OMP_NUM_THREADS=2 "$@" \
        timeout 120 likwid-perfctr -M 0 -C 0-1 -g "$set" -m "$app" >"$T/$name/out" 2>"$T/$name/err")
    rc=$?
    [ "$rc" = 0 ] && [ -f "$T/$name/result.h5" ] ||
        { sed 's/^/  /' "$T/$name/out" "$T/$name/err" | tail -n 20; fail "$name: exit $rc, or no result file"; }
}
run flops "$flops"
run flops-file "$flops" SCOPE_LIKWID_SOURCES=marker_file
run uops "$uops"
run none "$none"
[ "$FAILED" = 0 ] || exit 1

# NAME SOURCE GROUP [FILE]: the file against GROUP's group file (FILE when
# GROUP is Custom: no metrics)
check() {
    "$py" - "$T/$1/result.h5" "$2" "$3" "/usr/share/likwid/perfgroups/skylake/${4:-$3}.txt" \
        "$src/tests/emulated" <<'PY' 2>&1 | sed "s/^/  $1: /"
import sys, h5py
sys.path.insert(0, sys.argv[5])
from check_mpirun import group_file, evaluate
path, source, group, gfile = sys.argv[1:5]
r = h5py.File(path, "r")["rank0"]
status = str(r.attrs["likwid_status"])
print(status)
gevents, metrics = group_file(gfile)
bad = []
regs = list(r["likwid/regions"].values())
if not regs:
    bad.append("no counter regions")
for g in regs:
    tag = str(g.attrs["tag"])
    if str(g.attrs["source"]) != source:
        bad.append("%s: source %s, expected %s" % (tag, g.attrs["source"], source))
    if str(g.attrs["group_name"]) != group:
        bad.append("%s: group %r, expected %r" % (tag, str(g.attrs["group_name"]), group))
    names = [str(x) for x in g.attrs["metric_names"]]
    if group == "Custom":
        if names:
            bad.append("%s: metrics %r, expected none" % (tag, names))
        continue
    en = [str(x) for x in g.attrs["event_names"]]
    cn = [str(x) for x in g.attrs["counter_names"]]
    # the group file's counters (options kept) to the file's rows
    rows = {c: [e for e in range(len(en)) if en[e] == ev and cn[e] in (c, c.split(":")[0])]
            for c, ev in gevents}
    if any(len(v) != 1 for v in rows.values()):
        bad.append("%s: events %r, expected the group's %r" % (tag, list(zip(en, cn)), gevents))
        continue
    for name, f in metrics:
        if name not in names:
            if "inverseClock" not in f or ("%s (needs the clock)" % name) not in status:
                bad.append("%s: metric %r missing, not named as needing the clock" % (tag, name))
            continue
        if "inverseClock" in f:
            continue        # the process's own clock: check_mpirun and check_perfctr compare those
        for t in range(len(g["cpus"])):
            env = {c: float(g["events"][v[0], t]) for c, v in rows.items()}
            env["time"] = float(g["times"][t])
            want, got = evaluate(f, env), float(g["metrics"][names.index(name), t])
            if abs(got - want) > 1e-9 * abs(want):
                bad.append("%s: %s thread %d: %r, expected %r" % (tag, name, t, got, want))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
}
check flops full_api FLOPS_DP || fail "flops: not named FLOPS_DP with its metrics"
grep -q "group 0: the events of FLOPS_DP of skylake: named FLOPS_DP (recognised from its events), 9 metrics" "$T/flops/err" 2>/dev/null ||
    "$py" -c 'import h5py,sys; s=str(h5py.File(sys.argv[1])["rank0"].attrs["likwid_status"]); sys.exit("named FLOPS_DP (recognised from its events), 9 metrics" not in s)' "$T/flops/result.h5" ||
    fail "flops: the status does not say FLOPS_DP was recognised with its 9 metrics"
check flops-file marker_file FLOPS_DP || fail "flops-file: not named FLOPS_DP with its metrics"
check uops full_api UOPS_ISSUE || fail "uops: not named UOPS_ISSUE with its metrics"
check none full_api Custom FLOPS_DP || fail "none: not Custom without metrics"
"$py" -c 'import h5py,sys; s=str(h5py.File(sys.argv[1])["rank0"].attrs["likwid_status"]); sys.exit("group 0: custom event set (no group of skylake has these events): no metrics" not in s)' "$T/none/result.h5" ||
    fail "none: the status does not say no group has these events"
[ "$FAILED" = 0 ] || exit 1
say "PASS: a group's events named and evaluated (full_api, marker_file); a custom set stays Custom"
