#!/bin/sh
# Inputs that look odd but are valid convert with --strict, values and tags
# exact: nan/inf, CRLF and extra blanks, 2000 events on one line, a 10 kB
# tag, LIKWID 5.5's same-cpu and -22 lines, a tag that is not UTF-8.
. "$(dirname "$0")/lib.sh"

# conv NAME: converts $TMP/NAME.txt strictly, CSV of the result in $TMP/NAME.csv
conv() {
    sl "$1" convert --strict "$TMP/$1.txt" -o "$TMP/$1.h5"
    check_rc 0 "$1: convert --strict"
    CHECKS=$((CHECKS + 1))
    [ ! -s "$TMP/$1.err" ] || fail "$1: convert complained: $(head -c 400 "$TMP/$1.err")"
    sl "$1.show" show "$TMP/$1.h5" --csv
    check_rc 0 "$1: show --csv"
    cp "$TMP/$1.show.out" "$TMP/$1.csv"
}

# nan and inf as LIKWID prints them (and as other printf's spell them)
printf '1 1 1\n0:r-0\n0 0 0 3 nan 5 nan -nan inf -inf 1.500000e+00 \n' >"$TMP/nanvals.txt"
conv nanvals
for want in '0,likwid,0,,r,0,0,call count,3' '0,likwid,0,,r,0,0,runtime [s],nan' \
    '0,likwid,0,,r,0,0,event_0,nan' '0,likwid,0,,r,0,0,event_1,nan' \
    '0,likwid,0,,r,0,0,event_2,inf' '0,likwid,0,,r,0,0,event_3,-inf' \
    '0,likwid,0,,r,0,0,event_4,1.5'; do
    check_grep "$TMP/nanvals.csv" "$want" "nan/inf"
done
sl nanjson show "$TMP/nanvals.h5" --json
check_rc 0 "nan/inf: show --json"
CHECKS=$((CHECKS + 1))
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranks"][0]["likwid"]["groups"][0]["regions"][0]
assert r["times"] == [None], r["times"]
assert r["events"] == [[None], [None], [None], [None], [1.5]], r["events"]
' "$TMP/nanjson.out" || fail "nan/inf: JSON does not hold null for nan/inf"

# CRLF line ends, runs of blanks and tabs, blank lines at the end
printf '2  1\t1\r\n0:crlf tag-0\r\n0  0 0\t2 2.500000e-01 2  1.000000e+00   2.000000e+00 \r\n0 0 1 4 5.000000e-01 2 3.000000e+00 4.000000e+00 \r\n\r\n  \n' >"$TMP/crlf.txt"
conv crlf
for want in '0,likwid,0,,crlf tag,0,0,call count,2' '0,likwid,0,,crlf tag,0,0,runtime [s],0.25' \
    '0,likwid,0,,crlf tag,0,0,event_1,2' '0,likwid,0,,crlf tag,1,1,call count,4' \
    '0,likwid,0,,crlf tag,1,1,event_0,3' '0,likwid,0,,crlf tag,1,1,event_1,4'; do
    check_grep "$TMP/crlf.csv" "$want" "CRLF and blanks"
done

# 2000 events on one line (LIKWID's own reader stops at about 78)
awk 'BEGIN {
    printf "1 1 1\n0:wide-0\n0 0 0 1 1.000000e+00 2000 "
    for (i = 0; i < 2000; i++) printf "%d.000000e+00 ", i
    printf "\n" }' >"$TMP/wide.txt"
conv wide
check_grep "$TMP/wide.csv" '0,likwid,0,,wide,0,0,event_0,0' "2000 events"
check_grep "$TMP/wide.csv" '0,likwid,0,,wide,0,0,event_1234,1234' "2000 events"
check_grep "$TMP/wide.csv" '0,likwid,0,,wide,0,0,event_1999,1999' "2000 events"
CHECKS=$((CHECKS + 1))
n=$(grep -c '^0,likwid,0,,wide,0,0,event_' "$TMP/wide.csv" || true)
[ "$n" = 2000 ] || fail "2000 events: $n event rows"

# a 10 kB tag (LIKWID writes whole tags; its own readers keep 99 or 139 bytes)
tag=$(awk 'BEGIN { for (i = 0; i < 1000; i++) printf "seg%06d-", i }')
printf '1 1 1\n0:%s-0\n0 0 0 7 1.000000e+00 1 4.200000e+01 \n' "$tag" >"$TMP/longtag.txt"
conv longtag
check_grep "$TMP/longtag.csv" "0,likwid,0,,$tag,0,0,event_0,42" "10 kB tag"

# LIKWID 5.5: two threads that shared CPU 1 (two lines with cpu 1, both
# threads), and a thread whose values LIKWID lost (-22 for every event: no
# counts, no row)
printf '3 1 1\n0:shared-0\n0 0 1 2 1.000000e+00 1 5.000000e+00 \n0 0 1 3 1.000000e+00 1 7.000000e+00 \n0 0 2 3 1.000000e+00 1 -2.200000e+01 \n' >"$TMP/v55.txt"
conv v55
check_grep "$TMP/v55.csv" '0,likwid,0,,shared,0,1,event_0,5' "5.5: first thread on cpu 1"
check_grep "$TMP/v55.csv" '0,likwid,0,,shared,1,1,event_0,7' "5.5: second thread on cpu 1"
CHECKS=$((CHECKS + 1))
! grep -v likwid_status "$TMP/v55.csv" | grep -q -- '-22' ||
    fail "5.5: a -22 (-EINVAL) line stored as counts: $(grep -- -22 "$TMP/v55.csv")"
check_grep "$TMP/v55.csv" "1 value lines of only -22 (LIKWID 5.5's -EINVAL: values it lost) left out" \
    "5.5: the status names the -22 line"

# a tag that is not UTF-8 (Latin-1 e-acute): shown as \xE9, raw bytes kept
printf '1 1 1\n0:caf\351 \377-0\n0 0 0 1 1.000000e+00 1 5.000000e+00 \n' >"$TMP/latin1.txt"
conv latin1
check_grep "$TMP/latin1.csv" '0,likwid,0,,caf\xE9 \xFF,0,0,event_0,5' "non-UTF-8 tag"
if command -v h5dump >/dev/null 2>&1; then
    h5dump -A "$TMP/latin1.h5" >"$TMP/latin1.dump" 2>&1 || true
    check_grep "$TMP/latin1.dump" 'tag_bytes' "non-UTF-8 tag: raw bytes attribute"
    check_grep "$TMP/latin1.dump" '99, 97, 102, 233, 32, 255' "non-UTF-8 tag: raw bytes"
fi
finish
