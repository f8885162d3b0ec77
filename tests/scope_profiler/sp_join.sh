#!/bin/sh
# scope-profiler's own files (tests/data/scope_profiler: written the way
# scope-profiler 0.2.1 writes profiling_data.h5, by make_fixture.py there):
# our counters joined into them (convert MARKERFILE / RESULT.h5 --into),
# nothing else changed (sp_join_check.py, h5py); read by show, export, diff
# and plot; merged with ours, still in scope-profiler's layout (sp_load.py).
# Also, for our own files: likwid_status replaced by convert --into, no
# empty rank0/regions from a marker file, region names as scope-profiler
# gives them.
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SHIM SL_SOLVER SL_CLI SL_SIM_DIR SL_SIM_PERFCTR
pick_python
FIX=$SL_SRC/tests/data/scope_profiler
SP021=$FIX/sp021_two_ranks.h5
MARKER=$SL_SRC/tests/data/samples/v52_two_groups.txt
CHECK="$PY $SL_SRC/tests/scope_profiler/sp_join_check.py"
SP="$PY $SL_SRC/tests/scope_profiler/sp_load.py"
O=$T/out
mkdir -p "$O"
# the fixture: 2 ranks x (init 1, solve-step 5, residual 5, 50% 1,
# .hidden 2, io phase 1)
SPCALLS=30

ok_run() {  # ok_run NAME CMD...: must exit 0
    run "$@"
    [ "$(rc_of "$1")" = 0 ] || { fail "$1: exited $(rc_of "$1")"; show_run "$1"; }
}
verify() {  # verify NAME CMD...: a checker that must pass
    name=$1
    shift
    if "$@" >"$T/$name.log" 2>&1; then sed "s/^/$name: /" "$T/$name.log"
    else fail "$name:"; sed 's/^/    /' "$T/$name.log"; fi
}

# our results: from a marker file (marker_file), a simulated LIKWID run
# (full_api, names and metrics), and the shim without counters
ok_run ours "$SL_CLI" convert "$MARKER" -o "$O/ours.h5"
SIMLIKWID_READBACK=ok
export SIMLIKWID_READBACK
sim simrun env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
simf=$(result_file simrun) || { fail "no result file from the simulated-LIKWID run"; show_run simrun; }
run real env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
real=$(result_file real) || { fail "no result file from the shim"; show_run real; }

# 1. join: a marker file into rank0, our result into rank0, a marker file
# into rank1, and again (replacing) into a joined file
cp "$SP021" "$O/j-marker.h5"
ok_run j-marker "$SL_CLI" convert "$MARKER" --into "$O/j-marker.h5"
verify check-marker $CHECK "$SP021" "$O/j-marker.h5" rank0 --like "$O/ours.h5"
cp "$SP021" "$O/j-result.h5"
ok_run j-result "$SL_CLI" convert "$simf" --into "$O/j-result.h5"
verify check-result $CHECK "$SP021" "$O/j-result.h5" rank0 --like "$simf"
"$PY" -c 'import sys, h5py
r = h5py.File(sys.argv[1], "r")["rank0/likwid/regions"]
m = [len(g.attrs["metric_names"]) for g in r.values()]
sys.exit(0 if r and all(m) else "no metric names joined from a full_api result")' "$O/j-result.h5" ||
    fail "convert RESULT.h5 --into: the counters came without LIKWID's names and metrics"
