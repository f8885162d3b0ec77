#!/bin/sh
# The reading subcommands' sandbox (tools/cli/sandbox.c): the same output as
# without it on a valid file; a reading process that hangs, crashes, runs
# out of memory or writes too much becomes one line naming the file, exit 1,
# nothing on stdout, no output file; the work dies with the tool.
# A FIFO as input blocks the reader (open(2) waits for a writer): a
# deterministic hang to test the deadline with.
# usage: sandbox.sh SCOPE_LIKWID SAMPLES_DIR NO_MEMFD_SO
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
CLI=$(abs "$1") SAMPLES=$(abs "$2") NO_MEMFD=$(abs "$3")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$CLI" convert "$SAMPLES/v52_two_groups.txt" -o good.h5 >/dev/null || { echo "FAIL: convert"; exit 1; }
mkfifo fifo.h5

# 1. a valid file: byte for byte what the unsandboxed tool prints, same exit status
for args in "show good.h5" "show --json good.h5" "export good.h5 --format csv" "diff good.h5 good.h5"; do
    # shellcheck disable=SC2086
    "$CLI" $args >a.out 2>a.err; a=$?
    # shellcheck disable=SC2086
    SCOPE_LIKWID_SANDBOX=0 "$CLI" $args >b.out 2>b.err; b=$?
    [ "$a" = "$b" ] && cmp -s a.out b.out && cmp -s a.err b.err ||
        bad "$args: sandboxed output or exit status ($a) differs from unsandboxed ($b)"
done

# expect_one CMDNAME FILE WHAT: exit 1 (diff: 2, no comparison), stdout
# empty, exactly one stderr line
expect_one() {
    want="scope-likwid: $1: $2: damaged ($3)"
    want_rc=1
    [ "$1" = diff ] && want_rc=2
    [ "$rc" = "$want_rc" ] || bad "$1 $3: exit $rc, expected $want_rc"
    [ ! -s out ] || bad "$1 $3: partial output on stdout"
    [ "$(cat err)" = "$want" ] || { bad "$1 $3: stderr is:"; cat err; echo "expected: $want"; }
}

# 2. the deadline: a hang becomes "no answer in N s", said after N s, not
# later (the deadline counts from the input's start: one input, N s)
t0=$(date +%s.%N)
SCOPE_LIKWID_READ_TIMEOUT=3 "$CLI" show fifo.h5 >out 2>err; rc=$?
took=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
expect_one show fifo.h5 "no answer in 3 s"
awk -v t="$took" 'BEGIN {exit !(t >= 3 && t < 4.5)}' ||
    bad "the 3 s deadline took $took s: expected 3 s"
# diff names the file it was reading (the second), merge too; no output file
SCOPE_LIKWID_READ_TIMEOUT=1 "$CLI" diff good.h5 fifo.h5 >out 2>err; rc=$?
expect_one diff fifo.h5 "no answer in 1 s"
SCOPE_LIKWID_READ_TIMEOUT=1 "$CLI" merge -o merged.h5 good.h5 fifo.h5 >out 2>err; rc=$?
expect_one merge fifo.h5 "no answer in 1 s"
ls merged*.h5 .merged* >/dev/null 2>&1 && bad "merge left a file behind: $(ls -a)"

# child_of PID: the sandbox's reading process (waits up to 5 s for it)
child_of() {
    i=0
    while [ $i -lt 50 ]; do
        c=$(pgrep -P "$1" | head -n1)
        [ -n "$c" ] && { echo "$c"; return; }
        sleep 0.1
        i=$((i + 1))
    done
}
# 3. a crash: the reading process killed by SIGABRT (as by a failed assertion
# in libhdf5; not SIGSEGV, which ASan and TSan builds catch themselves)
SCOPE_LIKWID_READ_TIMEOUT=30 "$CLI" plot fifo.h5 -o report.html >out 2>err &
p=$!
c=$(child_of $p)
if [ -z "$c" ]; then
    bad "no reading process found under $p"
    kill $p
else
    kill -ABRT "$c"
fi
wait $p; rc=$?
expect_one plot fifo.h5 "killed by signal 6 while reading"
[ ! -e report.html ] || bad "plot wrote a report after the crash"

