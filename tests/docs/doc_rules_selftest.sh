#!/bin/sh
# doc_rules.sh must fail on its fixture (doc_rules_bad/) and name each of
# the fixture's five problems: a README over 200 lines, a variable the code
# reads but no man page describes, one described twice, a table of
# variables, a history sentence.
#   doc_rules_selftest.sh DOC_RULES_SH FIXTURE_ROOT
set -u
out=$(sh "$1" "$2")
rc=$?
fail=0
[ "$rc" = 1 ] || { echo "FAIL: doc_rules.sh on the fixture exited $rc: expected 1"; fail=1; }
for want in 'README.md: 205 lines' 'SCOPE_LIKWID_MISSING described 0 times' \
    'SCOPE_LIKWID_TWICE described 2 times' 'README.md:5:.*a table of variables' \
    'README.md:3:.*tells the history' 'doc_rules: 5 problem'; do
    echo "$out" | grep -q "$want" || { echo "FAIL: no line matching '$want' in:"; echo "$out" | sed 's/^/    /'; fail=1; }
done
[ "$fail" = 0 ] && echo "ok: doc_rules.sh reports the fixture's 5 problems"
exit "$fail"
