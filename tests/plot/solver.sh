#!/bin/sh
# plot on a real run: examples/solver under the shim and the simulated
# LIKWID (sim-perfctr -C 0,1 -g FLOPS_DP -m, full_api read-back): timing with
# per-call samples and counters with metrics. HTML and SVG, default and
# chosen metrics, each checked by check_plot.py against the file.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_CHECKER SL_SHIM SL_COLLECT SL_WRITE SL_SOLVER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
for v in $(env | sed -n 's/^\(LIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SCOPE_LIKWID_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(SIMLIKWID_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
unset LD_PRELOAD OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID
mkdir app
(cd app && OMP_NUM_THREADS=2 OMP_PROC_BIND=false SIMLIKWID_READBACK=ok SIMLIKWID_STYLE=552 \
    SCOPE_LIKWID_COLLECTOR=$SL_COLLECT SCOPE_LIKWID_WRITER=$SL_WRITE SCOPE_LIKWID_TIMEOUT=20 \
    LD_LIBRARY_PATH=$SL_SIM_DIR timeout -k 5 60 "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- \
    env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER") >app.out 2>app.err || fail "solver under sim-perfctr: $(cat app.err)"
set -- app/scope-likwid-*.h5
[ $# = 1 ] && [ -f "$1" ] || { fail "expected one result file in app/, got: $*"; finish; }
H5=$1
cp "$H5" run.h5

plot html run.h5
expect_rc 0 "plot run.h5" && check run.html run.h5
grep_in html.out "wrote run.html" "plot's message"
grep_in run.html "Counters: DP [MFLOP/s]" "default metric: the first FLOP rate or bandwidth"
grep_in run.html "used full_api" "likwid_status in the header"
plot svg run.h5 -o run.svg
expect_rc 0 "plot -o run.svg" && check run.svg run.h5 --svg
for m in "Runtime (RDTSC) [s]" INSTR_RETIRED_ANY "call count" "runtime [s]"; do
    plot metric run.h5 -o "m.html" --metric "$m"
    expect_rc 0 "--metric '$m'" && check m.html run.h5 --metric "$m"
done
plot two run.h5 -o two.html --metric CPI --metric "DP [MFLOP/s]"
expect_rc 0 "two --metric" && check two.html run.h5 --metric CPI --metric "DP [MFLOP/s]"
# the solver's 42 calls, fewer than the cap: every one drawn
grep_in run.html "Drew 42 of 42 recorded calls" "timeline note"
finish