cp "$SP021" "$O/j-rank1.h5"
ok_run j-rank1 "$SL_CLI" convert "$MARKER" --rank 1 --into "$O/j-rank1.h5"
verify check-rank1 $CHECK "$SP021" "$O/j-rank1.h5" rank1 --like "$O/ours.h5" --like-rank rank0
cp "$O/j-result.h5" "$O/j-again.h5"
ok_run j-again "$SL_CLI" convert "$MARKER" --into "$O/j-again.h5"
verify check-again $CHECK "$SP021" "$O/j-again.h5" rank0 --like "$O/ours.h5"
# a rescue file (the writer missing) of a counting run joins the same way
(SCOPE_LIKWID_WRITER=$T/nonexistent SCOPE_LIKWID_OUTPUT=$O/r.h5
 export SCOPE_LIKWID_WRITER SCOPE_LIKWID_OUTPUT
 sim simresc env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER")
if [ -f "$O/r.h5.rescue" ]; then
    cp "$SP021" "$O/j-rescue.h5"
    ok_run j-rescue "$SL_CLI" convert "$O/r.h5.rescue" --into "$O/j-rescue.h5"
    verify check-rescue $CHECK "$SP021" "$O/j-rescue.h5" rank0
else
    fail "no rescue file $O/r.h5.rescue"
    show_run simresc
fi
# scope-profiler's readers take the joined file
verify load-joined $SP "$O/j-result.h5" --ranks 2 --calls $SPCALLS
verify load-rank1 $SP "$O/j-rank1.h5" --ranks 2 --calls $SPCALLS

# refused, and left as they were: a rank the file lacks; a file without
# scope_profiler_version (any other HDF5 file)
cp "$SP021" "$O/norank.h5"
run norank "$SL_CLI" convert "$MARKER" --rank 5 --into "$O/norank.h5"
[ "$(rc_of norank)" = 1 ] || fail "convert --rank 5 --into a file without rank5 exited $(rc_of norank): expected 1"
grep -q "norank.h5: no /rank5 in this scope-profiler file" "$T/norank.err" ||
    { fail "no rank5: message"; show_run norank; }
cmp -s "$SP021" "$O/norank.h5" || fail "refused convert --into changed the file"
cp "$SP021" "$O/notsp.h5"
"$PY" -c 'import sys, h5py; del h5py.File(sys.argv[1], "a")["metadata"].attrs["scope_profiler_version"]' "$O/notsp.h5"
cp "$O/notsp.h5" "$O/notsp.before.h5"
run notsp "$SL_CLI" convert "$MARKER" --into "$O/notsp.h5"
[ "$(rc_of notsp)" = 1 ] || fail "convert --into an HDF5 file that is not scope-profiler's exited $(rc_of notsp): expected 1"
grep -q "notsp.h5: an HDF5 file, but not a scope-likwid result file" "$T/notsp.err" ||
    { fail "other HDF5: message"; show_run notsp; }
cmp -s "$O/notsp.before.h5" "$O/notsp.h5" || fail "refused convert --into changed the other HDF5 file"
# such a file as merge's input or convert's source: said the same way
NEITHER='an HDF5 file, but not a scope-likwid result file (no root attribute format = "scope-likwid") nor a scope-profiler file (/metadata with scope_profiler_version, rank<N> groups with regions)'
run merge-other "$SL_CLI" merge -o "$O/mo.h5" "$O/notsp.h5" "$O/ours.h5"
[ "$(rc_of merge-other)" = 1 ] || fail "merge of another HDF5 file exited $(rc_of merge-other): expected 1"
[ "$(head -1 "$T/merge-other.err")" = "scope-likwid: merge: $O/notsp.h5: $NEITHER" ] ||
    { fail "merge of another HDF5 file: message"; show_run merge-other; }
run convert-other "$SL_CLI" convert "$O/notsp.h5" -o "$O/co.h5"
[ "$(rc_of convert-other)" = 1 ] || fail "convert of another HDF5 file exited $(rc_of convert-other): expected 1"
[ "$(cat "$T/convert-other.err")" = "scope-likwid: convert: $O/notsp.h5: $NEITHER" ] ||
    { fail "convert of another HDF5 file: message"; show_run convert-other; }

# 2. read their files: show, export, diff, plot
ok_run show "$SL_CLI" show "$SP021"
for want in "Rank 1 (group rank1, mpi_rank 1" "| 50%  " "| .hidden  " "| solve-step |       1 |     5 |" \
    "host node17, mpi_size 2, omp_num_threads 2" "Timing (scope-profiler, clock CLOCK_MONOTONIC)"; do
    grep -qF "$want" "$T/show.out" || fail "show of their file lacks '$want'"
done
# damaged ones: one line naming the file, the object and what is wrong
"$PY" - "$SP021" "$O/j-result.h5" "$O" <<'PY' || fail "making the damaged scope-profiler files"
import shutil, sys, h5py, numpy as np
sp, joined, out = sys.argv[1:4]
def damaged(name, src, how):
    shutil.copy(src, "%s/%s.h5" % (out, name))
    with h5py.File("%s/%s.h5" % (out, name), "a") as f:
        how(f)
def noend(f): del f["rank1/regions/init/end_times"]
def notgroup(f): f["rank0/regions"].create_dataset("stray", data=[1])
def lengths(f):
    del f["rank0/regions/50%/end_times"]
    f["rank0/regions/50%"].create_dataset("end_times", data=np.zeros(2, dtype=np.int64))
def source(f): f["rank0/likwid/regions/init"].attrs["source"] = "guess"
def notimes(f): del f["rank0/likwid/regions/init/times"]
def counters(f):
    g = f["rank0/likwid/regions/init"]
    n = len(g.attrs["event_names"])
    g.attrs.create("counter_names", ["c"] * (n + 1), dtype=h5py.string_dtype())
damaged("noend", sp, noend)
damaged("notgroup", sp, notgroup)
damaged("lengths", sp, lengths)
damaged("source", joined, source)
damaged("notimes", joined, notimes)
damaged("counters", joined, counters)
PY
bad_sp() {  # bad_sp NAME MESSAGE: show exits 1 with that one line
    run "bad-$1" "$SL_CLI" show "$O/$1.h5"
    [ "$(rc_of "bad-$1")" = 1 ] || fail "show of $1.h5 exited $(rc_of "bad-$1"): expected 1"
    [ "$(cat "$T/bad-$1.err")" = "scope-likwid: show: $O/$1.h5: $2" ] || { fail "show of $1.h5: message"; show_run "bad-$1"; }
}
bad_sp noend "/rank1/regions/init/end_times: dataset missing: expected a dataset"
bad_sp notgroup "/rank0/regions/stray: not a group: expected a region with start_times and end_times"
bad_sp lengths "/rank0/regions/50%/end_times: wrong shape: expected a dataset of shape (1,)"
bad_sp source '/rank0/likwid/regions/init/source: unknown source "guess": expected full_api, marker_file or marker_api'
bad_sp notimes "/rank0/likwid/regions/init/times: dataset missing: expected a float64 dataset"
bad_sp counters "/rank0/likwid/regions/init/counter_names: 7 names: expected at most 6, one per event"
ok_run show-joined "$SL_CLI" show "$O/j-result.h5"
grep -q "LIKWID counters (source full_api)" "$T/show-joined.out" || fail "show of the joined file: no counters"
ok_run export "$SL_CLI" export --format csv -o "$O/sp.csv" "$O/j-marker.h5"
"$PY" - "$O/sp.csv" >"$T/csv.log" 2>&1 <<'PY' || { fail "export of their file:"; sed 's/^/    /' "$T/csv.log"; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
io = [r for r in rows if r["rank_group"] == "rank1" and r["tag"] == "io phase"]
assert len(io) == 1 and io[0]["timing_calls"] == "1" and io[0]["timing_total_ns"] == "3100000", io
st = [r for r in rows if r["rank_group"] == "rank0" and r["tag"] == "solve-step"]
assert st and all(r["source"] == "marker_file" and r["timing_calls"] == "5" for r in st), st
print("export ok: %d rows" % len(rows))
PY
# Durations from any int64 pair: an end before its start, extremes. min,
# max and total as h5py computes them (total saturating at the int64 ends).
"$PY" - "$SP021" "$O/odd.h5" <<'PY' || fail "making the odd-duration file"
import shutil, sys, h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "a") as f:
    r = f["rank0/regions"]
    for name, (s, e) in {"init": ([5000, 10], [1, 30]),
                         "residual": ([0, 0], [2**63 - 1, 2**63 - 1])}.items():
        del r[name]
        g = r.create_group(name)
        g["start_times"] = np.array(s, dtype=np.int64)
        g["end_times"] = np.array(e, dtype=np.int64)
PY
ok_run export-odd "$SL_CLI" export --format csv -o "$O/odd.csv" "$O/odd.h5"
"$PY" - "$O/odd.csv" >"$T/odd.log" 2>&1 <<'PY' || { fail "export of odd durations:"; sed 's/^/    /' "$T/odd.log"; }
import csv, sys
rows = {r["tag"]: r for r in csv.DictReader(open(sys.argv[1])) if r["rank_group"] == "rank0"}
want = {"init": (-4999, 20, -4979), "residual": (2**63 - 1, 2**63 - 1, 2**63 - 1)}
for tag, (lo, hi, total) in want.items():
    got = (int(rows[tag]["timing_min_ns"]), int(rows[tag]["timing_max_ns"]), int(rows[tag]["timing_total_ns"]))
    assert got == (lo, hi, total), (tag, got, (lo, hi, total))
print("odd durations ok")
PY
ok_run export-json "$SL_CLI" export --format json -o "$O/sp.json" "$SP021"
"$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$O/sp.json" || fail "export --format json of their file: not JSON"
"$PY" "$FIX/make_fixture.py" "$O" --slower || fail "make_fixture.py --slower"
run diff "$SL_CLI" diff "$SP021" "$O/sp021_slower.h5"
[ "$(rc_of diff)" = 1 ] || { fail "diff of a slower scope-profiler file exited $(rc_of diff): expected 1"; show_run diff; }
[ "$(grep -c 'solve-step | timing | time/call \[ms\] |    median | 2.02 | 2.525 | +25.0% |  slower' "$T/diff.out")" = 2 ] ||
    { fail "diff: solve-step not 25 % slower on both ranks"; show_run diff; }
[ "$(grep -c '|  slower |' "$T/diff.out")" = 2 ] || { fail "diff: other regions slower"; show_run diff; }
ok_run diff-same "$SL_CLI" diff "$SP021" "$O/j-marker.h5"
ok_run plot "$SL_CLI" plot -o "$O/sp.html" "$O/j-marker.h5"
grep -q "solve-step" "$O/sp.html" || fail "plot of their file does not show solve-step"

# 3. merge theirs and ours: still scope-profiler's layout, read by our tools
if [ -n "${simf:-}" ]; then
    ok_run merge "$SL_CLI" merge -o "$O/m.h5" "$O/j-marker.h5" "$simf"
    # /metadata is the one of the input holding rank 0: theirs
    verify load-merged $SP "$O/m.h5" --ranks 3 --calls $((SPCALLS + 42))
    "$PY" -c 'import sys, h5py
sys.exit(0 if h5py.File(sys.argv[1], "r")["metadata"].attrs["scope_profiler_version"] == "0.2.1"
         else "merged /metadata is not the one of the input holding rank 0")' "$O/m.h5" ||
        fail "merged /metadata: expected scope-profiler's, of the input holding rank 0"
    groups=$(h5ls "$O/m.h5" | awk '{print $1}' | tr '\n' ' ')
    [ "$groups" = "metadata rank0 rank1 rank2 " ] || fail "merged groups '$groups': expected metadata rank0 rank1 rank2"
    ok_run show-merged "$SL_CLI" show "$O/m.h5"
    for want in "j-marker.h5:rank0)" "j-marker.h5:rank1)" "LIKWID counters (source full_api)" \
        "LIKWID counters (source marker_file)"; do
        grep -qF "$want" "$T/show-merged.out" || fail "show of the merged file lacks '$want'"
    done
    ok_run diff-merged "$SL_CLI" diff "$O/m.h5" "$O/m.h5"
    ok_run merge-again "$SL_CLI" merge -o "$O/mm.h5" "$O/m.h5" "$SP021"
    verify load-merged-again $SP "$O/mm.h5" --ranks 5 --calls $((2 * SPCALLS + 42))
fi

# 4. our files: likwid_status replaced; no empty regions from a marker file;
# region names as scope-profiler gives them
if [ -n "${real:-}" ]; then
    cp "$real" "$O/ours-into.h5"
    ok_run into-ours "$SL_CLI" convert "$MARKER" --into "$O/ours-into.h5"
    st=$("$PY" -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r")["rank0"].attrs["likwid_status"])' "$O/ours-into.h5")
    case $st in
    "marker_file: converted from $MARKER by scope-likwid convert") ;;
    *) fail "likwid_status after convert --into is '$st': expected the marker file's only" ;;
    esac
fi
"$PY" -c 'import sys, h5py
g = h5py.File(sys.argv[1], "r")["rank0"]
sys.exit("rank0/regions present in a file without timing: expected it left out" if "regions" in g else 0)' "$O/ours.h5" ||
    fail "convert of a marker file wrote an empty rank0/regions"
run names env LD_PRELOAD="$SL_SHIM" "$PY" -c 'import ctypes
s = ctypes.CDLL(None)
s.likwid_markerInit()
for t in (b"50%", b".hidden", b"a/b", b"solve"):
    s.likwid_markerStartRegion(t)
    s.likwid_markerStopRegion(t)
s.likwid_markerClose()'
if f=$(result_file names); then
    got=$("$PY" -c 'import sys, h5py; print(sorted(h5py.File(sys.argv[1], "r")["rank0/regions"]))' "$f")
    [ "$got" = "['.hidden', '50%', 'a|b', 'solve']" ] ||
        fail "region names $got: expected ['.hidden', '50%', 'a|b', 'solve'], as scope-profiler names them"
    verify load-names $SP "$f" --ranks 1 --calls 4
else
    fail "no result file from the run with tags 50%, .hidden, a/b"
    show_run names
fi
finish
