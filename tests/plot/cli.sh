#!/bin/sh
# scope-likwid plot's command line: exit codes 0/1/2, the default output
# name, replacing an existing report through a temporary file, messages.
. "$(dirname "$0")/lib.sh"
need SL_CLI SL_MK_RESCUE
pick_python
rescue in.h5 3 2 2
mkdir sub
cp in.h5 sub/my.run.h5

plot help --help
expect_rc 0 "--help" && grep_in help.out "usage: scope-likwid plot" "help text"
plot none
expect_rc 2 "no FILE"
plot two in.h5 in.h5 -o two.html
expect_rc 0 "two FILEs: compared"
plot badopt in.h5 --frobnicate
expect_rc 2 "unknown option"
plot noarg in.h5 -o
expect_rc 2 "-o without argument"
plot badext in.h5 -o report.txt
expect_rc 2 "-o report.txt" && grep_in badext.err "expected a name ending in .html or .svg" "message"
plot badcap in.h5 --max-calls -3
expect_rc 2 "--max-calls -3"
plot missing no-such.h5
expect_rc 1 "missing input" && grep_in missing.err "no-such.h5" "message names the file"
plot missing2 in.h5 no-such.h5 -o missing2.html
expect_rc 1 "missing second input" && grep_in missing2.err "scope-likwid: plot: no-such.h5" "message names the second file"
CHECKS=$((CHECKS + 1))
[ ! -e missing2.html ] || fail "a report was written although the second file is missing"
echo "not hdf5" >junk.h5
plot junk junk.h5
expect_rc 1 "not a result file"
plot metric in.h5 --metric NOPE
expect_rc 1 "unknown metric" &&
    grep_in metric.err "scope-likwid: plot: in.h5: no event or metric 'NOPE': the file has call count, runtime [s], EV_0," \
        "message: prefix, file, metric, the names the file has"
CHECKS=$((CHECKS + 1))
[ ! -e in.html ] || fail "a report was written although the metric is unknown"
# plot and show name the rows alike: the same message after the prefix
RC=0
"$SL_CLI" show in.h5 --metric NOPE >/dev/null 2>show.err || RC=$?
CHECKS=$((CHECKS + 1))
[ "$RC" = 1 ] && [ "$(sed 's/^scope-likwid: show: //' show.err)" = "$(sed 's/^scope-likwid: plot: //' metric.err)" ] ||
    fail "show and plot disagree on --metric NOPE: show: $(cat show.err) plot: $(cat metric.err)"
plot oldname in.h5 --metric runtime
expect_rc 1 "--metric runtime (show calls it 'runtime [s]')"
plot rows in.h5 -o rows.html --metric "runtime [s]" --metric "call count" --metric "M1 [units]"
expect_rc 0 "three --metric" && grep_in rows.html "Counters: M1 [units]" "third metric charted"
rescue nl.h5 --no-likwid 1 1 1
plot second in.h5 nl.h5 --metric "call count"
expect_rc 1 "--metric the second file lacks" &&
    grep_in second.err "scope-likwid: plot: nl.h5: no counter data (timing only): --metric 'call count' selects nothing" \
        "message names the second file"

# default output: the input's base name, .h5 -> .html, in the cwd
plot default sub/my.run.h5
expect_rc 0 "default output"
CHECKS=$((CHECKS + 1))
[ -f my.run.html ] && [ ! -e sub/my.run.html ] || fail "default output: expected ./my.run.html only"
grep_in default.out "wrote my.run.html" "message"

# an existing report is replaced, with the umask's mode, no temporary left
echo old >r.html
chmod 600 r.html
(umask 022 && "$SL_CLI" plot in.h5 -o r.html >/dev/null 2>&1) || fail "replacing r.html"
CHECKS=$((CHECKS + 1))
grep -q '^old$' r.html && fail "r.html not replaced"
CHECKS=$((CHECKS + 1))
[ "$(stat -c %a r.html)" = 644 ] || fail "mode $(stat -c %a r.html), expected 644 (0666 & ~umask 022)"
CHECKS=$((CHECKS + 1))
ls -A | grep -q '\.tmp' && fail "temporary file left: $(ls -A)"
plot svgout in.h5 -o R.SVG
expect_rc 0 "-o R.SVG (case-insensitive suffix)" && grep_in R.SVG "<svg xmlns=" "standalone SVG"

# failed writes: exit 1, nothing left behind
plot nodir in.h5 -o no-such-dir/r.html
expect_rc 1 "-o into a missing directory" && grep_in nodir.err "cannot write" "message"
mkdir adir.html
plot isdir in.h5 -o adir.html
expect_rc 1 "-o naming a directory"
CHECKS=$((CHECKS + 1))
ls -A | grep -q '\.tmp' && fail "temporary file left after a failed write: $(ls -A)"
if [ "$(id -u)" != 0 ]; then
    mkdir ro && chmod 555 ro
    plot ro in.h5 -o ro/r.html
    expect_rc 1 "-o into a read-only directory"
fi
finish
