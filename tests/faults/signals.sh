#!/bin/sh
# The process ends inside a region without Close:
#   signals.sh term|kill|segv|abort   SIGTERM (default action), SIGKILL, a
#       segfault, abort(): exit status, stdout and stderr as without the
#       shim; the journal is left; scope-likwid recover writes the result
#       (the regions completed before, the open one, the cause), removes the
#       journal, and a second recover does nothing.
#   signals.sh run                    the same through scope-likwid run,
#       which recovers by itself.
#   signals.sh alive                  recover leaves the journal of a running
#       process alone; after SIGKILL it recovers it.
#   signals.sh handler-before|handler-after   the application's own SIGTERM
#       handler (installed before / after Init) runs; the application goes
#       on and closes: a normal result with the regions after the signal.
# The real LIKWID (no-count mode).
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_CLI
pick_python
ulimit -c 0

recover_ok() {  # recover_ok RUN STATUS-REGEX
    j=$(ls "$T/$1"/*.journal 2>/dev/null)
    [ -f "$j" ] || { fail "$1: no journal left in the application's cwd: $(ls "$T/$1")"; return 1; }
    # Under memcheck when there is valgrind (and no sanitizer): the reader
    # of a file a dead process left must be clean.
    vg=""
    if [ -n "${SL_VALGRIND:-}" ] && [ "${SL_SANITIZE:-none}" = none ]; then
        vg="$SL_VALGRIND -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
    fi
    $vg "$SL_CLI" recover "$T/$1" >"$T/rec.out" 2>"$T/rec.err" || fail "recover failed: $(cat "$T/rec.err")"
    [ -e "$j" ] && fail "recover left the journal $j"
    f=$(result_file "$1") || { fail "$1: no result file after recover: $(cat "$T/rec.err")"; return 1; }
    work_timing "$f" --timing-tags work inside --open "inside=1" --no-likwid \
        --status "partial: recovered from the journal" --status "$2" --status "1 region open: inside"
    # Idempotent: nothing left to do, nothing written.
    "$SL_CLI" recover "$T/$1" >"$T/rec2.out" 2>"$T/rec2.err" || fail "a second recover failed: $(cat "$T/rec2.err")"
    [ "$(ls "$T/$1" | wc -l)" = 1 ] || fail "a second recover changed $T/$1: $(ls "$T/$1")"
}

if [ "${1:-}" = segv ] && [ "${SL_SANITIZE:-none}" != none ]; then
    skip "b_sanitize=$SL_SANITIZE: the sanitizer reports the crash itself, with addresses that differ per run"
fi

case ${1:-} in
term|kill|segv|abort)
    pair a real "$SL_FAULT_APP" "$1-in-region"
    case $1 in
    term) recover_ok a.shim "ended by signal 15" ;;
    *) recover_ok a.shim "ended without likwid_markerClose" ;;
    esac ;;
run)
    # scope-likwid run: likwid-perfctr cannot count here, so it runs the
    # application directly; its status is the application's.
    mkdir -p "$T/r"
    (cd "$T/r" && exec "$SL_CLI" run -- "$SL_FAULT_APP" term-in-region) >"$T/r.out" 2>"$T/r.err"
    rc=$?
    [ "$rc" = 143 ] || fail "scope-likwid run: exit status $rc: expected 143 (SIGTERM) as the application's"
    f=$(result_file r) || fail "scope-likwid run left no result file: $(cat "$T/r.err")"
    [ -n "$f" ] && work_timing "$f" --open "inside=1" --no-likwid --status "was killed by signal 15"
    ls "$T/r"/*.journal >/dev/null 2>&1 && fail "scope-likwid run left the journal" ;;
alive)
    mkdir -p "$T/w" "$T/sync"
    (cd "$T/w" && FAULT_SYNC_DIR=$T/sync exec env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" wait-in-region) \
        >"$T/w.out" 2>"$T/w.err" &
    pid=$!
    for i in $(seq 100); do [ -e "$T/sync/ready" ] && break; sleep 0.1; done
    [ -e "$T/sync/ready" ] || fail "the application did not reach its region"
    j=$(ls "$T/w"/*.journal 2>/dev/null)
    "$SL_CLI" recover "$T/w" >"$T/rec.out" 2>"$T/rec.err" || fail "recover of a live journal failed"
    grep -q "still runs: left alone" "$T/rec.err" || fail "recover did not say it left the live journal alone: $(cat "$T/rec.err")"
    [ -f "$j" ] || fail "recover touched the journal of a live process"
    ls "$T/w"/*.h5 >/dev/null 2>&1 && fail "recover wrote a result for a live process"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    recover_ok w "ended without likwid_markerClose" ;;
handler-before|handler-after)
    pair a real "$SL_FAULT_APP" "term-$1"
    grep -q 'SIGTERM handled: 1' "$T/a.shim.out" || fail "the application's handler did not run: $(cat "$T/a.shim.out")"
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && work_timing "$f" --timing "inside=1x1" --timing "after=1x2" --no-likwid --status "not counting"
    ls "$T/a.shim"/*.journal >/dev/null 2>&1 && fail "Close left the journal" ;;
*) echo "signals.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim 2>/dev/null
finish
