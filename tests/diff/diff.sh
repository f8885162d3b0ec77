#!/bin/sh
# scope-likwid diff: the CI gate. Result files with chosen timings (mk_result)
# compared: same, slower beyond / within the threshold, faster, regions and
# ranks in one file only, median vs mean, LIKWID runtime and metrics, the
# threshold forms, usage errors and unreadable inputs. The gate's own cases
# (exit codes, missing, metric directions, capped samples, JUnit, GitHub,
# provenance): gate.sh.
# usage: diff.sh SCOPE_LIKWID SAMPLES_DIR MK_RESULT
. "$(dirname "$0")/lib.sh"

# base: solve and io with per-call samples (1 ms each), setup without samples
mk base.h5 <<'EOF'
rank 0
t solve 1000000 1000000 1000000
t io 2000000 2000000
m setup 4 8000000
EOF

# 1. a file against itself: everything same, exit 0
sl same diff base.h5 base.h5 --csv
check_rc 0 "same file"
check_line same.out "rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "same: solve"
check_line same.out "rank0,setup,timing,,,time/call,ms,mean,2,2,0,,,same,pass" "same: setup (mean)"
check_last_err "scope-likwid: diff: pass: 3 comparisons, none slower or worse by more than 10%, none missing in new" "same: summary"

# 2. solve 50% slower: exit 1, the row says slower
mk slow50.h5 <<'EOF'
rank 0
t solve 1500000 1500000 1500000
t io 2000000 2000000
m setup 4 8000000
EOF
sl slow50 diff base.h5 slow50.h5 --threshold 10% --csv
check_rc 1 "50% slower"
check_line slow50.out "rank0,solve,timing,,,time/call,ms,median,1,1.5,50,1,1.5,slower,fail" "50% slower: solve"
check_line slow50.out "rank0,io,timing,,,time/call,ms,median,2,2,0,2,2,same,pass" "50% slower: io"
check_last_err "scope-likwid: diff: regression: 1 of 3 comparisons failed (threshold 10%): slower 1, metric worse 0, missing in new 0" "50% slower: summary"
# the table says it too
sl slow50t diff base.h5 slow50.h5 --threshold 10%
check_rc 1 "50% slower (table)"
check_grep slow50t.out "| +50.0% |  slower | fail |" "50% slower table: change, verdict and gate"
check_grep slow50t.out "|    median |" "50% slower table: statistic"
# a threshold above the change: exit 0
sl slow50hi diff base.h5 slow50.h5 --threshold 60
check_rc 0 "50% slower, threshold 60"

# 3. 5% slower: within 10%, exit 0; beyond 0.1 (percent), exit 1
mk slow5.h5 <<'EOF'
rank 0
t solve 1050000 1050000 1050000
t io 2000000 2000000
m setup 4 8000000
EOF
sl slow5 diff base.h5 slow5.h5 --csv
check_rc 0 "5% slower"
check_line slow5.out "rank0,solve,timing,,,time/call,ms,median,1,1.05,5,1,1.05,same,pass" "5% slower: solve same"
for thr in 10% 10 10.0% 5.5; do
    sl slow5t diff base.h5 slow5.h5 --threshold "$thr"
    check_rc 0 "5% slower, threshold $thr"
done
for thr in 0.1 4% 0; do
    sl slow5t diff base.h5 slow5.h5 --threshold="$thr"
    check_rc 1 "5% slower, threshold $thr"
done

# 4. faster: exit 0, verdict faster
mk fast.h5 <<'EOF'
rank 0
t solve 500000 500000 500000
t io 2000000 2000000
m setup 4 4000000
EOF
sl fast diff base.h5 fast.h5 --csv
check_rc 0 "faster"
check_line fast.out "rank0,solve,timing,,,time/call,ms,median,1,0.5,-50,1,0.5,faster,pass" "faster: solve"
check_line fast.out "rank0,setup,timing,,,time/call,ms,mean,2,1,-50,,,faster,pass" "faster: setup"

# 5. regions and ranks in one file only: reported; what base has and new
#    lacks fails (exit 1) unless --allow-missing
mk other.h5 <<'EOF'
rank 0
t solve 1000000 1000000 1000000
t io 2000000 2000000
t newphase 3000000
rank 1
t solve 1000000
EOF
sl only diff base.h5 other.h5 --csv
check_rc 1 "a region of base missing in new"
check_line only.out "rank0,setup,timing,,,time/call,ms,mean,2,,,,,only in base,fail" "only in base"
check_line only.out "rank0,newphase,timing,,,time/call,ms,median,,3,,,3,only in new," "only in new"
check_line only.out "rank1,(whole rank),,,,,,,,,,,,only in new," "rank only in new"
sl onlyr diff other.h5 base.h5 --csv
check_rc 1 "rank only in base"
check_line onlyr.out "rank1,(whole rank),,,,,,,,,,,,only in base,fail" "rank only in base"

