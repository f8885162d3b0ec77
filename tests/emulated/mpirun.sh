#!/bin/sh
# likwid-mpirun on the emulated PMU (Intel Skylake, the host's one socket):
#   likwid-mpirun -np 2 -mpi openmpi -g GROUP -m mpi_app
# (mpi_app: examples/mpi_solver.c with its last region named io-phase)
# for FLOPS_DP (the shim through the environment, LD_PRELOAD) and CLOCK
# (through --mpiopts "-x LD_PRELOAD=..."), with a likwid-perfctr first in
# PATH that adds -M 0 (direct MSR mode: likwid-mpirun has no such option).
# likwid-mpirun hands every rank its group expanded to an event list: the
# rank files must name the group from its events (FLOPS_DP in both ranks;
# CLOCK in rank 0, which gets the socket's uncore counters; rank 1 gets
# the core counters only, which several groups share) and hold every event
# and metric likwid-mpirun printed (check_mpirun.py). Then the checker must
# fail on a printed digit, a metric, a group name and a left-out metric
# the status does not name. Environment: SL_SRC, SL_BUILD, SL_MPI_APP.
# Exit 0 pass, 1 fail, 77 cannot run here (one line why).
set -u
src=$SL_SRC build=$SL_BUILD app=${SL_MPI_APP:-}
. "$src/tests/emulated/emul_lib.sh"
emul_voice mpirun
[ -n "$app" ] && [ -x "$app" ] || skip "mpi_app not built (needs Open MPI: libopenmpi-dev)"
command -v likwid-mpirun >/dev/null 2>&1 || skip "likwid-mpirun not found (Debian package likwid)"
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian package openmpi-bin)"
emul_begin
perfctr=$(command -v likwid-perfctr)
mkdir "$T/bin"
printf '#!/bin/sh\nexec %s -M 0 "$@"\n' "$perfctr" >"$T/bin/likwid-perfctr"
chmod +x "$T/bin/likwid-perfctr"
[ "$(grep -c '^cpuid_topology threadPool .* packageId = 0' "$T/topo.cfg")" -ge 2 ] ||
    skip "the host's first two CPUs are not on one socket: rank 1 would get uncore counters"

# GROUP HOW: one likwid-mpirun run in $T/GROUP (HOW: env or mpiopts)
run() {
    d=$T/$1
    mkdir "$d" && : >"$d/state"
    set -- "$1" "$2" env PATH="$T/bin:$PATH" EMULPMU_STATE="$d/state" EMULPMU_TOPO="$T/topo.cfg" \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        SCOPE_LIKWID_COLLECTOR="$build/helpers/scope-likwid-collect" \
        SCOPE_LIKWID_WRITER="$build/helpers/scope-likwid-write"
    g=$1 how=$2
    shift 2
    if [ "$how" = env ]; then
        set -- "$@" LD_PRELOAD="$emul:$shim" likwid-mpirun
    else
        set -- "$@" LD_PRELOAD="$emul" likwid-mpirun --mpiopts "-x LD_PRELOAD=$emul:$shim"
    fi
    (cd "$d" && timeout 300 "$@" -np 2 -mpi openmpi -g "$g" -m "$app" >"$d/out" 2>"$d/err")
    rc=$?
    [ "$rc" = 0 ] || { sed 's/^/  /' "$d/out" "$d/err" | tail -n 20; fail "$g: likwid-mpirun exited $rc"; return 1; }
    grep -q '^Region: solve-step' "$d/out" || { sed 's/^/  /' "$d/out" "$d/err" | tail -n 20; fail "$g: likwid-mpirun printed no tables"; return 1; }
    for r in 0 1; do
        [ -f "$d/scope-likwid-rank$r.h5" ] || { fail "$g: no scope-likwid-rank$r.h5"; return 1; }
    done
}

check() { # GROUP NAMED [OUT [RANK0 RANK1]]
    d=$T/$1
    "$py" "$src/tests/emulated/check_mpirun.py" "${3:-$d/out}" "${4:-$d/scope-likwid-rank0.h5}" \
        "${5:-$d/scope-likwid-rank1.h5}" --group "$1" \
        --groupfile "/usr/share/likwid/perfgroups/skylake/$1.txt" --named "$2"
}

