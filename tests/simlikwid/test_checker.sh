#!/bin/sh
# The independent marker-file reader the simlikwid tests use
# (check_marker.py) reads LIKWID's samples and rejects broken files, each
# with a message naming the file and the line: a check that cannot fail
# proves nothing.
. "$(dirname "$0")/common.sh"

good="$SAMPLES/v52_two_groups.txt"
expect_eq "sample" "header 2 4 2
region 'init' group 0 events 6 cpus 0 counts 1 values NOT-POSITIVE
region 'solve-step' group 0 events 6 cpus 0,1 counts 5,5 values positive
region 'solve-step' group 1 events 5 cpus 0,1 counts 5,5 values positive
region 'residual' group 1 events 5 cpus 0,1 counts 5,5 values positive" "$("$CHECK_MARKER" "$good")"

# broken WHAT LINE SED: the sample edited by SED must be rejected at LINE
broken() {
    sed "$3" "$good" >"$T/bad.txt"
    if "$CHECK_MARKER" "$T/bad.txt" >/dev/null 2>"$T/err"; then
        fail "$1: accepted"
    else
        expect_grep "$1: names the file and line $2" "^check_marker: $T/bad.txt:$2: expected" "$T/err"
    fi
}
broken "header of two numbers" 1 '1s/.*/2 4/'
broken "one region line too few" 5 '5d'
broken "region ids out of order" 3 '3s/^1:/2:/'
broken "region without group" 2 '2s/-0$//'
broken "value line of an unknown region" 6 '6s/^0 /9 /'
broken "value line of the wrong group" 8 '8s/^1 0 /1 1 /'
broken "one value missing" 8 '8s/ [^ ]* $/ /'
broken "no trailing blank" 6 '6s/ $//'
broken "a word for a count" 6 '6s/^0 0 0 1 /0 0 0 one /'
broken "value lines of a region apart" 10 '8{h;d};10G'
printf '2 1 1\n0:init-0\n' >"$T/bad.txt"
"$CHECK_MARKER" "$T/bad.txt" >/dev/null 2>&1 && fail "region without value lines accepted" || ok "region without value lines rejected"
printf '2 0 1' >"$T/bad.txt"
"$CHECK_MARKER" "$T/bad.txt" >/dev/null 2>&1 && fail "no final newline accepted" || ok "no final newline rejected"
"$CHECK_MARKER" "$T/missing.txt" >/dev/null 2>&1 && fail "missing file accepted" || ok "missing file rejected"
finish
