#!/bin/sh
# The damage test (issue #12): result files with one flipped bit or one
# zeroed range, read by every reading subcommand (show, show --json, export,
# diff, merge, plot) under timeout(1). Required: no run killed by a signal,
# no run hanging (timeout(1) or the sandbox's deadline), every non-zero exit
# one message naming the file. The inputs: a counters file (convert of a
# LIKWID sample), a timing-only file (mk_result) and a merged file (merge of
# both). SL_DAMAGE_MUTANTS per input (default 170: 510 mutants, 3060 runs;
# the ASan build sets fewer, scripts/sanitize.sh), two runs at a time.
# usage: damage.sh SCOPE_LIKWID SAMPLES_DIR MK_RESULT MUTATE
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
CLI=$(abs "$1") SAMPLES=$(abs "$2") MK=$(abs "$3") MUTATE=$(abs "$4")
ONE=$(cd "$(dirname "$0")" && pwd)/one.sh
N=${SL_DAMAGE_MUTANTS:-170}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
die() { echo "damage: $*" >&2; exit 1; }

"$CLI" convert "$SAMPLES/v52_two_groups.txt" -o counters.h5 >/dev/null || die "convert"
printf 'rank 0\nt solve 100 200 300\nt io 5 7\nm init 1 1000\nrank 1\nt solve 110 190\n' |
    "$MK" timing.h5 >/dev/null || die "mk_result"
"$CLI" merge -o merged.h5 counters.h5 timing.h5 >/dev/null 2>&1 || die "merge"
# the sandbox's deadline shorter than timeout(1)'s: a hang shows either way
SCOPE_LIKWID_READ_TIMEOUT=10
export SCOPE_LIKWID_READ_TIMEOUT
mkdir m
seed=12
for f in counters timing merged; do
    "$MUTATE" "$f.h5" m "$N" "$seed" >>mutants.txt || die "mutate $f"
    seed=$((seed + 1))
done
t0=$(date +%s)
cut -d' ' -f1 mutants.txt | xargs -P "${SL_DAMAGE_JOBS:-2}" -n 1 sh "$ONE" "$CLI" >results.txt
t1=$(date +%s)
runs=$(wc -l <results.txt)
count() { grep -c "^$1 " results.txt; }
echo "damage: $(wc -l <mutants.txt) mutants, $runs runs in $((t1 - t0)) s:" \
    "ok $(count ok), message $(count msg), crashes caught by the sandbox $(count CRASH-CAUGHT)," \
    "signal deaths $(count DEATH), hangs $(count HANG), bad messages $(count BADMSG)"
for cmd in show show-json export diff merge plot; do
    echo "  $cmd: $(grep -c " $cmd " results.txt) runs, ok $(grep -c "^ok $cmd " results.txt)," \
        "caught $(grep -c "^CRASH-CAUGHT $cmd " results.txt)"
done
fail=0
[ "$runs" -eq $(($(wc -l <mutants.txt) * 6)) ] || { echo "damage: expected 6 runs per mutant"; fail=1; }
if grep -Eq '^(DEATH|HANG|BADMSG) ' results.txt; then
    echo "damage: failures (mutant: offset kind):"
    { grep -E '^(DEATH|HANG) ' results.txt; grep '^BADMSG ' results.txt; } | head -20 | while read -r v cmd rc m rest; do
        echo "  $v $cmd exit $rc: $(grep -F "$m " mutants.txt | cut -d' ' -f2-) $m: $rest"
    done
    fail=1
fi
# crashes inside the reading process are turned into messages, but only
# merge (H5Ocopy, not our reader) may still have them
if grep -E '^CRASH-CAUGHT ' results.txt | grep -vq '^CRASH-CAUGHT merge '; then
    echo "damage: the reader itself crashed (caught by the sandbox):"
    grep -E '^CRASH-CAUGHT ' results.txt | grep -v '^CRASH-CAUGHT merge ' | head -10
    fail=1
fi
exit $fail