verdict() { # GROUP NAMED
    check "$1" "$2" >"$T/$1.check" 2>&1
    rc=$?
    sed "s/^/  $1: /" "$T/$1.check"
    [ "$rc" = 0 ] || fail "$1: the rank files lack what likwid-mpirun printed"
}
if run FLOPS_DP env; then
    verdict FLOPS_DP 0,1
fi
if run CLOCK mpiopts; then
    verdict CLOCK 0
    "$py" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["rank1"].attrs["likwid_status"])' \
        "$T/CLOCK/scope-likwid-rank1.h5" | sed 's/^/  CLOCK rank 1: /'
fi
[ "$FAILED" = 0 ] || exit 1

# The checker must fail: each break on its own copy.
d=$T/CLOCK
expect_fail() { # NAME PATTERN OUT RANK0 RANK1
    if check CLOCK 0 "$3" "$4" "$5" >"$T/$1.log" 2>&1; then
        fail "selftest $1: check_mpirun passed: expected a difference"
    elif ! grep -q -- "$2" "$T/$1.log"; then
        sed 's/^/  /' "$T/$1.log" | head -n 5
        fail "selftest $1: no line matching '$2'"
    else
        say "selftest $1: rejected ($(grep -m 1 -- "$2" "$T/$1.log"))"
    fi
}
# a printed event one off (the first FIXC0 row's first cell)
"$py" - "$d/out" >"$T/digit.out" <<'PY'
import sys
done = False
for line in open(sys.argv[1]):
    c = line.split("|")
    if not done and len(c) > 4 and c[2].strip() == "FIXC0":
        v = str(int(c[3]) + 1)
        c[3] = " " * (len(c[3]) - len(v) - 1) + v + " "
        line, done = "|".join(c), True
    sys.stdout.write(line)
PY
expect_fail digit "INSTR_RETIRED_ANY:FIXC0 printed" "$T/digit.out" "$d/scope-likwid-rank0.h5" "$d/scope-likwid-rank1.h5"
for mode in cpi name status clock; do
    cp "$d/scope-likwid-rank0.h5" "$T/$mode-0.h5"
    cp "$d/scope-likwid-rank1.h5" "$T/$mode-1.h5"
    "$py" - "$T/$mode-0.h5" "$T/$mode-1.h5" "$mode" <<'PY'
import sys, h5py
mode = sys.argv[3]
with h5py.File(sys.argv[1], "r+") as f0, h5py.File(sys.argv[2], "r+") as f1:
    g = [g for g in f0["rank0/likwid/regions"].values() if g.attrs["tag"] == "solve-step"][0]
    names = [str(x) for x in g.attrs["metric_names"]]
    if mode == "cpi":       # within likwid-mpirun's rounding, off the formula
        g["metrics"][names.index("CPI"), 0] *= 1 + 1e-6
    elif mode == "clock":
        g["metrics"][names.index("Clock [MHz]"), 0] *= 1.1
    elif mode == "name":
        g.attrs["group_name"] = "Custom"
    else:                   # rank 1 left Energy [J] out: the status no longer says so
        r = f1["rank1"]
        r.attrs["likwid_status"] = str(r.attrs["likwid_status"]).replace("Energy [J] (", "Energy (")
PY
done
expect_fail cpi "metric 'CPI': file" "$d/out" "$T/cpi-0.h5" "$T/cpi-1.h5"
expect_fail name "group 'Custom'" "$d/out" "$T/name-0.h5" "$T/name-1.h5"
expect_fail status "metric 'Energy \[J\]' printed" "$d/out" "$T/status-0.h5" "$T/status-1.h5"
expect_fail clock "clock ratio\|25%" "$d/out" "$T/clock-0.h5" "$T/clock-1.h5"
[ "$FAILED" = 0 ] || exit 1
say "PASS: likwid-mpirun -np 2 (FLOPS_DP, CLOCK) on emulated Skylake: every printed event and metric in the rank files"
