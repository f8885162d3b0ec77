#!/bin/sh
# The shim's helper processes (collector, writer) are invisible to the
# application, and their deadline does not count time the job was stopped.
# The simulated LIKWID, so that the collector runs too.
#   children.sh sigchld   the application counts SIGCHLD around one child
#       of its own and Close: it sees exactly 1, as without the shim
#   children.sh wait      a supervisor thread blocked in wait() during Close
#       reaps its own worker (ending after Close), never a helper, and no
#       zombie is left
#   children.sh stop      the whole job is stopped (SIGSTOP to its process
#       group) while the collector runs, for longer than
#       SCOPE_LIKWID_TIMEOUT, then resumed: the result is complete (full_api)
#   children.sh term-close   SIGTERM (default action) arrives in one thread
#       while another is in Close (its collector slow): the handler waits
#       for Close, whose full result is kept; the process dies of SIGTERM
#   children.sh valgrind    the application under valgrind (which ends a
#       process that clones with CLONE_VM alone): Close and a SIGTERM both
#       still give the result (the helper then started as a vfork child)
# sigchld and wait are repeated (SL_REPEAT, default 5): each run must pass.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_SIG_APP SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR SL_COLLECT
pick_python
REPEAT=${SL_REPEAT:-5}

# stopped NAME CMD...: runs CMD under the simulated LIKWID in its own
# process group; when the collector starts, stops the group for STOP_S
# seconds, then resumes it.
stopped() {
    sname=$1
    shift
    mkdir -p "$T/$sname" "$T/$sname.sync"
    (cd "$T/$sname" && STOP_SYNC=$T/$sname.sync exec setsid env LD_LIBRARY_PATH="$SL_SIM_DIR" \
        "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- "$@") >"$T/$sname.out" 2>"$T/$sname.err" &
    spid=$!
    i=0
    while [ ! -e "$T/$sname.sync/collecting" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    if [ -e "$T/$sname.sync/collecting" ]; then
        pg=$(ps -o pgid= -p "$spid" | tr -d ' ')
        [ "$pg" = "$spid" ] || fail "$sname: not in a process group of its own (pgid '$pg')"
        /bin/kill -s STOP -- "-$pg" || fail "$sname: could not stop process group $pg"
        sleep "$STOP_S"
        /bin/kill -s CONT -- "-$pg"
    fi
    wait "$spid"
    echo $? >"$T/$sname.rc"
}

case ${1:-} in
sigchld|wait)
    mode=sigchld-count
    [ "$1" = wait ] && mode=wait-supervisor
    ok=0
    for i in $(seq "$REPEAT"); do
        FAILED_BEFORE=$FAILED
        FAILED=0
        pair "c$i" sim "$SL_SIG_APP" "$mode"
        case $1 in
        sigchld) grep -qx 'sig_app: SIGCHLD received 1 time(s)' "$T/c$i.shim.out" ||
                     fail "run $i: $(cat "$T/c$i.shim.out" | tail -n 1): expected exactly the application's own SIGCHLD" ;;
        wait) grep -qx 'sig_app: the supervisor reaped its worker (status 7)' "$T/c$i.shim.out" ||
                  fail "run $i: $(sed -n 2p "$T/c$i.shim.out")" ;;
        esac
        if f=$(result_file "c$i.shim"); then
            check "$f" --timing "work=1x3" --source full_api --status "used full_api" >/dev/null
        else
            fail "run $i: no result file: $(shim_lines "c$i.shim")"
        fi
        [ "$FAILED" = 0 ] && ok=$((ok + 1))
        [ "$FAILED_BEFORE" = 0 ] || FAILED=1
    done
    say "$ok of $REPEAT runs as without the shim" ;;
stop)
    # The collector announces itself, then does its work; the job is
    # stopped for twice the timeout.
    printf '#!/bin/sh\n: >"$STOP_SYNC/collecting"\nsleep 1\nexec "%s" "$@"\n' "$SL_COLLECT" >"$T/collector"
    chmod +x "$T/collector"
    SCOPE_LIKWID_COLLECTOR=$T/collector SCOPE_LIKWID_TIMEOUT=3 STOP_S=7
    export SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_TIMEOUT
    sim s.base "$SL_SIG_APP" close      # (no helper to wait for without the shim)
    stopped s.shim env LD_PRELOAD="$SL_SHIM" "$SL_SIG_APP" close
    [ -e "$T/s.shim.sync/collecting" ] || fail "the collector never ran"
    same_behaviour s.base s.shim
    if f=$(result_file s.shim); then
        check "$f" --timing "work=1x3" --source full_api --names --status "used full_api"
    else
        fail "no result file: $(shim_lines s.shim)"
    fi ;;
term-close)
    printf '#!/bin/sh\nsleep 2\nexec "%s" "$@"\n' "$SL_COLLECT" >"$T/collector"
    chmod +x "$T/collector"
    SCOPE_LIKWID_COLLECTOR=$T/collector
    export SCOPE_LIKWID_COLLECTOR
    pair t sim "$SL_SIG_APP" term-during-close
    [ "$(rc_of t.shim)" = 143 ] || fail "exit status $(rc_of t.shim): expected 143 (SIGTERM)"
    if f=$(result_file t.shim); then
        check "$f" --timing "work=1x3" --source full_api --names --status "^used full_api"
    else
        fail "no result file: $(shim_lines t.shim)"
    fi
    ls "$T/t.shim"/*.journal "$T/t.shim"/*.rescue >/dev/null 2>&1 && fail "a journal or rescue file is left" ;;
valgrind)
    [ -n "${SL_VALGRIND:-}" ] || skip "no valgrind"
    [ "${SL_SANITIZE:-none}" = none ] || skip "b_sanitize=$SL_SANITIZE: no valgrind on a sanitized build"
    # (--leak-check=no: memcheck's leak scan reads every writable mapping,
    # the journal's whole reservation included, which takes minutes)
    for m in close raise-TERM; do
        run "v$m.base" "$SL_VALGRIND" -q --leak-check=no "$SL_SIG_APP" "$m"
        run "v$m.shim" env LD_PRELOAD="$SL_SHIM" "$SL_VALGRIND" -q --leak-check=no "$SL_SIG_APP" "$m"
        same_behaviour "v$m.base" "v$m.shim"
        if f=$(result_file "v$m.shim"); then
            check "$f" --timing "work=1x3" --no-likwid >/dev/null
        else
            fail "$m under valgrind: no result file: $(tail -n 3 "$T/v$m.shim.err")"
        fi
    done ;;
*) echo "children.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish
