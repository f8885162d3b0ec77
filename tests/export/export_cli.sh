#!/bin/sh
# scope-likwid export: exact CSV and JSON text of a small file (column order,
# empty cells, nan, timing columns, a timing-only row), -o (atomic replace,
# never the input, no temporary file left), usage errors.
. "$(dirname "$0")/lib.sh"
make_rescue rescue.h5

sl csv export rescue.h5 --format csv
check_rc 0 "export csv"
cat >"$TMP/csv.want" <<'WANT'
rank,mpi_rank,rank_group,pid,merged_from,merged_from_group,hostname,tag,region,group_id,group_name,source,thread_index,cpu,call_count,time_s,event:INSTR,event:CYCLES,metric:CPI,timing_threads,timing_calls,timing_total_ns,timing_min_ns,timing_max_ns,timing_dropped_calls
2,2,rank2,4242,,,node01,setup,setup,0,FLOPS_DP,full_api,0,1,1,0.25,2,,,,,,,,
2,2,rank2,4242,,,node01,solve,solve,0,FLOPS_DP,full_api,0,0,3,1,1000000000,100,1.5,2,4,4000000,500000,1500000,0
2,2,rank2,4242,,,node01,solve,solve,0,FLOPS_DP,full_api,1,1,1,0.5,1234.5,nan,3,2,4,4000000,500000,1500000,0
2,2,rank2,4242,,,node01,never,never,,,,,,,,,,,1,0,0,,,2
WANT
check_same "$TMP/csv.want" "$TMP/csv.out" "CSV of the rescue file"

sl json export rescue.h5 --format json
check_rc 0 "export json"
cat >"$TMP/json.want" <<'WANT'
[
{"rank":2,"mpi_rank":2,"rank_group":"rank2","pid":4242,"merged_from":null,"merged_from_group":null,"hostname":"node01","tag":"setup","region":"setup","group_id":0,"group_name":"FLOPS_DP","source":"full_api","thread_index":0,"cpu":1,"call_count":1,"time_s":0.25,"event:INSTR":2,"event:CYCLES":null,"metric:CPI":null,"timing_threads":null,"timing_calls":null,"timing_total_ns":null,"timing_min_ns":null,"timing_max_ns":null,"timing_dropped_calls":null},
{"rank":2,"mpi_rank":2,"rank_group":"rank2","pid":4242,"merged_from":null,"merged_from_group":null,"hostname":"node01","tag":"solve","region":"solve","group_id":0,"group_name":"FLOPS_DP","source":"full_api","thread_index":0,"cpu":0,"call_count":3,"time_s":1,"event:INSTR":1000000000,"event:CYCLES":100,"metric:CPI":1.5,"timing_threads":2,"timing_calls":4,"timing_total_ns":4000000,"timing_min_ns":500000,"timing_max_ns":1500000,"timing_dropped_calls":0},
{"rank":2,"mpi_rank":2,"rank_group":"rank2","pid":4242,"merged_from":null,"merged_from_group":null,"hostname":"node01","tag":"solve","region":"solve","group_id":0,"group_name":"FLOPS_DP","source":"full_api","thread_index":1,"cpu":1,"call_count":1,"time_s":0.5,"event:INSTR":1234.5,"event:CYCLES":null,"metric:CPI":3,"timing_threads":2,"timing_calls":4,"timing_total_ns":4000000,"timing_min_ns":500000,"timing_max_ns":1500000,"timing_dropped_calls":0},
{"rank":2,"mpi_rank":2,"rank_group":"rank2","pid":4242,"merged_from":null,"merged_from_group":null,"hostname":"node01","tag":"never","region":"never","group_id":null,"group_name":null,"source":null,"thread_index":null,"cpu":null,"call_count":null,"time_s":null,"event:INSTR":null,"event:CYCLES":null,"metric:CPI":null,"timing_threads":1,"timing_calls":0,"timing_total_ns":0,"timing_min_ns":null,"timing_max_ns":null,"timing_dropped_calls":2}
]
WANT
check_same "$TMP/json.want" "$TMP/json.out" "JSON of the rescue file"

# -o: format from the extension, "wrote", replaces an existing file atomically
mkdir "$TMP/out"
echo old >"$TMP/out/x.json"
sl o1 export rescue.h5 -o out/x.json
check_rc 0 "export -o x.json"
check_grep "$TMP/o1.out" "wrote out/x.json" "export -o says where"
check_same "$TMP/json.want" "$TMP/out/x.json" "-o x.json replaced the old file with the JSON"
sl o2 export rescue.h5 --format=csv --output=out/y.txt
check_rc 0 "export --output"
check_same "$TMP/csv.want" "$TMP/out/y.txt" "--format=csv --output="
CHECKS=$((CHECKS + 1))
[ "$(cd "$TMP/out" && ls -A | tr '\n' ' ')" = "x.json y.txt " ] || fail "temporary files left: $(ls -A "$TMP/out")"
sl o3 export rescue.h5 --format csv -o -
check_rc 0 "export -o -"
check_same "$TMP/csv.want" "$TMP/o3.out" "-o - is stdout"
# never the input file
cp rescue.h5 keep.h5
sl o4 export rescue.h5 --format csv -o rescue.h5
check_rc 1 "export -o INPUT"
check_one_line "export -o INPUT"
check_same "$TMP/keep.h5" "$TMP/rescue.h5" "-o INPUT leaves the input as it was"
# a directory that does not exist: exit 1, nothing written
sl o5 export rescue.h5 -o nodir/z.csv
check_rc 1 "export into a missing directory"
check_one_line "export into a missing directory"
# a timing-only file: its rows still come out
printf 'scope-likwid-wire 1\nkind run\nrank 0\nmpi_rank -1\npid 1\nhostname =h\nexecutable =/a\ncommand_line =a\nlikwid_status =none\nenv 0\ntiming =CLOCK_MONOTONIC 0 1\ntregion =only 0 0 0 0 1 0\nthread 7 2 30 10 20\nlikwid none 0\n' >"$TMP/t.body"
{ cat "$TMP/t.body"; echo "end $(wc -l <"$TMP/t.body")"; } >"$TMP/t.wire"
sl tconv convert t.wire -o t.h5
check_rc 0 "convert a timing-only rescue file"
sl tcsv export t.h5 --format csv
check_rc 0 "export a timing-only file"
check_grep "$TMP/tcsv.out" "0,-1,rank0,1,,,h,only,only,,,,,,,,1,2,30,10,20,0" "timing-only row"

# usage errors: exit 2, one line
for args in "rescue.h5" "rescue.h5 --format xml" "rescue.h5 --format" "--format csv" \
            "rescue.h5 --format csv --bogus" "rescue.h5 rescue.h5 --format csv" "rescue.h5 -o out/x.txt"; do
    # shellcheck disable=SC2086
    sl usage export $args
    check_rc 2 "export $args"
    check_one_line "export $args"
done
# unreadable input: exit 1
printf 'hello\n' >"$TMP/plain.h5"
sl plain export plain.h5 --format csv
check_rc 1 "export a non-HDF5 file"
check_grep "$TMP/plain.err" "plain.h5" "export a non-HDF5 file: named"
CHECKS=$((CHECKS + 1))
[ ! -s "$TMP/plain.out" ] || fail "export a non-HDF5 file: wrote to stdout"
sl help export --help
check_rc 0 "export --help"
check_grep "$TMP/help.out" "thread_index, cpu, call_count, time_s" "help lists the columns"
finish
