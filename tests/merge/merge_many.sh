#!/bin/sh
# scope-likwid merge of 1000 inputs: with fewer open files allowed than
# inputs (ulimit -n 64), every input is merged (1000 rank groups, checked
# with h5ls) and their 999 clashes (all are rank 0) said in one line; a merge of more than a second shows a progress line on a
# terminal (script(1) gives it one) and none when stderr is a file; the
# sandbox's deadline (SCOPE_LIKWID_READ_TIMEOUT) does not end a merge that
# takes longer than it in all.
# usage: merge_many.sh SCOPE_LIKWID SAMPLES_DIR MK_RESULT
. "$(dirname "$0")/../cli/lib.sh"
MK=$3
case $MK in /*) ;; *) MK=$START/$MK ;; esac
H5LS=$(command -v h5ls || true)
SCRIPT=$(command -v script || true)
[ -n "$H5LS" ] && [ -n "$SCRIPT" ] || { echo "h5ls or script(1) missing: skipped"; exit 77; }
N=1000

"$MK" one.h5 >/dev/null <<'SPEC' || fail "mk_result"
rank 0
t solve 1000000 1100000
l solve 0 FLOPS_DP 1.0,2.0 MFLOP/s=1,2
SPEC
mkdir in
i=0
while [ "$i" -lt "$N" ]; do cp one.h5 "in/r$i.h5"; i=$((i + 1)); done

# 1. beyond the open-file limit, stderr a file: no progress line
_name=m
RC=0
(ulimit -n 64 && exec "$SL" merge -o job.h5 in/*.h5) >m.out 2>m.err || RC=$?
check_rc 0 "merge of $N inputs with ulimit -n 64"
CHECKS=$((CHECKS + 1))
got=$("$H5LS" job.h5 | grep -c '^rank[0-9]* *Group' || true)
[ "$got" = "$N" ] || fail "merged file has $got rank groups, expected $N"
CHECKS=$((CHECKS + 1))
grep -q "inputs" m.err && fail "progress line on stderr that is not a terminal: $(grep -m1 inputs m.err)"
# every input is rank 0: 999 clashes, said in one line
CHECKS=$((CHECKS + 1))
[ "$(wc -l <m.err)" = 1 ] && grep -q "^scope-likwid: merge: $((N - 1)) rank groups clash with a rank of an earlier input: written as /rank1 to /rank$((N - 1)) " m.err ||
    fail "$((N - 1)) clashes: expected one line saying so, got $(wc -l <m.err) lines: $(head -c 300 m.err)"

# 2. stderr a terminal: the progress line, then cleared, then the result.
# The line comes only after a second of merging, so the inputs here are
# heavier (files of 100 regions, about 15 ms each to copy) and their number
# doubles until the merge takes at least 1.5 s on this machine (a quiet,
# fast machine merges 200 of them in about a second).
rm -f job.h5
{
    echo "rank 0"
    r=0
    while [ "$r" -lt 100 ]; do echo "t region$r 1000000 1100000"; r=$((r + 1)); done
} >heavy.spec
"$MK" heavy.h5 <heavy.spec >/dev/null || fail "mk_result (100 regions)"
mkdir tin
_name=t
NT=0
want=200
took_ms=0
while [ "$took_ms" -lt 1500 ] && [ "$want" -le 6400 ]; do
    while [ "$NT" -lt "$want" ]; do cp heavy.h5 "tin/r$NT.h5"; NT=$((NT + 1)); done
    rm -f job.h5 typescript
    RC=0
    start=$(date +%s%N)
    "$SCRIPT" -qec "\"$SL\" merge -o job.h5 tin/*.h5" typescript >/dev/null 2>&1 </dev/null || RC=$?
    took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ "$RC" = 0 ] || break
    want=$((want * 2))
done
check_rc 0 "merge of $NT inputs on a terminal"
CHECKS=$((CHECKS + 1))
if [ "$took_ms" -ge 1500 ]; then
    grep -Eq "scope-likwid: merge: [0-9]+ of $NT inputs" typescript ||
        fail "no progress line on the terminal in a merge of $took_ms ms: $(head -c 400 typescript)"
else
    fail "the merge of $NT inputs on a terminal took $took_ms ms: too fast to show that the progress line comes"
fi
check_grep typescript "wrote job.h5" "result said after the progress line"

# 3. the sandbox's deadline is per input: the same merge with a deadline of
# 1 s, shorter than the whole merge but not than one input, is not killed
rm -f job.h5
_name=d
RC=0
SCOPE_LIKWID_READ_TIMEOUT=1 "$SL" merge -o job.h5 tin/*.h5 >d.out 2>d.err || RC=$?
check_rc 0 "merge of $NT inputs ($took_ms ms) with SCOPE_LIKWID_READ_TIMEOUT=1"
finish
