#!/bin/sh
# docs/RELIABILITY.md stays true to the fault suite: its faults table is
# exactly what tests/faults/cases.tsv generates, and every test the table
# names is registered in some tests/*/meson.build.
set -eu
src=${1:?usage: reliability_doc.sh SOURCE_DIR}
doc=$src/docs/RELIABILITY.md
failed=0
want=$(sh "$src/scripts/reliability-figures.sh" --faults-table)
have=$(sed -n '/^<!-- faults-table: generated from tests\/faults\/cases.tsv -->$/,/^<!-- end faults-table -->$/p' "$doc" | sed '1d;$d')
if [ "$want" != "$have" ]; then
    echo "FAIL: $doc: the faults table differs from tests/faults/cases.tsv: expected the output of 'sh scripts/reliability-figures.sh --faults-table'"
    failed=1
fi
n=0
for t in $(sed 1d "$src/tests/faults/cases.tsv" | cut -f5 | sed 's/^e2e: *//' | tr ' ,' '\n\n' | grep -v '^$'); do
    n=$((n + 1))
    if ! grep -rqs -- "'$t'" "$src"/tests/*/meson.build; then
        echo "FAIL: tests/faults/cases.tsv names test '$t': expected a test() of that name in tests/*/meson.build"
        failed=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no test names read from cases.tsv"; failed=1; }
echo "checked the faults table and $n test names"
exit $failed
