#!/bin/sh
# plot's views across ranks and files, checked by check_plot.py against
# the files (h5py): ranks on one time axis (aligned on origin_unix_ns, or on
# the clock values when a rank has none), the summary across ranks and the
# folding beyond 16 ranks, the roofline view, two and three files compared.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_CHECKER SL_MK_RESCUE
pick_python

# four ranks, aligned on Unix time (rank r's origin r * 2 ms later); FLOP rate and bandwidth: a roofline
merge_ranks m4.h5 4 2000000 --roofline 3 2 3
plot m4 m4.h5 -o m4.html
expect_rc 0 "4 ranks" && check m4.html m4.h5
grep_in m4.html "aligned on Unix time" "alignment note"
grep_in m4.html "Roofline: FLOP rate against operational intensity" "roofline heading"
grep_in m4.html 'rank 3: 6.000 to' "rank 3 starts 6 ms after rank 0 (its origin 6 ms later)"
plot m4svg m4.h5 -o m4.svg --metric "Memory bandwidth [MBytes/s]" --metric "DP [MFLOP/s]"
expect_rc 0 "4 ranks svg, two metrics" &&
    check m4.svg m4.h5 --svg --metric "Memory bandwidth [MBytes/s]" --metric "DP [MFLOP/s]"

# a rank without origin_unix_ns: the clock values as recorded (rank 1 runs
# 5 ms later on the same clock, and twice as long: the max of every region)
rescue no0.h5 --rank 0 3 2 3
rescue no1.h5 --rank 1 --shift 5000000 --scale 2 3 2 3
"$SL_CLI" merge -o no.h5 no0.h5 no1.h5 >/dev/null 2>&1 || fail "merge no.h5"
plot no no.h5 -o no.html
expect_rc 0 "no origin" && check no.html no.h5
grep_in no.html "clock values as recorded (some rank has no origin_unix_ns" "fallback note"
grep_in no.html 'rank 1: 5.000 to' "rank 1 starts 5 ms later"
grep_in no.html 'max (rank 1)' "the slower rank named at the max"

# 20 ranks: the summary first, every rank folded
merge_ranks m20.h5 20 2000000 3 2 3
plot m20 m20.h5 -o m20.html --metric "M1 [units]"
expect_rc 0 "20 ranks" && check m20.html m20.h5 --metric "M1 [units]"
grep_in m20.html "folded (more than 16 ranks)" "fold note"
plot m20svg m20.h5 -o m20.svg
expect_rc 0 "20 ranks svg" && check m20.svg m20.h5 --svg

# the checker reads the numbers: a changed max must fail it
sed 's|\(<text class="v" x="[0-9.]*" y="[0-9.]*">\)\([0-9.]*\) imbalance|\19\2 imbalance|' m20.html >bad.html
CHECKS=$((CHECKS + 1))
if cmp -s bad.html m20.html; then
    fail "could not alter m20.html's summary (its value text changed?)"
elif "$PY" "$SL_CHECKER" bad.html m20.h5 --metric "M1 [units]" >bad.log 2>&1; then
    fail "check_plot.py passed a report with an altered max"
fi

# files compared: file 2 slower by half, with a region file 1 lacks
rescue base.h5 --roofline 3 2 4
rescue new.h5 --roofline --scale 1.5 4 2 4
plot cmp base.h5 new.h5 -o cmp.html
expect_rc 0 "two files" && check cmp.html base.h5 new.h5
grep_in cmp.html "(+50%)" "the change relative to file 1"
grep_in cmp.html "(not in file 1)" "a region file 1 lacks"
plot cmp3 base.h5 new.h5 m4.h5 -o cmp3.svg --metric "runtime [s]" --metric "DP [MFLOP/s]"
expect_rc 0 "three files svg" && check cmp3.svg base.h5 new.h5 m4.h5 --svg --metric "runtime [s]" --metric "DP [MFLOP/s]"
plot cmp3h base.h5 new.h5 m4.h5 -o cmp3.html --metric "runtime [s]"
expect_rc 0 "three files html" && check cmp3.html base.h5 new.h5 m4.h5 --metric "runtime [s]"
# a file without counters beside one with: its regions have no metric bar
rescue nl.h5 --no-likwid 3 2 4
plot cmpnl base.h5 nl.h5 -o cmpnl.html
expect_rc 0 "a file without counters compared" && check cmpnl.html base.h5 nl.h5
finish
