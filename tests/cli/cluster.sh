#!/bin/sh
# Results on a cluster: default names carry the batch job id, /metadata's
# run_id is shared by one launch's ranks only, merge refuses to mix launches
# (--allow-mixed merges them) and says when ranks ran on different
# executables; the rank groups' provenance equals what the host says (read
# here with h5py and Python, not with our reader). The batch systems'
# variables are set by the test; the rank cases run under Open MPI (SKIP
# without mpirun or h5py).
# Third argument: a program using the marker API; fourth: the shim.
. "$(dirname "$0")/lib.sh"
APP=$3
SHIM=$4
case $APP in /*) ;; *) APP=$START/$APP ;; esac
case $SHIM in /*) ;; *) SHIM=$START/$SHIM ;; esac
unset SCOPE_LIKWID_OUTPUT SCOPE_LIKWID_DISABLE SLURM_JOB_ID SLURM_STEP_ID PBS_JOBID \
    LSB_JOBID FLUX_JOB_ID JOB_ID PMIX_NAMESPACE OMPI_MCA_ess_base_jobid || true
PY=/usr/bin/python3
if ! "$PY" -c 'import h5py' 2>/dev/null; then
    echo "SKIP: h5py not importable by $PY (Debian package python3-h5py)"
    exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (Debian package openmpi-bin)"
    exit 77
fi
SCOPE_LIKWID_QUIET=1
export SCOPE_LIKWID_QUIET

# attr FILE OBJECT NAME: the attribute's value ("<absent>" when missing)
attr() {
    "$PY" -c 'import h5py, sys
with h5py.File(sys.argv[1], "r") as f:
    a = f[sys.argv[2]].attrs
    v = a.get(sys.argv[3])
    print("<absent>" if v is None else (v.decode() if isinstance(v, bytes) else v))' "$@"
}
# check_eq GOT WANT WHAT
check_eq() {
    CHECKS=$((CHECKS + 1))
    [ "$1" = "$2" ] || fail "$3: '$1', expected '$2'"
}

# ---- a Slurm job, serial: the job id in the name, job + step as run_id ----
mkdir "$TMP/slurm"
(cd "$TMP/slurm" && SLURM_JOB_ID=4242 SLURM_STEP_ID=0 LD_PRELOAD=$SHIM "$APP") \
    >"$TMP/slurm.out" 2>"$TMP/slurm.err" || fail "slurm run: exit $?"
pid=$(sed -n 's/^pid //p' "$TMP/slurm.out")
f=$TMP/slurm/scope-likwid-4242-$pid.h5
check_eq "$(ls "$TMP/slurm")" "scope-likwid-4242-$pid.h5" "Slurm job: the default name"
# a serial process is a launch of its own: job, step, then the process
check_eq "$(attr "$f" metadata run_id | sed 's/:[0-9]*$//')" "slurm-4242.0/$(hostname):$pid" \
    "Slurm job: run_id"
# provenance, against what this host says
check_eq "$(attr "$f" rank0 cpu_model)" \
    "$("$PY" -c 'print(next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")))')" \
    "cpu_model"
check_eq "$(attr "$f" rank0 kernel_release)" "$("$PY" -c 'import os; print(os.uname().release)')" \
    "kernel_release"
check_eq "$(attr "$f" rank0 clock_source)" \
    "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" "clock_source"
CHECKS=$((CHECKS + 1))
tsc=$(attr "$f" rank0 tsc_hz)
case $tsc in
"<absent>") ;;  # CPUID 0x15 says nothing (most virtual machines)
*[!0-9]* | 0) fail "tsc_hz '$tsc': expected a positive count or no attribute" ;;
esac
# show and show --json say it too: the title's cpu and LIKWID version, the
# JSON's keys, the same values as the attributes (h5py)
"$SL" show "$f" >"$TMP/show.out" 2>&1 || fail "show $f failed: $(cat "$TMP/show.out")"
cpu=$(attr "$f" rank0 cpu_model)
lv=$(attr "$f" rank0 likwid_version)
check_eq "$(grep '^Rank 0 (' "$TMP/show.out" | grep -cF ", cpu $cpu, LIKWID $lv, ")" 1 \
    "show: the rank title naming cpu '$cpu' and LIKWID '$lv' ($(grep '^Rank 0' "$TMP/show.out"))"
"$SL" show --json "$f" >"$TMP/show.json" 2>&1 || fail "show --json $f failed"
check_eq "$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
print(r["cpu_model"], r["likwid_version"], r["kernel_release"], r["clock_source"], sep="|")' "$TMP/show.json")" \
    "$cpu|$lv|$(attr "$f" rank0 kernel_release)|$(attr "$f" rank0 clock_source)" "show --json: provenance keys"
# scope-likwid run in a job: its default name carries the job id too
mkdir "$TMP/runjob"
(cd "$TMP/runjob" && SLURM_JOB_ID=4242 SCOPE_LIKWID_PERFCTR=none "$SL" run -- "$APP") \
    >"$TMP/runjob.out" 2>"$TMP/runjob.err" || fail "run in a job: exit $?"
pid=$(sed -n 's/^pid //p' "$TMP/runjob.out")
check_eq "$(grep 'result in' "$TMP/runjob.err")" \
    "scope-likwid: run: result in $TMP/runjob/scope-likwid-run-4242-$pid.h5" "run in a job: the name"
# a serial run without a job: the process is the launch
(cd "$TMP/slurm" && LD_PRELOAD=$SHIM "$APP") >"$TMP/serial.out" 2>&1 || fail "serial run: exit $?"
pid=$(sed -n 's/^pid //p' "$TMP/serial.out")
CHECKS=$((CHECKS + 1))
case $(attr "$TMP/slurm/scope-likwid-$pid.h5" metadata run_id) in
"$(hostname):$pid:"[0-9]*) ;;
*) fail "serial run_id '$(attr "$TMP/slurm/scope-likwid-$pid.h5" metadata run_id)': expected HOST:$pid:START" ;;
esac

# ---- site-wide: a central directory by user and date, excluded programs ----
# %u is the user running it (its passwd name), whatever USER says.
me=$(id -un)
mkdir "$TMP/central"
chmod 1777 "$TMP/central"
(cd "$TMP" && USER=ann SCOPE_LIKWID_OUTPUT="$TMP/central/%u/%d/" LD_PRELOAD=$SHIM "$APP") \
    >"$TMP/site.out" 2>&1 || fail "central directory run: exit $?"
pid=$(sed -n 's/^pid //p' "$TMP/site.out")
day=$(date -u +%Y-%m-%d)
CHECKS=$((CHECKS + 1))
# (a run across midnight UTC may name the day before)
[ -f "$TMP/central/$me/$day/scope-likwid-$pid.h5" ] ||
    [ -f "$TMP/central/$me/$(date -u -d yesterday +%Y-%m-%d)/scope-likwid-$pid.h5" ] ||
    fail "central directory: no $TMP/central/$me/$day/scope-likwid-$pid.h5: $(find "$TMP/central")"
before=$(find "$TMP/central" | sort)
(cd "$TMP" && SCOPE_LIKWID_EXCLUDE="bash:marker_*" SCOPE_LIKWID_OUTPUT="$TMP/central/%u/%d/" \
    SCOPE_LIKWID_QUIET=0 USER=bob LD_PRELOAD=$SHIM "$APP") >"$TMP/excl.out" 2>"$TMP/excl.err" ||
    fail "excluded run: exit $?"
CHECKS=$((CHECKS + 1))
[ "$(find "$TMP/central" | sort)" = "$before" ] ||
    fail "excluded program: created $(find "$TMP/central" | sort | grep -vxF "$before")"
check_eq "$(grep 'scope-likwid:' "$TMP/excl.err" || true)" "" "excluded program: nothing said"

# ---- a PBS job, 2 ranks, launched twice in one directory ----
NP=2
mkdir "$TMP/pbs"
launch() {
    (cd "$TMP/pbs" && PBS_JOBID=77.pbs mpirun --allow-run-as-root --oversubscribe -np $NP \
        -x PBS_JOBID -x SCOPE_LIKWID_QUIET -x LD_PRELOAD="$SHIM" "$APP") \
        >"$TMP/pbs-$1.out" 2>"$TMP/pbs-$1.err"
}
if ! launch 1; then
    echo "SKIP: mpirun cannot start $NP ranks here: $(head -c 300 "$TMP/pbs-1.err")"
    exit 77
fi
launch 2 || fail "second launch: exit $?"
check_eq "$(cd "$TMP/pbs" && ls | tr '\n' ' ')" \
    "scope-likwid-77.pbs-rank0.1.h5 scope-likwid-77.pbs-rank0.h5 scope-likwid-77.pbs-rank1.1.h5 scope-likwid-77.pbs-rank1.h5 " \
    "PBS job: the default names (the second launch beside the first)"
id1=$(attr "$TMP/pbs/scope-likwid-77.pbs-rank0.h5" metadata run_id)
id2=$(attr "$TMP/pbs/scope-likwid-77.pbs-rank0.1.h5" metadata run_id)
CHECKS=$((CHECKS + 1))
case $id1 in
pbs-77.pbs/?*) ;;
*) fail "PBS run_id '$id1': expected pbs-77.pbs/NAMESPACE" ;;
esac
check_eq "$(attr "$TMP/pbs/scope-likwid-77.pbs-rank1.h5" metadata run_id)" "$id1" \
    "the ranks of one launch share the run_id"
CHECKS=$((CHECKS + 1))
[ "$id1" != "$id2" ] || fail "two launches have the same run_id '$id1'"

# merge: one launch merges; two launches are refused, naming both
cd "$TMP/pbs"
sl one merge -o "$TMP/one.h5" scope-likwid-77.pbs-rank0.h5 scope-likwid-77.pbs-rank1.h5
check_rc 0 "merge of one launch"
check_eq "$(cat "$TMP/one.err")" "" "merge of one launch: nothing said"
sl mixed merge -o "$TMP/mixed.h5" scope-likwid-77.pbs-rank*.h5
check_rc 1 "merge of two launches"
check_eq "$(cat "$TMP/mixed.err")" "scope-likwid: merge: scope-likwid-77.pbs-rank0.h5: run_id '$id1', but scope-likwid-77.pbs-rank0.1.h5 has run_id '$id2': the files are of different launches (--allow-mixed merges them anyway)
scope-likwid: merge: $TMP/mixed.h5: nothing written" "merge of two launches: refused"
CHECKS=$((CHECKS + 1))
[ ! -e "$TMP/mixed.h5" ] || fail "merge of two launches wrote $TMP/mixed.h5"
sl allowed merge --allow-mixed -o "$TMP/mixed.h5" scope-likwid-77.pbs-rank*.h5
check_rc 0 "merge --allow-mixed"
check_eq "$("$PY" -c 'import h5py, sys; print(len([k for k in h5py.File(sys.argv[1], "r") if k.startswith("rank")]))' "$TMP/mixed.h5")" \
    4 "merge --allow-mixed: every rank group"
# --per-launch: one file per launch, named by its run_id; of one launch, OUT
sl perl merge --per-launch -o "$TMP/pl.h5" scope-likwid-77.pbs-rank*.h5
check_rc 0 "merge --per-launch"
n1=$(printf '%s' "$id1" | tr -c 'A-Za-z0-9.-' '_')
n2=$(printf '%s' "$id2" | tr -c 'A-Za-z0-9.-' '_')
want=$(printf 'wrote %s\nwrote %s' "$TMP/pl.$n1.h5" "$TMP/pl.$n2.h5" | sort)
check_eq "$(sort "$TMP/perl.out")" "$want" "merge --per-launch: a file per launch"
for n in "$n1:$id1" "$n2:$id2"; do
    check_eq "$("$PY" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
print(sorted(k for k in f if k.startswith("rank")), f["metadata"].attrs["run_id"])' "$TMP/pl.${n%%:*}.h5")" \
        "['rank0', 'rank1'] ${n#*:}" "merge --per-launch: $TMP/pl.${n%%:*}.h5 holds its launch's ranks"
done
sl perl1 merge --per-launch -o "$TMP/pl1.h5" scope-likwid-77.pbs-rank0.h5 scope-likwid-77.pbs-rank1.h5
check_rc 0 "merge --per-launch of one launch"
check_eq "$(cat "$TMP/perl1.out")" "wrote $TMP/pl1.h5" "merge --per-launch of one launch: OUT itself"
cd "$TMP"

# merge says when the rank groups ran different executables
cp "$APP" "$TMP/other_app"
(cd "$TMP/slurm" && SLURM_JOB_ID=4242 SLURM_STEP_ID=0 LD_PRELOAD=$SHIM "$TMP/other_app") \
    >"$TMP/other.out" 2>&1 || fail "other_app: exit $?"
pid2=$(sed -n 's/^pid //p' "$TMP/other.out")
pid1=$(sed -n 's/^pid //p' "$TMP/slurm.out")
# (two serial processes are two launches: --allow-mixed)
sl exes merge --allow-mixed -o "$TMP/exes.h5" "$TMP/slurm/scope-likwid-4242-$pid1.h5" \
    "$TMP/slurm/scope-likwid-4242-$pid2.h5"
check_rc 0 "merge of two executables"
# (both are rank 0: the clash is said too)
# (inputs are read in natural order of their names: the lower pid first)
if [ "$pid1" -lt "$pid2" ]; then pair="'$APP', '$TMP/other_app'"; else pair="'$TMP/other_app', '$APP'"; fi
check_eq "$(grep 'note:' "$TMP/exes.err")" "scope-likwid: merge: $TMP/exes.h5: note: the rank groups ran on different executables ($pair, ...)" \
    "merge of two executables: one line"
finish
