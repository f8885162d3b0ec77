#!/bin/sh
# The writer started at the start of a counting Close (it loads HDF5 while
# the collector runs, then is given the rescue file): the simulated LIKWID
# counting, SCOPE_LIKWID_WRITER a logging stand-in before the real writer.
#   writer_early.sh used     one writer, started early (--await), the result
#                            full_api, no warning; a writer given nothing
#                            in time, or whose process ended, writes nothing
#   writer_early.sh dies     the early writer dies before it is given the
#                            names: the result all the same, by a writer
#                            started again, and one warning
#   writer_early.sh hang     the early writer never reads (SCOPE_LIKWID_TIMEOUT=1):
#                            the same
#   writer_early.sh nofull   no collector (SCOPE_LIKWID_SOURCES=marker_file):
#                            the writer starts as before, after the counters
. "$(dirname "$0")/lib.sh"
[ $# = 1 ] || { echo "usage: writer_early.sh used|dies|hang|nofull" >&2; exit 2; }
need SL_SHIM SL_SOLVER SL_CHECKER SL_WRITE SL_SIM_DIR SL_SIM_PERFCTR
pick_python
mode=$1
SIMLIKWID_READBACK=ok
export SIMLIKWID_READBACK
case $mode in
used|nofull) early=true ;;
dies) early='kill -9 $$' ;;
hang) early='exec sleep 30'; SCOPE_LIKWID_TIMEOUT=1; export SCOPE_LIKWID_TIMEOUT ;;
*) echo "writer_early.sh: MODE '$mode': expected used, dies, hang or nofull" >&2; exit 2 ;;
esac
source=full_api names=--names
if [ "$mode" = nofull ]; then
    SCOPE_LIKWID_SOURCES=marker_file source=marker_file names=--no-names
    export SCOPE_LIKWID_SOURCES
fi
cat >"$T/writer.sh" <<EOF
#!/bin/sh
echo "\$*" >>"$T/writer.log"
[ "\$1" = --await ] && { $early; }
exec "$SL_WRITE" "\$@"
EOF
chmod +x "$T/writer.sh"
SCOPE_LIKWID_WRITER=$T/writer.sh
export SCOPE_LIKWID_WRITER

sim base "$SL_SOLVER"
sim shim env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
same_behaviour base shim
if f=$(result_file shim); then
    solver_timing "$f" --source "$source" "$names" --likwid-region solve-step=2x20
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
ls "$T/shim" | grep -q 'rescue' && fail "a rescue file was left: $(ls "$T/shim")"
warnings=$(grep '^scope-likwid: ' "$T/shim.err" | grep -cv '^scope-likwid: wrote ')
runs=$(wc -l <"$T/writer.log")
first=$(head -n 1 "$T/writer.log")
case $mode in
used)
    [ "$warnings" = 0 ] || fail "$warnings scope-likwid: lines on stderr besides the one that says what was written: expected none"
    [ "$runs" = 1 ] || fail "$runs writer runs: expected one"
    case $first in --await\ *\ *) ;; *) fail "the writer ran as '$first': expected --await SECONDS PID" ;; esac
    # given nothing: nothing written, exit 1, one line why
    (cd "$T" && : | "$SL_WRITE" --await 1 $$ >"$T/await.out" 2>"$T/await.err")
    rc=$?
    [ "$rc" = 1 ] || fail "scope-likwid-write --await given no names exited $rc: expected 1"
    [ -s "$T/await.out" ] && fail "scope-likwid-write --await given no names printed: $(cat "$T/await.out")"
    grep -q 'nothing written' "$T/await.err" ||
        fail "scope-likwid-write --await given no names said: $(cat "$T/await.err"): expected 'nothing written'"
    # its process gone before it handed the names: the writer ends within moments
    sleep 30 &
    app=$!
    mkfifo "$T/stdin"     # opened read-write: never EOF, nothing to read
    ("$SL_WRITE" --await 60 "$app" <>"$T/stdin" >"$T/gone.out" 2>"$T/gone.err"; echo $? >"$T/gone.rc") &
    sleep 1
    kill "$app"
    i=0
    while [ ! -s "$T/gone.rc" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    [ "$(cat "$T/gone.rc" 2>/dev/null)" = 1 ] ||
        fail "scope-likwid-write --await 60 PID went on after PID ended: expected exit 1 within 5 s"
    [ -s "$T/gone.out" ] && fail "scope-likwid-write --await whose process ended printed: $(cat "$T/gone.out")"
    grep -q 'process ended before' "$T/gone.err" ||
        fail "scope-likwid-write --await whose process ended said: $(cat "$T/gone.err"): expected 'the process ended before'" ;;
dies|hang)
    [ "$warnings" = 1 ] || fail "$warnings scope-likwid: lines on stderr besides the one that says what was written: expected one warning"
    grep '^scope-likwid: ' "$T/shim.err" | grep -q 'writer started at likwid_markerClose ended before it was given' ||
        fail "the warning does not say the early writer ended before it was given the names"
    [ "$runs" = 2 ] || fail "$runs writer runs: expected two (the early one, then one given the rescue file)"
    case $first in --await\ *) ;; *) fail "the first writer ran as '$first': expected --await SECONDS" ;; esac
    case $(sed -n 2p "$T/writer.log") in --*) fail "the second writer ran as '$(sed -n 2p "$T/writer.log")': expected RESCUEFILE OUTPUT" ;; esac ;;
nofull)
    [ "$warnings" = 0 ] || fail "$warnings scope-likwid: lines on stderr besides the one that says what was written: expected none"
    [ "$runs" = 1 ] || fail "$runs writer runs: expected one"
    case $first in --*) fail "the writer ran as '$first' without a collector: expected RESCUEFILE OUTPUT" ;; esac ;;
esac
[ "$FAILED" = 0 ] || { show_run shim; cat "$T/writer.log"; }
finish
