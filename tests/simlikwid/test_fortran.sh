#!/bin/sh
# gfortran callers reach the simulation through its Fortran entry points;
# tags arrive untrimmed ('solve-step' in a character(len=16) variable), as
# with LIKWID 5.2.2. Needs SIM_APP_F (built only when gfortran is found).
. "$(dirname "$0")/common.sh"
[ -n "${SIM_APP_F:-}" ] && [ -x "$SIM_APP_F" ] || { echo "no Fortran program: SKIP"; exit 77; }

out=$(SIM_KEEP_MARKER="$T/f.txt" "$SIM_PERFCTR" -C 0 -g FLOPS_DP -g BRANCH -m -- "$SIM_APP_F" 2>"$T/err")
expect_eq "stdout" "get: count 3 events 6
sim_app_f done" "$out"
want="header 1 3 2
region 'init' group 0 events 6 cpus 0 counts 1 values positive
region 'solve-step      ' group 0 events 6 cpus 0 counts 3 values positive
region 'after switch' group 1 events 5 cpus 0 counts 1 values positive"
expect_eq "marker file" "$want" "$("$CHECK_MARKER" "$T/f.txt")"
finish
