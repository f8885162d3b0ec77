#!/bin/sh
# doc_rules.sh and doc_size.sh must fail on their fixture (doc_rules_bad/)
# and name each of its problems, and nothing else: a README over 200
# lines, a variable the code reads but no man page describes, one
# described twice, a table of variables, a history sentence, each history
# form of docs/HISTORY.md (one a line), a FAIL row of docs/PERFORMANCE.md;
# with the fixture's small limits, too many words in all and on one page
# and a long prose line (docs/PAGE.md, whose look-alikes of history, long
# table row and long code line are no problem).
#   doc_rules_selftest.sh DOC_RULES_SH FIXTURE_ROOT DOC_SIZE_SH
set -u
fail=0
# check OUTPUT RC COUNT PATTERN...: exit 1, COUNT problems, each PATTERN a line
check() {
    out=$1 rc=$2 count=$3
    shift 3
    [ "$rc" = 1 ] || { echo "FAIL: exited $rc on the fixture: expected 1"; fail=1; }
    for want in "$@"; do
        echo "$out" | grep -q -- "$want" ||
            { echo "FAIL: no line matching '$want' in:"; echo "$out" | sed 's/^/    /'; fail=1; }
    done
    echo "$out" | grep -q ": $count problem(s)" ||
        { echo "FAIL: expected $count problems in:"; echo "$out" | sed 's/^/    /'; fail=1; }
    echo "$out" | grep -q '^docs/PAGE.md:[0-9]*: a \(commit\|note\|date\|prev\|issue\)' &&
        { echo "FAIL: a look-alike of history in docs/PAGE.md reported:"; echo "$out" | grep PAGE.md; fail=1; }
}

out=$(sh "$1" "$2")
check "$out" $? 18 'README.md: 205 lines' 'SCOPE_LIKWID_MISSING described 0 times' \
    'SCOPE_LIKWID_TWICE described 2 times' 'README.md:5:.*a table of variables' \
    'README.md:3:.*tells the history' \
    "docs/HISTORY.md:2: a commit id '2f0c3b8'" \
    "docs/HISTORY.md:3: an issue number 'issue 27'" \
    "docs/HISTORY.md:4: an issue number '#27'" \
    "docs/HISTORY.md:5: a note of the past 'before'" \
    "docs/HISTORY.md:6: a previous version 'previous tree'" \
    "docs/HISTORY.md:7: a note of the past 'was once'" \
    "docs/HISTORY.md:8: this commit" \
    "docs/HISTORY.md:9: a date of a check 'July 2026'" \
    "docs/HISTORY.md:10: a date of a check '2026-12-04'" \
    "docs/HISTORY.md:11: a decision 'Decided'" \
    "docs/HISTORY.md:12: a note of the past 'written before it existed'" \
    "docs/HISTORY.md:13: a pointer outside 'outside this repository'" \
    "docs/PERFORMANCE.md:3: a FAIL row"
# each rule alone names only its own problems
out=$(sh "$1" "$2" history-forms)
check "$out" $? 13 "docs/HISTORY.md:2: a commit id"
echo "$out" | grep -q 'README.md: 205 lines' && { echo "FAIL: rule history-forms reported the length"; fail=1; }

out=$(sh "$3" "$2" 300 250 100)
check "$out" $? 3 'README.md: 413 words: expected at most 250 on one page' \
    'docs/man: 641 words: expected at most 300 in all' \
    'docs/PAGE.md:8: a line of 112 characters: expected at most 100'
[ "$fail" = 0 ] && echo "ok: doc_rules.sh and doc_size.sh report each of the fixture's problems"
exit "$fail"