# 6. median, not mean, when both have samples: one slow outlier call more
#    (mean +50%, median unchanged) is "same"; without samples on one side
#    the mean is used and it is "slower"
mk out_b.h5 <<'EOF'
rank 0
t solve 1000000 1000000 1000000 1000000 4000000
EOF
mk out_n.h5 <<'EOF'
rank 0
t solve 1000000 1000000 1000000 4000000 4000000
EOF
mk out_m.h5 <<'EOF'
rank 0
m solve 5 15000000
EOF
sl median diff out_b.h5 out_n.h5 --csv
check_rc 0 "outlier: median"
check_line median.out "rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "outlier: median same"
sl mean diff out_b.h5 out_m.h5 --csv
check_rc 1 "outlier: mean"
check_line mean.out "rank0,solve,timing,,,time/call,ms,mean,1.6,3,87.5,,,slower,fail" "outlier: mean slower"
# even count: median of the middle two
mk even.h5 <<'EOF'
rank 0
t solve 1000000 2000000 4000000 9000000
EOF
sl even diff even.h5 even.h5 --csv
check_line even.out "rank0,solve,timing,,,time/call,ms,median,3,3,0,1,1,same,pass" "even count median"

# 7. LIKWID: runtime per call of the slowest thread, and --metric (thread mean)
mk lw_b.h5 <<'EOF'
rank 0
t solve 1000000
l solve 0 FLOPS_DP 1.0,1.0 MFLOP/s=100,200 CPI=1,1
l solve 1 MEM 2.0,1.0 2,2
EOF
mk lw_n.h5 <<'EOF'
rank 0
t solve 1000000
l solve 0 FLOPS_DP 1.0,2.0 MFLOP/s=300,300 CPI=1,1
l solve 1 MEM 4.0,1.0 4,2
EOF
sl lw diff lw_b.h5 lw_n.h5 --metric MFLOP/s --metric CPI --csv
check_rc 1 "likwid runtime slower"
check_line lw.out "rank0,solve,likwid,0,FLOPS_DP,runtime/call,s,max thread,1,2,100,,,slower,fail" "likwid runtime g0"
check_line lw.out "rank0,solve,likwid,0,FLOPS_DP,MFLOP/s,,thread mean,150,300,100,,,higher," "metric higher"
check_line lw.out "rank0,solve,likwid,0,FLOPS_DP,CPI,,thread mean,1,1,0,,,same," "metric same"
check_line lw.out "rank0,solve,likwid,1,MEM,runtime/call,s,max thread,1,1,0,,,same,pass" "likwid runtime g1 per call"
check_line lw.out "rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "likwid file: timing too"
# a metric going up alone does not fail the comparison
mk lw_m.h5 <<'EOF'
rank 0
t solve 1000000
l solve 0 FLOPS_DP 1.0,1.0 MFLOP/s=900,900 CPI=1,1
l solve 1 MEM 2.0,1.0 2,2
EOF
sl lwm diff lw_b.h5 lw_m.h5 --metric MFLOP/s
check_rc 0 "metric higher only"
check_grep lwm.out "|  higher |" "metric higher in table"
# LIKWID data on one side only: regions only in new, not fatal
sl lw1 diff base.h5 lw_b.h5 --csv --metric MFLOP/s
check_rc 1 "likwid only in new (io and setup missing in new)"
check_line lw1.out "rank0,solve,likwid,0,FLOPS_DP,runtime/call,s,max thread,,1,,,,only in new," "likwid region only in new"
check_grep lw1.err "scope-likwid: diff: warning: metric 'MFLOP/s' is in no region compared" "a metric of one file, not compared: said"

# 8. JSON carries the same rows
sl json diff base.h5 slow50.h5 --json
check_rc 1 "json"
PY=/usr/bin/python3
if [ -x "$PY" ]; then
    CHECKS=$((CHECKS + 1))
    "$PY" - "$TMP/json.out" <<'PYEOF' || fail "json: content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["slower"] == 1 and d["failed"] == 1 and d["threshold_pct"] == 10, d
