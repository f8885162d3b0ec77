#!/bin/sh
# scope-likwid show: tables against expected text (costliest region first,
# tag@cpuN columns, integers, '-' cells, timing), CSV and JSON carry the
# same numbers, quoting and escaping, several ranks, unreadable files.
. "$(dirname "$0")/lib.sh"

cp "$SAMPLES/v52_one_group.txt" "$TMP/one.txt"
sl conv1 convert one.txt
check_rc 0 "convert one.txt"
sl table1 show one.h5
check_rc 0 "show one.h5"
cat >"$TMP/table1.want" <<'WANT'
Run (omp_num_threads 2)

Rank 0 (group rank0, mpi_rank -1, pid -1)
LIKWID status: marker_file: converted from one.txt by scope-likwid convert
LIKWID counters (source marker_file)
Group 0
+-------------+-----------------+-----------------+-----------+------------+
| Region      | solve-step@cpu0 | solve-step@cpu1 |  io phase |       init |
+-------------+-----------------+-----------------+-----------+------------+
| call count  |              10 |              10 |         2 |          1 |
| runtime [s] |        0.184338 |        0.185443 | 0.0312051 | 0.00251321 |
| event_0     |       987165400 |       985032100 |  35182410 |    4182936 |
| event_1     |       442578000 |       448812900 |  61012130 |    6874312 |
| event_2     |       387109000 |       389420300 |  65530710 |    5277734 |
| event_3     |          131072 |          131072 |         0 |          0 |
| event_4     |           65536 |           65536 |      1024 |     262144 |
| event_5     |       125829100 |       125829100 |         0 |          0 |
+-------------+-----------------+-----------------+-----------+------------+
Timing (scope-likwid, clock none)
no timed regions
WANT
check_same "$TMP/table1.want" "$TMP/table1.out" "table of v52_one_group"

# a rescue file (wire format): names, metrics, a region lacking an event
# ('-'), nan, timing with a region never completed
cat >"$TMP/rescue.body" <<'WIRE'
scope-likwid-wire 1
kind run
rank 2
mpi_rank 2
pid 4242
hostname =node01
executable =/bin/app
command_line =app%20-n%201
likwid_status =full_api
env 1
var =LIKWID_EVENTS =FLOPS_DP
timing =CLOCK_MONOTONIC 1700000000000000000 2
tregion =never 2 1 0 0 1 0
thread 101 0 0 0 0
tregion =solve 0 0 0 0 2 0
thread 101 3 3000000 500000 1500000
thread 102 1 1000000 1000000 1000000
likwid full_api 2
region =setup 0 =FLOPS_DP full_api 1 1 0 1
cpus 1
times 3fd0000000000000
counts 1
event =INSTR =FIXC0 4000000000000000
region =solve 0 =FLOPS_DP full_api 2 2 1 1
cpus 0 1
times 3ff0000000000000 3fe0000000000000
counts 3 1
event =INSTR =FIXC0 41cdcd6500000000 40934a0000000000
event =CYCLES =FIXC1 4059000000000000 7ff8000000000000
metric =CPI 3ff8000000000000 4008000000000000
WIRE
{ cat "$TMP/rescue.body"; echo "end $(wc -l <"$TMP/rescue.body")"; } >"$TMP/rescue.wire"
sl conv2 convert rescue.wire
check_rc 0 "convert a rescue file"
check_grep "$TMP/conv2.out" "wrote rescue.h5" "convert a rescue file"
sl table2 show rescue.h5
check_rc 0 "show rescue.h5"
cat >"$TMP/table2.want" <<'WANT'
Run (host node01)

