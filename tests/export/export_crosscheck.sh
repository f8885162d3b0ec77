#!/bin/sh
# export_crosscheck.sh MODE: builds result files, exports them as CSV and
# JSON and has check_export.py (h5py + pandas) compare every value.
#   samples  every marker file in tests/data/samples, converted
#   fixture  tests/h5's sample writer: 2 ranks, awkward tags, full_api
#            names and metrics, marker_file and marker_api regions, timing
#   sim      examples/solver under the simulated LIKWID (full_api: names,
#            metrics, timing of the same regions)
#   nocount  examples/solver under the real LIKWID that cannot count here:
#            timing only
# Also checks that the checker itself notices a wrong cell.
. "$(dirname "$0")/lib.sh"
pick_python
MODE=${1:?MODE}

cross() {  # cross NAME FILE.h5
    sl "$1.csv" export "$2" --format csv
    check_rc 0 "export $1 csv"
    sl "$1.json" export "$2" --format json
    check_rc 0 "export $1 json"
    CHECKS=$((CHECKS + 1))
    if "$PY" "$SL_SRC/check_export.py" "$2" "$TMP/$1.csv.out" "$TMP/$1.json.out" >"$TMP/$1.check" 2>&1; then
        echo "$1: $(cat "$TMP/$1.check")"
    else
        fail "$1: $(tail -c 800 "$TMP/$1.check")"
    fi
}

files=
case $MODE in
samples)
    for s in "$SL_SAMPLES"/*.txt; do
        n=$(basename "$s" .txt)
        "$SL_CLI" convert "$s" -o "$TMP/$n.h5" >/dev/null 2>"$TMP/$n.conv.err" ||
            fail "convert $n: $(cat "$TMP/$n.conv.err")"
        cross "$n" "$TMP/$n.h5"
        files="$files $n"
    done
    ;;
fixture)
    "$SL_SAMPLE_WRITER" "$TMP/fixture.h5" >/dev/null || fail "sample writer failed"
    cross fixture "$TMP/fixture.h5"
    # merged with a copy: every rank gains its origin, the copies new numbers
    cp "$TMP/fixture.h5" "$TMP/copy.h5"
    (cd "$TMP" && "$SL_CLI" merge -o merged.h5 fixture.h5 copy.h5 >/dev/null 2>&1) ||
        fail "merge fixture.h5 copy.h5"
    cross merged "$TMP/merged.h5"
    CHECKS=$((CHECKS + 1))
    grep -q '^[0-9]*,3,rank[0-9]*,4245,copy.h5,rank3,' "$TMP/merged.csv.out" ||
        fail "merged: no row with the origin of copy.h5's rank3: $(head -c 600 "$TMP/merged.csv.out")"
    files="fixture merged"
    ;;
sim|nocount)
    if [ -z "$SL_SOLVER" ] || { [ "$MODE" = sim ] && [ -z "$SL_SIM_PERFCTR" ]; }; then
        echo "SKIP: the solver or the simulated LIKWID is not built here"
        exit 77
    fi
    for v in $(env | sed -n 's/^\(LIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SCOPE_LIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SIMLIKWID_[A-Za-z0-9_]*\)=.*/\1/p'); do
        unset "$v"
    done
    unset LD_PRELOAD LD_LIBRARY_PATH
    export OMP_NUM_THREADS=2 SCOPE_LIKWID_COLLECTOR="$SL_COLLECT" SCOPE_LIKWID_WRITER="$SL_WRITE" \
        SCOPE_LIKWID_TIMEOUT=20 SCOPE_LIKWID_OUTPUT="$TMP/run.h5"
    if [ "$MODE" = sim ]; then
        export SIMLIKWID_READBACK=ok SIMLIKWID_STYLE=52
        timeout 60 env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- \
            env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER" >"$TMP/run.out" 2>"$TMP/run.err" ||
            fail "solver under sim-perfctr: $(tail -c 400 "$TMP/run.err")"
    else
        timeout 60 env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER" >"$TMP/run.out" 2>"$TMP/run.err" ||
            fail "solver: $(tail -c 400 "$TMP/run.err")"
    fi
    [ -f "$TMP/run.h5" ] || { fail "no result file: $(tail -c 400 "$TMP/run.err")"; finish; }
    mv "$TMP/run.h5" "$TMP/$MODE.h5"
    cross "$MODE" "$TMP/$MODE.h5"
    files=$MODE
    if [ "$MODE" = sim ]; then
        # full_api: event names, metrics and timing on the solver's rows
        check_grep "$TMP/sim.csv.out" "metric:" "sim: metric columns"
        CHECKS=$((CHECKS + 1))
        grep -q '^0,-1,rank0,[0-9]*,,,[^,]*,solve-step,solve-step,0,FLOPS_DP,full_api,1,1,20,' "$TMP/sim.csv.out" ||
            fail "sim: no full_api row of solve-step thread 1: $(head -c 600 "$TMP/sim.csv.out")"
        CHECKS=$((CHECKS + 1))
        [ "$(grep -c ',solve-step,solve-step,.*,2,40,[0-9]*,[0-9]*,[0-9]*,0$' "$TMP/sim.csv.out")" = 2 ] ||
            fail "sim: solve-step rows lack the timing columns (2 threads, 40 calls)"
    else
        CHECKS=$((CHECKS + 1))
        [ "$(sed 1d "$TMP/nocount.csv.out" | wc -l)" = 3 ] ||
            fail "nocount: expected 3 timing-only rows: $(cat "$TMP/nocount.csv.out")"
        check_grep "$TMP/nocount.csv.out" ',solve-step,solve-step,,,,,,,,2,40,' "nocount: solve-step timing row"
    fi
    ;;
*)
    echo "export_crosscheck.sh: MODE '$MODE': expected samples, fixture, sim or nocount" >&2
    exit 2
    ;;
esac

# the checker must notice one wrong cell (last field of the first data row)
for n in $files; do
    [ "$(wc -l <"$TMP/$n.csv.out")" -gt 1 ] || continue
    sed '2s/[^,]*$/12345/' "$TMP/$n.csv.out" >"$TMP/bad.csv"
    CHECKS=$((CHECKS + 1))
    if "$PY" "$SL_SRC/check_export.py" "$TMP/$n.h5" "$TMP/bad.csv" "$TMP/$n.json.out" >/dev/null 2>&1 &&
       ! cmp -s "$TMP/bad.csv" "$TMP/$n.csv.out"; then
        fail "$n: the checker accepted a changed cell"
    fi
    break
done
finish