# 4. the tool killed (timeout(1) does so): its reading process dies with it
SCOPE_LIKWID_READ_TIMEOUT=30 "$CLI" export fifo.h5 --format csv >out 2>err &
p=$!
c=$(child_of $p)
kill -KILL $p
wait $p 2>/dev/null
sleep 0.5
# (a zombie left to an init that does not reap counts as dead)
st=$( [ -n "$c" ] && ps -o stat= -p "$c" 2>/dev/null)
case $st in '' | Z*) ;; *) bad "reading process $c outlived the tool ($st)"; kill -KILL "$c" ;; esac

# 5. the output limit (here 1 kB): "output larger than", nothing printed
SCOPE_LIKWID_READ_OUTPUT=0.001 "$CLI" show good.h5 >out 2>err; rc=$?
expect_one show good.h5 "output larger than 0.001 MiB"

# 6. the memory limit (here 24 MiB, too little to read): exit 1, a message
# naming the file, nothing on stdout (not under ASan/TSan/valgrind: no limit)
SCOPE_LIKWID_READ_MEMORY=24 "$CLI" show good.h5 >out 2>err; rc=$?
if [ "$rc" = 0 ]; then
    echo "memory limit not applied (sanitized build): $(head -c 60 out | head -n1)"
else
    [ "$rc" = 1 ] || bad "memory limit: exit $rc, expected 1"
    [ ! -s out ] || bad "memory limit: partial output"
    head -n1 err | grep -qF good.h5 || { bad "memory limit: no message naming the file:"; cat err; }
fi
# 7. no sandbox possible (memfd_create fails): the work is done unisolated,
# byte for byte as with SCOPE_LIKWID_SANDBOX=0
for args in "show good.h5" "export good.h5 --format csv"; do
    # shellcheck disable=SC2086
    LD_PRELOAD=$NO_MEMFD "$CLI" $args >a.out 2>a.err; a=$?
    # shellcheck disable=SC2086
    SCOPE_LIKWID_SANDBOX=0 "$CLI" $args >b.out 2>b.err; b=$?
    [ "$a" = 0 ] && [ "$a" = "$b" ] && cmp -s a.out b.out && cmp -s a.err b.err ||
        bad "$args without memfd_create: output or exit status ($a) differs from unsandboxed ($b)"
done
# 8. SCOPE_LIKWID_SANDBOX as every boolean variable: each word for off reads
# in this process (the 1 kB output limit does not apply: the whole output,
# exit 0), each word for on and the unset default sandbox it (the limit
# applies); anything else is one warning naming it and the default (on)
SCOPE_LIKWID_SANDBOX=0 "$CLI" show good.h5 >b.out 2>b.err || bad "show good.h5 unsandboxed failed"
for v in 0 no false off OFF; do
    SCOPE_LIKWID_SANDBOX=$v SCOPE_LIKWID_READ_OUTPUT=0.001 "$CLI" show good.h5 >out 2>err; rc=$?
    [ "$rc" = 0 ] && cmp -s out b.out && [ ! -s err ] ||
        bad "SCOPE_LIKWID_SANDBOX=$v: exit $rc, $(wc -c <out) bytes, stderr '$(cat err)': expected unsandboxed"
done
for v in 1 yes true on; do
    SCOPE_LIKWID_SANDBOX=$v SCOPE_LIKWID_READ_OUTPUT=0.001 "$CLI" show good.h5 >out 2>err; rc=$?
    expect_one show good.h5 "output larger than 0.001 MiB"
done
SCOPE_LIKWID_SANDBOX=bogus SCOPE_LIKWID_READ_OUTPUT=0.001 "$CLI" show good.h5 >out 2>err; rc=$?
want="scope-likwid: show: SCOPE_LIKWID_SANDBOX='bogus' not understood: expected 1/0, yes/no, true/false or on/off; using 1
scope-likwid: show: good.h5: damaged (output larger than 0.001 MiB)"
[ "$rc" = 1 ] && [ "$(cat err)" = "$want" ] ||
    { bad "SCOPE_LIKWID_SANDBOX=bogus: exit $rc, stderr is:"; cat err; echo "expected: $want"; }

[ $fail = 0 ] && echo "sandbox: all passed"
exit $fail