Rank 2 (group rank2, mpi_rank 2, pid 4242, host node01, /bin/app)
LIKWID status: full_api
LIKWID counters (source full_api)
Group 0: FLOPS_DP
+-------------+------------+------------+-------+
| Region      | solve@cpu0 | solve@cpu1 | setup |
+-------------+------------+------------+-------+
| call count  |          3 |          1 |     1 |
| runtime [s] |          1 |        0.5 |  0.25 |
| INSTR       | 1000000000 |     1234.5 |     2 |
| CYCLES      |        100 |        nan |     - |
| CPI         |        1.5 |          3 |     - |
+-------------+------------+------------+-------+
Timing (scope-likwid, clock CLOCK_MONOTONIC)
+--------+---------+-------+------------+-----------+----------+----------+---------------+---------------+
| Region | threads | calls | total [ms] | mean [ms] | min [ms] | max [ms] | dropped calls | open at close |
+--------+---------+-------+------------+-----------+----------+----------+---------------+---------------+
| solve  |       2 |     4 |          4 |         1 |      0.5 |      1.5 |             0 |             0 |
| never  |       1 |     0 |          0 |         - |        - |        - |             2 |             1 |
+--------+---------+-------+------------+-----------+----------+----------+---------------+---------------+
WANT
check_same "$TMP/table2.want" "$TMP/table2.out" "table of the rescue file"
# --rank overrides a rescue file's rank
sl conv3 convert rescue.wire --rank 5 -o rescue5.h5
check_rc 0 "convert a rescue file with --rank"
sl csv5 show rescue5.h5 --csv
check_grep "$TMP/csv5.out" "5,run,,,,,,mpi_rank,5" "--rank on a rescue file"

# CSV and JSON carry the same data: every CSV value is in the JSON
# document at its place (the JSON has null where CSV has nan/inf/empty)
cat >"$TMP/compare.py" <<'PY'
import csv, json, math, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
doc = json.load(open(sys.argv[2]))
assert rows[0] == ["rank", "section", "group_id", "group_name", "tag", "thread", "cpu", "row", "value"], rows[0]
ranks = {r["rank"]: r for r in doc["ranks"]}
def same(text, value):
    if text in ("", "nan", "inf", "-inf"):
        return value is None
    return value is not None and float(text) == float(value)
n = 0
for rank, section, gid, gname, tag, thread, cpu, row, value in rows[1:]:
    r = ranks[int(rank)]
    if section == "run":
        if row in ("mpi_rank", "pid"):
            assert int(value) == r[row], (row, value)
        elif row in ("executable", "command_line", "likwid_status"):
            assert value == r[row], (row, value)
        elif row in ("rank_group", "hostname", "merged_from", "merged_from_group", "cpu_model",
                     "likwid_version", "kernel_release", "clock_source"):
            # the origin: unknown (never merged, no host) is "" in CSV, null in JSON
            assert value == (r[row] or ""), (row, value, r[row])
        elif row == "tsc_hz":
            assert (value == "" and r[row] is None) or int(value) == r[row], (row, value, r[row])
        elif row.startswith("metadata "):
            m = doc["metadata"][row[9:]]
            assert m is not None and value == str(m), (row, value, m)
        elif row == "likwid_source":
            assert value == (r["likwid"]["source"] if r["likwid"] else "none")
        elif row.startswith("env "):
            assert r["likwid_env"][row[4:]] == value
        elif row == "clock":
            assert value == r["timing"]["clock"]
        elif row == "origin_unix_ns":
            assert int(value) == r["timing"]["origin_unix_ns"]
        else:
            raise AssertionError("unknown run row " + row)
    elif section == "likwid":
        g = [g for g in r["likwid"]["groups"] if g["group_id"] == int(gid)][0]
        assert g["group_name"] == gname
        reg = [x for x in g["regions"] if x["tag"] == tag][0]
        t = int(thread)
        assert reg["cpus"][t] == int(cpu)
        if row == "call count":
            assert reg["call_counts"][t] == int(value)
        elif row == "runtime [s]":
            assert same(value, reg["times"][t]), (tag, row, value)
        elif row in reg["event_labels"]:
            assert same(value, reg["events"][reg["event_labels"].index(row)][t]), (tag, row, value)
        else:
            assert same(value, reg["metrics"][reg["metric_names"].index(row)][t]), (tag, row, value)
    elif section == "timing":
        reg = [x for x in r["timing"]["regions"] if x["tag"] == tag][0]
        if thread == "":
            want = reg["threads"] if row == "threads" else reg[row]
            assert same(value, want), (tag, row, value, want)
        else:
            p = reg["per_thread"]
            i = p["threads"].index(int(thread))
            key = "call_counts" if row == "calls" else row
            assert int(value) == p[key][i], (tag, row, value)
    else:
        raise AssertionError("unknown section " + section)
    n += 1
