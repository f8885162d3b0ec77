#!/bin/sh
# one.sh CLI MUTANT: runs every reading subcommand on one mutant (damage.sh)
# and prints one line per run: "verdict cmd rc mutant [first stderr line]".
# Verdicts: ok (exit 0), msg (exit non-zero with one message naming the file
# and no partial output), DEATH (killed by a signal), HANG (timeout(1)
# struck, or the sandbox's deadline), CRASH-CAUGHT (the reading process died
# and the sandbox said so), BADMSG (non-zero exit without a proper message).
CLI=$1 M=$2
d=$(mktemp -d)
run() {
    name=$1
    shift
    timeout -s KILL "${SL_DAMAGE_TIMEOUT:-30}" "$@" >"$d/out" 2>"$d/err"
    rc=$?
    first=$(head -n1 "$d/err")
    lines=$(wc -l <"$d/err")
    if [ "$rc" = 0 ]; then
        v=ok
    elif [ "$rc" -ge 124 ]; then
        [ "$rc" = 124 ] || [ "$rc" = 137 ] && v=HANG || v=DEATH
    elif grep -q 'damaged (no answer' "$d/err"; then
        v=HANG
    elif grep -q 'damaged (killed by signal' "$d/err"; then
        # the sandbox's line: nothing else may have been printed
        if [ "$lines" = 1 ] && [ ! -s "$d/out" ] && grep -qF "$M" "$d/err"; then v=CRASH-CAUGHT; else v=BADMSG; fi
    elif [ "$lines" -ge 1 ] && [ "$lines" -le "${maxlines:-1}" ] && head -n1 "$d/err" | grep -qF "$M"; then
        v=msg
    else
        v=BADMSG
    fi
    echo "$v $name $rc $M $first"
}
# show, export, plot: one line; diff and merge add their own verdict line
# ("diff: error: bad input, nothing compared", "merge: nothing written")
maxlines=1
run show "$CLI" show "$M"
run show-json "$CLI" show --json "$M"
run export "$CLI" export "$M" --format csv
maxlines=2
run diff "$CLI" diff "$M" "$M"
run merge "$CLI" merge -o "$d/merged.h5" "$M"
maxlines=1
run plot "$CLI" plot "$M" -o "$d/report.html"
rm -rf "$d"
