#!/bin/sh
# scope-likwid show --rank/--region/--group/--metric/--threads: each filter
# changes the table, CSV and JSON as documented; values that match nothing
# exit 1 with one line naming what the file has; bad values exit 2.
. "$(dirname "$0")/lib.sh"
make_rescue rescue.h5
# two ranks (0: marker file of two groups, 2: the rescue file)
"$SL_CLI" convert "$SL_SAMPLES/v52_two_groups.txt" -o two.h5 >/dev/null
"$SL_CLI" convert "$TMP/rescue.wire" --rank 2 --into two.h5 >/dev/null

# --threads sum / max / mean on the rescue file: exact tables
sl sum show rescue.h5 --threads sum
check_rc 0 "--threads sum"
cat >"$TMP/sum.want" <<'WANT'
Run (host node01)

Rank 2 (group rank2, mpi_rank 2, pid 4242, host node01, /bin/app)
LIKWID status: full_api
LIKWID counters (source full_api)
Group 0: FLOPS_DP
+-------------+-------------+-------------+
| Region      | solve [sum] | setup [sum] |
+-------------+-------------+-------------+
| call count  |           4 |           1 |
| runtime [s] |         1.5 |        0.25 |
| INSTR       |       1e+09 |           2 |
| CYCLES      |         100 |           - |
| CPI         |           - |           - |
+-------------+-------------+-------------+
[sum]: a metric without a sum over threads (a time, clock, CPI, ratio) has no value (-); --threads mean gives it
Timing (scope-likwid, clock CLOCK_MONOTONIC)
+--------+---------+-------+------------+-----------+----------+----------+---------------+---------------+
| Region | threads | calls | total [ms] | mean [ms] | min [ms] | max [ms] | dropped calls | open at close |
+--------+---------+-------+------------+-----------+----------+----------+---------------+---------------+
| solve  |       2 |     4 |          4 |         1 |      0.5 |      1.5 |             0 |             0 |
| never  |       1 |     0 |          0 |         - |        - |        - |             2 |             1 |
+--------+---------+-------+------------+-----------+----------+----------+---------------+---------------+
WANT
check_same "$TMP/sum.want" "$TMP/sum.out" "--threads sum table (CYCLES nan on one thread: left out)"
sl max show rescue.h5 --threads max --csv --region solve
check_rc 0 "--threads max --csv"
cat >"$TMP/max.want" <<'WANT'
2,likwid,0,FLOPS_DP,solve,max,,call count,3
2,likwid,0,FLOPS_DP,solve,max,,runtime [s],1
2,likwid,0,FLOPS_DP,solve,max,,INSTR,1000000000
2,likwid,0,FLOPS_DP,solve,max,,CYCLES,100
2,likwid,0,FLOPS_DP,solve,max,,CPI,3
WANT
grep ',likwid,' "$TMP/max.out" >"$TMP/max.lw" || true
check_same "$TMP/max.want" "$TMP/max.lw" "--threads max CSV rows"
sl mean show rescue.h5 --threads mean --json --region solve
check_rc 0 "--threads mean --json"
check_grep "$TMP/mean.out" '"thread_aggregate":"mean","cpus":[0,1],"call_counts":[2],"times":[0.75],"event_labels":["INSTR","CYCLES"],"events":[[500000617.25],[100]],"metric_names":["CPI"],"metrics":[[2.25]]' "--threads mean JSON"
sl all show rescue.h5 --threads all
check_rc 0 "--threads all"
sl plain show rescue.h5
check_same "$TMP/plain.out" "$TMP/all.out" "--threads all is the default"

# --region: glob on the tag, LIKWID and timing alike
sl reg show rescue.h5 --region 's*p'
check_rc 0 "--region s*p"
check_grep "$TMP/reg.out" "| setup |" "--region keeps setup"
CHECKS=$((CHECKS + 1))
! grep -q 'solve' "$TMP/reg.out" || fail "--region s*p still shows solve"
check_grep "$TMP/reg.out" "no timed regions" "--region filters the timing table too"
sl reg2 show rescue.h5 --region never --region 'so?ve' --csv
check_rc 0 "--region twice"
CHECKS=$((CHECKS + 1))
[ "$(cut -d, -f5 "$TMP/reg2.out" | sed 1d | sort -u | tr '\n' ' ')" = " never solve " ] ||
    fail "--region never --region so?ve: tags $(cut -d, -f5 "$TMP/reg2.out" | sort -u | tr '\n' ' ')"

