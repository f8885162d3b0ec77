#!/bin/sh
# scope-likwid run under mpirun, each rank running `scope-likwid run`: each
# rank's run names its own rank's file only, one line (Open MPI,
# --output-filename: every rank's stdout and stderr apart); the files are
# scope-likwid-rank<R>.h5, which README.md's `merge -o job.h5
# scope-likwid-rank*.h5` makes one file of (checked with h5ls).
# Third argument: a program using the marker API; fourth: the shim.
. "$(dirname "$0")/lib.sh"
APP=$3
case $APP in /*) ;; *) APP=$START/$APP ;; esac
unset SCOPE_LIKWID_OUTPUT SCOPE_LIKWID_SHIM SCOPE_LIKWID_DISABLE || true
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (Debian package openmpi-bin)"
    exit 77
fi
NP=3
SCOPE_LIKWID_PERFCTR=none
SCOPE_LIKWID_QUIET=1
export SCOPE_LIKWID_PERFCTR SCOPE_LIKWID_QUIET
RC=0
mpirun --allow-run-as-root --oversubscribe -np $NP --output-filename "$TMP/o" \
    -x SCOPE_LIKWID_PERFCTR -x SCOPE_LIKWID_QUIET "$SL" run -- "$APP" \
    >"$TMP/mpirun.out" 2>"$TMP/mpirun.err" || RC=$?
_name=mpirun
if [ "$RC" -ne 0 ] && [ ! -d "$TMP/o" ]; then
    echo "SKIP: mpirun cannot start $NP ranks here: $(head -c 300 "$TMP/mpirun.err")"
    exit 77
fi
check_rc 0 "mpirun -np $NP scope-likwid run"
r=0
while [ $r -lt $NP ]; do
    d=$TMP/o/1/rank.$r
    CHECKS=$((CHECKS + 1))
    pid=$(sed -n 's/^pid //p' "$d/stdout" 2>/dev/null || true)
    lines=$(grep '^scope-likwid: run: result in' "$d/stderr" 2>/dev/null || true)
    want="scope-likwid: run: result in $TMP/scope-likwid-rank$r.h5"
    if [ -z "$pid" ] || [ "$lines" != "$want" ]; then
        fail "rank $r: said '$lines', expected only '$want'"
    fi
    CHECKS=$((CHECKS + 1))
    [ -f "$TMP/scope-likwid-rank$r.h5" ] || fail "rank $r: scope-likwid-rank$r.h5 not written"
    r=$((r + 1))
done
# README.md's merge of a job's rank files
sl merge merge -o job.h5 scope-likwid-rank*.h5
check_rc 0 "merge -o job.h5 scope-likwid-rank*.h5"
CHECKS=$((CHECKS + 1))
if command -v h5ls >/dev/null 2>&1; then
    groups=$(h5ls job.h5 | awk '{print $1}' | grep '^rank' | tr '\n' ' ')
    [ "$groups" = "rank0 rank1 rank2 " ] || fail "merged rank files: groups '$groups', expected rank0 rank1 rank2"
fi
CHECKS=$((CHECKS + 1))
[ ! -s "$TMP/merge.err" ] || fail "merge of the rank files said: $(cat "$TMP/merge.err")"
CHECKS=$((CHECKS + 1))
n=$(cat "$TMP"/o/1/rank.*/stderr | grep -c '^scope-likwid: run: result in' || true)
[ "$n" = $NP ] || fail "$n 'result in' lines from $NP ranks: expected $NP"
finish