assert d["missing"] == 0 and d["worse"] == 0 and d["allow_missing"] is False, d
solve = [r for r in d["rows"] if r["region"] == "solve"][0]
assert solve["statistic"] == "median" and solve["base"] == 1 and solve["new"] == 1.5, solve
assert solve["change_pct"] == 50 and solve["verdict"] == "slower", solve
assert solve["gate"] == "fail", solve
setup = [r for r in d["rows"] if r["region"] == "setup"][0]
assert setup["base_min"] is None and setup["group_id"] is None, setup
PYEOF
fi

# 8b. runs paired by origin, not group number: merging a merged file again
# renumbers its groups (pc.h5 comes before z1.h5 and takes rank0), the
# pairs stay
for x in a:1000000 b:5000000 c:9000000; do
    printf 'rank 0\na mpi_rank -1\nt solve %s\n' "${x#*:}" | "$MK" "p${x%%:*}.h5" >/dev/null ||
        fail "mk_result p${x%%:*}.h5"
done
sl m1 merge -o z1.h5 pa.h5 pb.h5
check_rc 0 "merge m1"
sl m2 merge -o m2.h5 pc.h5 z1.h5
check_rc 0 "merge m2"
sl paired diff z1.h5 m2.h5 --csv
check_rc 0 "merged again: nothing slower"
check_line paired.out "rank0/rank2,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "pa's run found as rank2"
check_line paired.out "rank1,solve,timing,,,time/call,ms,median,5,5,0,5,5,same,pass" "pb's run kept rank1"
check_line paired.out "rank0,(whole rank),,,,,,,,,,,,only in new," "pc's run only in new"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <"$TMP/paired.out")" -eq 4 ] || fail "merged again: 3 rows expected: $(cat "$TMP/paired.out")"
# the other way round: the same pairs, from the new side
sl paired2 diff m2.h5 z1.h5 --csv
check_rc 1 "merged again, reversed: pc's run missing in new"
check_line paired2.out "rank2/rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "reversed: rank2 with rank0"
check_line paired2.out "rank0,(whole rank),,,,,,,,,,,,only in base,fail" "reversed: pc's run only in base"
# an origin twice (a merged file merged with its copy): the k-th run of an
# MPI rank with the k-th, the copies only in new
cp z1.h5 z1copy.h5
sl m3 merge -o m3.h5 z1.h5 z1copy.h5
check_rc 0 "merge m3"
sl twice diff z1.h5 m3.h5 --csv
check_rc 0 "origin twice"
check_line twice.out "rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "origin twice: first with first"
check_line twice.out "rank1,solve,timing,,,time/call,ms,median,5,5,0,5,5,same,pass" "origin twice: second with second"
check_line twice.out "rank2,(whole rank),,,,,,,,,,,,only in new," "origin twice: copy only in new"
# a serial run against MPI rank 0 (nothing else to pair): by group number
sl serial diff base.h5 pa.h5 --csv
check_line serial.out "rank0,solve,timing,,,time/call,ms,median,1,1,0,1,1,same,pass" "serial run with MPI rank 0"

# 9. usage errors: exit 2
for thr in abc -5 10%% "" 5x inf nan; do
    sl badthr diff base.h5 base.h5 --threshold "$thr"
    check_rc 2 "threshold '$thr'"
done
check_grep badthr.err "bad --threshold" "bad threshold message"
sl noarg diff base.h5
check_rc 2 "one file"
sl three diff base.h5 base.h5 base.h5
check_rc 2 "three files"
sl nothr diff base.h5 base.h5 --threshold
check_rc 2 "--threshold without value"
sl both diff base.h5 base.h5 --csv --json
check_rc 2 "--csv --json"
sl help diff --help
check_rc 0 "--help"
check_grep help.out "usage: scope-likwid diff" "help text"

# 10. unreadable inputs: exit 2, a message naming the file, nothing compared
sl missing diff base.h5 missing.h5
check_rc 2 "missing file"
check_grep missing.err "missing.h5: cannot open: No such file or directory" "missing: message"
check_last_err "scope-likwid: diff: error: bad input, nothing compared" "missing: last line"
CHECKS=$((CHECKS + 1))
[ -s "$TMP/missing.out" ] && fail "missing: output printed"
echo "not hdf5" >text.h5
sl text diff text.h5 base.h5
check_rc 2 "not HDF5"
check_grep text.err "text.h5: not an HDF5 file" "not HDF5: message"
check_last_err "scope-likwid: diff: error: bad input, nothing compared" "not HDF5: last line"

finish
