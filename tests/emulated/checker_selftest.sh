#!/bin/sh
# check_perfctr.py must be able to fail: one emulated run (zen2, CLOCK), then
# the untouched artifacts pass and each break fails, naming what differs:
# a printed event digit, a metric in result.h5, a printed event row left out,
# a clock metric 10% off, a thread's column swapped in result.h5.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/emul-selftest.XXXXXX") || exit 1
if [ "${SL_KEEP:-0}" = 1 ]; then trap 'echo "kept $T"' EXIT; else trap 'rm -rf "$T"' EXIT; fi
fail() { echo "checker_selftest: FAIL: $*"; exit 1; }

SL_EMUL_APP=c SL_EMUL_ARCHS=zen2 SL_EMUL_GROUPS=CLOCK sh "$SL_SRC/scripts/emulated-node-check.sh" "$SL_BUILD" "$T/art"
rc=$?
[ "$rc" = 0 ] || exit "$rc"
py=/usr/bin/python3
chk="$SL_SRC/tests/emulated/check_perfctr.py"
gf=/usr/share/likwid/perfgroups/zen2/CLOCK.txt
d=$T/art/zen2/CLOCK

expect_fail() { # NAME PATTERN PERFCTR_TXT RESULT_H5
    if "$py" "$chk" "$3" "$4" --group CLOCK --groupfile "$gf" >"$T/$1.out" 2>&1; then
        cat "$T/$1.out"; fail "$1: check_perfctr passed: expected a difference"
    fi
    grep -q -- "$2" "$T/$1.out" || { cat "$T/$1.out"; fail "$1: no line matching '$2'"; }
    echo "checker_selftest: $1: rejected ($(grep -m 1 -- "$2" "$T/$1.out"))"
}

"$py" "$chk" "$d/perfctr.txt" "$d/result.h5" --group CLOCK --groupfile "$gf" || fail "the untouched run does not pass"

# a printed event value one off (the first PMC0 row's HWThread 0 cell)
"$py" - "$d/perfctr.txt" >"$T/digit.txt" <<'PY' || fail "digit: cannot edit the copy"
import sys
done = False
for line in open(sys.argv[1]):
    c = line.split("|")
    if not done and len(c) > 4 and c[2].strip() == "PMC0":
        v = str(int(c[3]) + 1)
        c[3] = " " * (len(c[3]) - len(v) - 1) + v + " "
        line, done = "|".join(c), True
    sys.stdout.write(line)
PY
expect_fail digit "RETIRED_INSTRUCTIONS:PMC0 HWThread" "$T/digit.txt" "$d/result.h5"

# a printed event row left out
grep -v 'CPU_CLOCKS_UNHALTED  *|  *PMC1' "$d/perfctr.txt" >"$T/norow.txt"
expect_fail norow "lacks the result file's events" "$T/norow.txt" "$d/result.h5"

# result.h5 edited: a metric off by one in its 4th decimal; a clock metric
# 10% off; two threads' columns swapped
for mode in metric clock swap; do
    cp "$d/result.h5" "$T/$mode.h5"
    "$py" - "$T/$mode.h5" "$mode" <<'PY' || fail "$mode: cannot edit the copy"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for g in f["rank0/likwid/regions"].values():
        if g.attrs["tag"] != "solve-step":
            continue
        names = [str(x) for x in g.attrs["metric_names"]]
        m = g["metrics"]
        if sys.argv[2] == "metric":
            i = names.index("CPI")
            m[i, 0] = m[i, 0] + 1e-3
        elif sys.argv[2] == "clock":
            i = names.index("Clock [MHz]")
            m[i, 0] = m[i, 0] * 1.1
        else:
            e = g["events"][()]
            g["events"][...] = e[:, ::-1]
PY
done
expect_fail metric "metric 'CPI' HWThread 0" "$d/perfctr.txt" "$T/metric.h5"
expect_fail clock "clock ratio" "$d/perfctr.txt" "$T/clock.h5"
expect_fail swap "HWThread 1: likwid-perfctr printed" "$d/perfctr.txt" "$T/swap.h5"
echo "checker_selftest: PASS"