print(n, "values agree")
PY
for f in one rescue; do
    sl "$f.csv" show "$f.h5" --csv
    check_rc 0 "show $f --csv"
    sl "$f.json" show "$f.h5" --json
    check_rc 0 "show $f --json"
    CHECKS=$((CHECKS + 1))
    python3 "$TMP/compare.py" "$TMP/$f.csv.out" "$TMP/$f.json.out" >"$TMP/$f.cmp" 2>&1 ||
        fail "$f: CSV and JSON disagree: $(tail -c 600 "$TMP/$f.cmp")"
done
check_grep "$TMP/rescue.csv.out" "2,likwid,0,FLOPS_DP,solve,1,1,CYCLES,nan" "CSV nan"
check_grep "$TMP/rescue.csv.out" "2,likwid,0,FLOPS_DP,solve,1,1,INSTR,1234.5" "CSV value"
check_grep "$TMP/rescue.csv.out" "2,timing,,,never,,,min_ns," "CSV empty value"
check_grep "$TMP/one.csv.out" "0,likwid,0,,solve-step,1,1,runtime [s],0.185443" "CSV time"
check_grep "$TMP/rescue.json.out" '"events":[[1000000000,1234.5],[100,null]]' "JSON events"

# CSV quoting and JSON escaping of awkward tags
printf '1 2 1\n0:a,"b"-0\n1:back\\slash c\001x-0\n0 0 0 1 1.000000e+00 1 1.000000e+00 \n1 0 0 1 2.000000e+00 1 2.000000e+00 \n' >"$TMP/odd.txt"
sl conv4 convert --strict odd.txt
check_rc 0 "convert odd tags"
sl odd.csv show odd.h5 --csv
check_grep "$TMP/odd.csv.out" '0,likwid,0,,"a,""b""",0,0,event_0,1' "CSV quoting"
sl odd.json show odd.h5 --json
CHECKS=$((CHECKS + 1))
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
tags = [r["tag"] for g in d["ranks"][0]["likwid"]["groups"] for r in g["regions"]]
assert tags == ["back\\slash c\x01x", "a,\"b\""], tags
' "$TMP/odd.json.out" || fail "JSON escaping of tags: $(cat "$TMP/odd.json.out")"
CHECKS=$((CHECKS + 1))
python3 "$TMP/compare.py" "$TMP/odd.csv.out" "$TMP/odd.json.out" >/dev/null 2>&1 ||
    fail "odd tags: CSV and JSON disagree"
sl odd.table show odd.h5
check_grep "$TMP/odd.table.out" '| back\slash c?x | a,"b" |' "table: control byte shown as ?"

# two ranks in one file, shown in rank order
sl conv5 convert one.txt -o two.h5
sl conv6 convert "$SAMPLES/v52_two_groups.txt" --rank 1 --into two.h5
check_rc 0 "--into a second rank"
sl two show two.h5
check_rc 0 "show two ranks"
CHECKS=$((CHECKS + 1))
[ "$(grep '^Rank' "$TMP/two.out" | cut -c1-6 | tr '\n' ' ')" = "Rank 0 Rank 1 " ] ||
    fail "two ranks: $(grep '^Rank' "$TMP/two.out")"
sl two.json show two.h5 --json
CHECKS=$((CHECKS + 1))
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["rank"] for r in d["ranks"]] == [0, 1]
assert len(d["ranks"][1]["likwid"]["groups"]) == 2
' "$TMP/two.json.out" || fail "two ranks in JSON"

# not a result file: exit 1, the message names the file
printf 'hello\n' >"$TMP/plain.h5"
sl plain show plain.h5
check_rc 1 "show a non-HDF5 file"
check_grep "$TMP/plain.err" "plain.h5" "show a non-HDF5 file: named"
check_grep "$TMP/plain.err" "expected" "show a non-HDF5 file: says what was expected"
sl missing show missing.h5 --json
check_rc 1 "show a missing file"
check_grep "$TMP/missing.err" "missing.h5" "show a missing file: named"
CHECKS=$((CHECKS + 1))
[ ! -s "$TMP/missing.out" ] || fail "show a missing file: wrote to stdout"
finish
