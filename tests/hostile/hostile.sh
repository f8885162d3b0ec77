#!/bin/sh
# The crafted files of mk_hostile.c, read by every reading subcommand (show,
# show --json, export csv and json, plot, diff, merge) under timeout(1) and
# /usr/bin/time: each run must end in < 10 s with a peak RSS < 500 MB, never
# by a signal, and
#   - links, loops and huge declared sizes: exit 1 and a first stderr line
#     naming the file (merge may copy what it does not read: exit 0 allowed);
#   - valid files (many and huge attributes, int64 extremes, NaN/Inf):
#     exit 0, the plot without a non-finite coordinate (merge copies the
#     attribute-heavy files' dense attributes by value: libhdf5 1.10.8's
#     H5Ocopy crashes on them, docs/RELIABILITY.md);
#   - no stderr line longer than 2 kB: a value from a file (a host name of
#     2 MiB) is cut where a message echoes it; diff and merge of the template
#     and that file say it in one short line.
# Prints one line per run: file, command, exit status, seconds, RSS.
# usage: hostile.sh SCOPE_LIKWID MK_RESULT MK_HOSTILE
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
CLI=$(abs "$1") MK=$(abs "$2") HOSTILE=$(abs "$3")
[ -x /usr/bin/time ] || { echo "hostile: /usr/bin/time missing (Debian package time)"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
printf 'rank 0\na hostname node1\nt solve 100 200 300\nt io 5 7\nl solve 0 FLOPS_DP 0.5,0.6 10,12 MFLOPS=1.5,2.5\n' |
    "$MK" template.h5 >/dev/null || { echo "hostile: mk_result failed"; exit 1; }
"$HOSTILE" "$TMP" template.h5 || { echo "hostile: mk_hostile failed"; exit 1; }
fail=0
n=0
# check FILE EXPECT NAME CMD...: EXPECT refuse | valid
check() {
    f=$1 expect=$2 name=$3
    shift 3
    rm -f out.html out.h5 out.*.h5
    /usr/bin/time -o time.txt -f '%e %M' timeout -s KILL 30 "$@" >out.txt 2>err.txt
    rc=$?
    secs=$(tail -n1 time.txt | cut -d' ' -f1)
    kb=$(tail -n1 time.txt | cut -d' ' -f2)
    n=$((n + 1))
    echo "hostile: $f $name: exit $rc, ${secs} s, $((kb / 1024)) MB"
    bad() { echo "hostile: FAIL $f $name: $*"; sed 's/^/    /' err.txt | head -3; fail=1; }
    case $kb in '' | *[!0-9]*) bad "no RSS measured"; return ;; esac
    [ "$rc" -lt 124 ] || { bad "killed or timed out (exit $rc)"; return; }
    awk -v s="$secs" 'BEGIN { exit !(s < 10) }' || bad "took $secs s (limit 10 s)"
    [ "$kb" -lt 512000 ] || bad "peak RSS $kb kB (limit 500 MB)"
    long=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' err.txt)
    [ "$long" -le 2048 ] || bad "a stderr line of $long bytes (limit 2 kB)"
    named=0
    head -n1 err.txt | grep -qF "$f" && named=1
    bad_rc=1
    [ "$name" = diff ] && bad_rc=2 # no comparison, as distinct from a regression
    case $expect in
    refuse)
        if [ "$rc" = 0 ]; then
            [ "$name" = merge ] || bad "exit 0: expected the file refused"
        elif [ "$rc" != "$bad_rc" ] || [ "$named" = 0 ]; then
            bad "exit $rc: expected exit $bad_rc and a message naming $f"
        fi ;;
    valid)
        [ "$rc" = 0 ] || bad "exit $rc: expected a correct output"
        if [ "$name" = plot ] && [ -f out.html ] &&
            grep -Eiq '(x|y|x1|x2|y1|y2|width|height|cx|cy|r|points)="[^"]*(nan|inf)' out.html; then
            bad "a non-finite SVG coordinate in the report"
        fi ;;
    esac
}
for f in ext-fifo-timing.h5 ext-fifo-rank.h5 soft-loop.h5 soft-timing.h5 huge-dims.h5 \
    huge-deflate.h5 many-attrs.h5 huge-strarray.h5 int64-max.h5 int64-min.h5 int64-mixed.h5 \
    nonfinite.h5 huge-host.h5 timing-dataset.h5; do
    # soft-timing: one soft link inside the file is followed (libhdf5 cannot
    # be told to follow none); its target is a real timing group: valid
    case $f in ext-* | soft-loop* | huge-d* | timing-d*) e=refuse ;; *) e=valid ;; esac
    check "$f" "$e" show "$CLI" show "$f"
    check "$f" "$e" show-json "$CLI" show --json "$f"
    check "$f" "$e" export-csv "$CLI" export "$f" --format csv
    check "$f" "$e" export-json "$CLI" export "$f" --format json
    check "$f" "$e" plot "$CLI" plot "$f" -o out.html
    check "$f" "$e" diff "$CLI" diff "$f" "$f"
    # merge copies groups without reading them: it refuses any link it would
    # copy (soft-timing too; the readers follow that one soft link)
    case $f in soft-timing.h5) em=refuse ;; *) em=$e ;; esac
    check "$f" "$em" merge "$CLI" merge -o out.h5 "$f"
done
# the 2 MiB host name beside another: one line says the hosts differ, short
# (limit 400 bytes), with the value cut and its size
for cmd in diff merge; do
    case $cmd in
    diff) check huge-host.h5 valid diff-two "$CLI" diff template.h5 huge-host.h5 ;;
    merge) check huge-host.h5 valid merge-two "$CLI" merge -o out.h5 template.h5 huge-host.h5 ;;
    esac
    line=$(grep 'different hosts\|differ in hostname' err.txt)
    if [ "$(echo "$line" | grep -c .)" != 1 ] || [ "${#line}" -gt 400 ] ||
        ! echo "$line" | grep -qF "hhhhhhhh...(2097152 bytes)"; then
        echo "hostile: FAIL $cmd template.h5 huge-host.h5: expected one line of at most 400 bytes" \
            "saying the hosts differ, the value cut: $(head -c 300 err.txt)"
        fail=1
    fi
done
echo "hostile: $n runs, $([ $fail = 0 ] && echo 'all passed' || echo FAILED)"
exit $fail
