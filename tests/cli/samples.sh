#!/bin/sh
# Every sample of the spec converts, and the result holds what the sample
# says (checked through `show --csv` and h5dump).
. "$(dirname "$0")/lib.sh"

for f in "$SAMPLES"/*.txt; do
    b=$(basename "$f" .txt)
    sl "$b" convert "$f"
    check_rc 0 "convert $b"
    check_grep "$TMP/$b.out" "wrote $b.h5" "convert $b: default name"
    CHECKS=$((CHECKS + 1))
    [ ! -s "$TMP/$b.err" ] || fail "convert $b complained: $(head -c 400 "$TMP/$b.err")"
    sl "$b.csv" show "$b.h5" --csv
    check_rc 0 "show $b"
    # the counter part alone, to compare versions
    grep ',likwid,' "$TMP/$b.csv.out" >"$TMP/$b.likwid" || true
    check_grep "$TMP/$b.csv.out" "0,run,,,,,,mpi_rank,-1" "$b: mpi_rank"
    check_grep "$TMP/$b.csv.out" "0,run,,,,,,pid,-1" "$b: pid"
    check_grep "$TMP/$b.csv.out" "0,run,,,,,,likwid_source,marker_file" "$b: source"
    check_grep "$TMP/$b.csv.out" "0,run,,,,,,likwid_status,marker_file: converted from $f by scope-likwid convert" "$b: status"
    check_grep "$TMP/$b.csv.out" "0,run,,,,,,clock,none" "$b: clock"
done

# v52_one_group: -1 lines are not threads; values exact
L=$TMP/v52_one_group.likwid
for want in \
    '0,likwid,0,,solve-step,0,0,call count,10' \
    '0,likwid,0,,solve-step,1,1,call count,10' \
    '0,likwid,0,,solve-step,0,0,runtime [s],0.1843376' \
    '0,likwid,0,,solve-step,1,1,runtime [s],0.185443' \
    '0,likwid,0,,solve-step,0,0,event_0,987165400' \
    '0,likwid,0,,solve-step,1,1,event_5,125829100' \
    '0,likwid,0,,init,0,0,event_1,6874312' \
    '0,likwid,0,,io phase,0,0,runtime [s],0.0312051' \
    '0,likwid,0,,io phase,0,0,event_4,1024'; do
    check_grep "$L" "$want" "v52_one_group"
done
CHECKS=$((CHECKS + 1))
n=$(wc -l <"$L")
# 4 threads (solve-step x2, init, io phase) x (2 + 6 rows)
[ "$n" -eq 32 ] || fail "v52_one_group: $n counter lines, expected 32 (cpu -1 lines must not be threads)"

# 5.5 placeholders and 5.5.2 lines give the same counters as 5.2
check_same "$TMP/v52_one_group.likwid" "$TMP/v55_one_group.likwid" "v55 = v52"
check_same "$TMP/v52_one_group.likwid" "$TMP/master_one_group.likwid" "master = v52"

# two groups: solve-step in both, kept apart; group 1 has 5 events
L=$TMP/v52_two_groups.likwid
check_grep "$L" '0,likwid,0,,solve-step,0,0,event_0,493582700' "two groups: group 0"
check_grep "$L" '0,likwid,1,,solve-step,0,0,event_0,493611800' "two groups: group 1"
check_grep "$L" '0,likwid,1,,residual,1,1,event_4,10118' "two groups: residual"
CHECKS=$((CHECKS + 1))
if grep -q '^0,likwid,1,.*,event_5,' "$L"; then fail "two groups: group 1 has a 6th event"; fi

# header only: a likwid group with no regions
CHECKS=$((CHECKS + 1))
[ ! -s "$TMP/header_only.likwid" ] || fail "header_only: has counter lines"

# the file itself (h5dump): the layout's names
if command -v h5dump >/dev/null 2>&1; then
    h5dump -A v52_one_group.h5 >"$TMP/dump" 2>&1 || true
    for want in 'GROUP "rank0"' 'GROUP "likwid"' 'GROUP "timing"' 'GROUP "solve-step"' \
        'GROUP "io phase"' 'ATTRIBUTE "mpi_rank"' 'ATTRIBUTE "format"' '"scope-likwid"' \
        '"marker_file"'; do
        check_grep "$TMP/dump" "$want" "h5dump v52_one_group"
    done
    h5dump -d '/rank0/likwid/regions/solve-step/call_counts' v52_one_group.h5 >"$TMP/cc" 2>&1 || true
    check_grep "$TMP/cc" '(0): 10, 10' "h5dump call_counts"
    h5dump -d '/rank0/likwid/regions/init/cpus' v52_one_group.h5 >"$TMP/cpus" 2>&1 || true
    check_grep "$TMP/cpus" 'DATASPACE  SIMPLE { ( 1 ) / ( 1 ) }' "h5dump init cpus"
    h5dump -A header_only.h5 >"$TMP/dump0" 2>&1 || true
    check_grep "$TMP/dump0" 'GROUP "likwid"' "h5dump header_only"
fi
finish
