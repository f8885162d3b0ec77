#!/bin/sh
# Group rotation on the emulated PMU (Intel Skylake): switch_app under
#   likwid-perfctr -M 0 -C 0-1 -g FLOPS_DP -g CLOCK -m
# without the shim, with it, and with it where the GetRegion snapshots are
# the only source (SCOPE_LIKWID_SOURCES=marker_api). "first-only" never runs
# in CLOCK, LIKWID's active group at Close. likwid-perfctr's stdout must be
# the one without the shim (every number masked: the counts run with the
# wall clock) and its stderr the same but for the shim's own "scope-likwid:"
# lines; the result file holds every printed value (check_perfctr.py), and
# the snapshots are the main thread's regions of CLOCK only, with the
# values likwid-perfctr printed. Environment: SL_SRC, SL_BUILD,
# SL_SWITCH_APP. Exit 0 pass, 1 fail, 77 cannot run here.
set -u
src=$SL_SRC build=$SL_BUILD app=${SL_SWITCH_APP:-}
. "$src/tests/emulated/emul_lib.sh"
emul_voice rotation
[ -x "$app" ] || skip "switch_app not built"
emul_begin
gdir=/usr/share/likwid/perfgroups/skylake

# NAME [VAR=VALUE...]: one run; NAME plain has no shim
run() {
    name=$1
    shift
    preload=$emul
    [ "$name" = plain ] || preload=$emul:$shim
    mkdir "$T/$name" && : >"$T/$name/state"
    (cd "$T/$name" && env EMULPMU_STATE="$T/$name/state" EMULPMU_TOPO="$T/topo.cfg" \
        LD_PRELOAD="$preload" SCOPE_LIKWID_COLLECTOR="$build/helpers/scope-likwid-collect" \
        SCOPE_LIKWID_WRITER="$build/helpers/scope-likwid-write" \
        SCOPE_LIKWID_OUTPUT="$T/$name/result.h5" OMP_NUM_THREADS=2 "$@" \
        timeout 120 likwid-perfctr -M 0 -C 0-1 -g FLOPS_DP -g CLOCK -m "$app" \
        >"$T/$name/out" 2>"$T/$name/err")
    rc=$?
    [ "$rc" = 0 ] || { sed 's/^/  /' "$T/$name/out" "$T/$name/err" | tail -n 20; fail "$name: likwid-perfctr exited $rc"; }
}
run plain
run shim
run snapshots SCOPE_LIKWID_SOURCES=marker_api
[ "$FAILED" = 0 ] || exit 1
grep -q '^Region first-only, Group 1: FLOPS_DP' "$T/plain/out" || fail "likwid-perfctr printed no first-only table"

# every number masked, runs of blanks and of table rules made one
mask() { sed -e 's/[0-9][0-9.e+-]*/N/g' -e 's/  */ /g' -e 's/--*/-/g' "$1"; }
for v in shim snapshots; do
    mask "$T/plain/out" >"$T/plain.masked"
    mask "$T/$v/out" >"$T/$v.masked"
    diff "$T/plain.masked" "$T/$v.masked" >"$T/$v.diff" ||
        { sed 's/^/  /' "$T/$v.diff" | head -n 20; fail "$v: likwid-perfctr's stdout differs from the run without the shim"; }
    grep -v '^scope-likwid:' "$T/$v/err" >"$T/$v.err"
    diff "$T/plain/err" "$T/$v.err" >"$T/$v.errdiff" ||
        { sed 's/^/  /' "$T/$v.errdiff" | head -n 20; fail "$v: likwid-perfctr's stderr differs from the run without the shim"; }
done
"$py" "$src/tests/emulated/check_perfctr.py" "$T/shim/out" "$T/shim/result.h5" \
    --group FLOPS_DP --groupfile "$gdir/FLOPS_DP.txt" --group CLOCK --groupfile "$gdir/CLOCK.txt" \
    --regions both,first-only | sed 's/^/  shim: /'
"$py" "$src/tests/emulated/check_perfctr.py" "$T/shim/out" "$T/shim/result.h5" \
    --group FLOPS_DP --groupfile "$gdir/FLOPS_DP.txt" --group CLOCK --groupfile "$gdir/CLOCK.txt" \
    --regions both,first-only >/dev/null || fail "shim: the result file lacks printed values"
# the snapshots: main's (HWThread 0) regions of CLOCK (group 1), as printed
"$py" - "$T/snapshots/out" "$T/snapshots/result.h5" "$src/tests/emulated" <<'PY' || fail "snapshots: not what likwid-perfctr printed for CLOCK"
import sys, h5py
sys.path.insert(0, sys.argv[3])
from check_perfctr import parse, num2str
f = h5py.File(sys.argv[2], "r")
r = f["rank0"]
regs = sorted((str(g.attrs["tag"]), int(g.attrs["group_id"]), g) for g in r["likwid/regions"].values())
print("  snapshots: %s; %s" % (", ".join("%s group %d" % x[:2] for x in regs), r.attrs["likwid_status"]))
assert [x[:2] for x in regs] == [("both", 1)], "expected one snapshot: both in group 1"
g = regs[0][2]
assert list(g["cpus"][()]) == [0], "cpus %r: expected main's CPU 0" % list(g["cpus"][()])
for reg in parse(sys.argv[1]):
    if (reg["tag"], reg["group"]) != ("both", "CLOCK"):
        continue
    for header, rows in reg["tables"]:
        if header[0] == "Event" and "Sum" not in header:
            col = header.index("HWThread 0")
            want = [row[col] for row in rows]
            got = [num2str(v) for v in g["events"][:, 0]]
            assert got == want, "events %r, printed %r" % (got, want)
            print("  snapshots: %d events of both in CLOCK as printed" % len(got))
            sys.exit(0)
sys.exit("no Event table of both, Group 2: CLOCK printed")
PY
[ "$FAILED" = 0 ] || exit 1
say "PASS: likwid-perfctr's output unchanged by the shim under group rotation; every value in the file"