# --rank: one rank, a comma list
sl r2 show two.h5 --rank 2 --csv
check_rc 0 "--rank 2"
CHECKS=$((CHECKS + 1))
[ "$(sed 1d "$TMP/r2.out" | cut -d, -f1 | sort -u)" = 2 ] || fail "--rank 2 shows other ranks"
sl r02 show two.h5 --rank 0,2 --json
check_rc 0 "--rank 0,2"
CHECKS=$((CHECKS + 1))
[ "$(grep -o '"rank":[0-9]*' "$TMP/r02.out" | tr '\n' ' ')" = '"rank":0 "rank":2 ' ] || fail "--rank 0,2 JSON ranks"
sl r0 show two.h5 --rank 0
check_rc 0 "--rank 0 table"
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^Rank' "$TMP/r0.out")" = 1 ] || fail "--rank 0: $(grep '^Rank' "$TMP/r0.out")"

# --group: by id and by name
sl g1 show two.h5 --rank 0 --group 1 --csv
check_rc 0 "--group 1"
CHECKS=$((CHECKS + 1))
[ "$(grep ',likwid,' "$TMP/g1.out" | cut -d, -f3 | sort -u)" = 1 ] || fail "--group 1 shows other groups"
sl gn show two.h5 --group FLOPS_DP
check_rc 0 "--group FLOPS_DP"
check_grep "$TMP/gn.out" "Group 0: FLOPS_DP" "--group by name"
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^Group' "$TMP/gn.out")" = 1 ] || fail "--group FLOPS_DP shows other groups"

# --metric: only those rows
sl m show rescue.h5 --metric CPI --metric INSTR --csv
check_rc 0 "--metric"
CHECKS=$((CHECKS + 1))
[ "$(grep ',likwid,' "$TMP/m.out" | cut -d, -f8 | sort -u | tr '\n' ' ')" = "CPI INSTR " ] ||
    fail "--metric CPI --metric INSTR rows: $(grep ',likwid,' "$TMP/m.out" | cut -d, -f8 | sort -u | tr '\n' ' ')"
sl mt show rescue.h5 --metric 'call count'
check_rc 0 "--metric 'call count' table"
CHECKS=$((CHECKS + 1))
[ "$(sed -n '/^Group/,/^Timing/p' "$TMP/mt.out" | grep -c '^| ')" = 2 ] ||
    fail "--metric 'call count': table rows $(cat "$TMP/mt.out")"
sl mj show rescue.h5 --metric CYCLES --json
check_grep "$TMP/mj.out" '"event_labels":["CYCLES"],"events":[[100,null]],"metric_names":[],"metrics":[]' "--metric JSON"

# values that match nothing: exit 1, one line listing what the file has
sl bad1 show two.h5 --metric NOPE
check_rc 1 "--metric NOPE"
check_one_line "--metric NOPE"
check_grep "$TMP/bad1.err" "no event or metric 'NOPE': the file has call count, runtime [s], event_0" "--metric NOPE lists"
check_grep "$TMP/bad1.err" "CPI" "--metric NOPE lists metrics"
sl bad2 show two.h5 --rank 7
check_rc 1 "--rank 7"
check_one_line "--rank 7"
check_grep "$TMP/bad2.err" "no rank '7': the file has 0, 2" "--rank 7 lists"
sl bad3 show two.h5 --region 'zz*'
check_rc 1 "--region zz*"
check_one_line "--region zz*"
check_grep "$TMP/bad3.err" "no region matching 'zz*'" "--region zz* names the pattern"
sl bad4 show two.h5 --group MEM
check_rc 1 "--group MEM"
check_one_line "--group MEM"
check_grep "$TMP/bad4.err" "the file has 0, 1, 0 (FLOPS_DP)" "--group MEM lists"
# bad values: exit 2, one line
for args in "--rank x" "--rank 1,,2" "--rank -1" "--threads median" "--threads" "--region" "--metric"; do
    # shellcheck disable=SC2086
    sl usage show two.h5 $args
    check_rc 2 "show $args"
    check_one_line "show $args"
done
sl help show --help
check_grep "$TMP/help.out" "for sum, rates, energies" "help says what sum does to metrics"
finish
