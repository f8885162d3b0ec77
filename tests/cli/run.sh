#!/bin/sh
# scope-likwid run: LD_PRELOAD, the likwid-perfctr decision (with fake
# likwid-perfctr programs), exit statuses, where the result went.
# Third argument: a program using the marker API; fourth: the shim.
. "$(dirname "$0")/lib.sh"
APP=$3
SHIM=$4
case $APP in /*) ;; *) APP=$START/$APP ;; esac
case $SHIM in /*) ;; *) SHIM=$START/$SHIM ;; esac
unset SCOPE_LIKWID_OUTPUT SCOPE_LIKWID_SHIM SCOPE_LIKWID_DISABLE || true

# sl_env VAR=VALUE... NAME ARGS: sl with extra environment (assignments in
# front of a shell function are not portable)
sl_env() {
    _name=$2
    RC=0
    _e=$1
    shift 2
    env "$_e" "$SL" "$@" >"$TMP/$_name.out" 2>"$TMP/$_name.err" || RC=$?
    CHECKS=$((CHECKS + 1))
}

# without likwid-perfctr: LD_PRELOAD gets the shim in front, keeps the rest
export SCOPE_LIKWID_PERFCTR=none
sl_env LD_PRELOAD=libm.so.6 env run -- sh -c 'echo "$LD_PRELOAD"; echo "$SCOPE_LIKWID_OUTPUT"'
check_rc 0 "run sh"
CHECKS=$((CHECKS + 1))
[ "$(sed -n 1p "$TMP/env.out")" = "$(readlink -f "$SHIM"):libm.so.6" ] ||
    fail "LD_PRELOAD in the app is '$(sed -n 1p "$TMP/env.out")', expected shim:libm.so.6"
CHECKS=$((CHECKS + 1))
case $(sed -n 2p "$TMP/env.out") in
"$TMP"/scope-likwid-run-*.h5) ;;
*) fail "SCOPE_LIKWID_OUTPUT in the app is '$(sed -n 2p "$TMP/env.out")'" ;;
esac
check_grep "$TMP/env.err" "scope-likwid: run: LIKWID cannot count on this host (SCOPE_LIKWID_PERFCTR=none): running sh without likwid-perfctr; timing only" "fallback message"
check_grep "$TMP/env.err" "scope-likwid: run: $TMP/scope-likwid-run-<PID>.h5: no result file" "no result from sh"
CHECKS=$((CHECKS + 1))
[ "$(grep -c 'cannot count' "$TMP/env.err")" -eq 1 ] || fail "fallback message not printed once"

# exit statuses
sl st7 run -- sh -c 'exit 7'
check_rc 7 "app exit status"
sl stsig run -- sh -c 'kill -TERM $$'
check_rc 143 "app killed by SIGTERM"
sl notfound run -- "$TMP/no-such-app"
check_rc 127 "app not found"
check_grep "$TMP/notfound.err" "no-such-app" "app not found: named"
printf 'not a program\n' >"$TMP/not-executable"
sl noexec run -- "$TMP/not-executable"
check_rc 126 "app not executable"
check_grep "$TMP/noexec.err" "scope-likwid: run: $TMP/not-executable: cannot run" "app not executable: named"
sl_env SCOPE_LIKWID_SHIM=$TMP/no-shim.so noshim run -- true
check_rc 1 "shim not found"
check_grep "$TMP/noshim.err" "no-shim.so" "shim not found: named"

# a fake likwid-perfctr that can count: the app runs under it with -m
cat >"$TMP/perfctr-ok" <<'FAKE'
#!/bin/sh
if [ "$1" = "-e" ]; then echo "This architecture has 4 counters."; exit 0; fi
echo "$*" >>"$FAKE_LOG"
while [ $# -gt 0 ]; do
    case $1 in
    -m) shift; break ;;
    -g|-C|-c) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
export LIKWID_FAKE=1
exec "$@"
FAKE
chmod +x "$TMP/perfctr-ok"
export FAKE_LOG=$TMP/fake.log
sl_env SCOPE_LIKWID_PERFCTR=$TMP/perfctr-ok fake run -g FLOPS_DP -C 0 -- sh -c 'echo "fake=$LIKWID_FAKE"; exit 3'
check_rc 3 "under fake likwid-perfctr"
check_grep "$TMP/fake.out" "fake=1" "app ran under likwid-perfctr"
check_grep "$TMP/fake.log" "-g FLOPS_DP -C 0 -m sh -c" "likwid-perfctr got the options and -m"
CHECKS=$((CHECKS + 1))
if grep -q "cannot count" "$TMP/fake.err"; then fail "fallback message under a working likwid-perfctr"; fi

# a likwid-perfctr on an unsupported CPU (it still exits 0 for -e)
cat >"$TMP/perfctr-unsupported" <<'FAKE'
#!/bin/sh
echo "ERROR - [./src/perfmon.c:perfmon_init_maps:1262] Unsupported Fancy Processor" >&2
echo "This architecture has 0 counters."
exit 0
FAKE
chmod +x "$TMP/perfctr-unsupported"
sl_env SCOPE_LIKWID_PERFCTR=$TMP/perfctr-unsupported unsup run -g X -- sh -c 'echo ran'
check_rc 0 "unsupported CPU"
check_grep "$TMP/unsup.out" "ran" "unsupported CPU: app ran directly"
check_grep "$TMP/unsup.err" "LIKWID cannot count on this host (Unsupported Fancy Processor)" "unsupported CPU: reason"

# likwid-perfctr -e on a CPU without counters, and without MSR access: the
# line that says why is quoted, not the last one (a listing's heading)
cat >"$TMP/perfctr-nocounters" <<'FAKE'
#!/bin/sh
echo "This architecture has 0 counters."
echo "Counter tags(name, type<, options>):"
echo ""
echo "This architecture has 0 events."
echo "Event tags (tag, id, umask, counters<, options>):"
exit 0
FAKE
cat >"$TMP/perfctr-nomsr" <<'FAKE'
#!/bin/sh
echo "Cannot get access to MSRs. Please check permissions to the MSRs"
echo "Counter tags(name, type<, options>):"
echo "Event tags (tag, id, umask, counters<, options>):"
exit 0
FAKE
chmod +x "$TMP/perfctr-nocounters" "$TMP/perfctr-nomsr"
sl_env SCOPE_LIKWID_PERFCTR=$TMP/perfctr-nocounters nocount run -g X -- sh -c 'echo ran'
check_rc 0 "no counters"
check_grep "$TMP/nocount.out" "ran" "no counters: app ran directly"
check_grep "$TMP/nocount.err" "LIKWID cannot count on this host (This architecture has 0 counters.)" "no counters: reason"
sl_env SCOPE_LIKWID_PERFCTR=$TMP/perfctr-nomsr nomsr run -g X -- sh -c 'echo ran'
check_rc 0 "no MSR access"
check_grep "$TMP/nomsr.out" "ran" "no MSR access: app ran directly"
check_grep "$TMP/nomsr.err" "LIKWID cannot count on this host (Cannot get access to MSRs. Please check permissions to the MSRs)" "no MSR access: reason"

# a likwid-perfctr that refuses the options
cat >"$TMP/perfctr-refuses" <<'FAKE'
#!/bin/sh
if [ "$1" = "-e" ]; then echo "This architecture has 4 counters."; exit 0; fi
echo "likwid-perfctr -- Version 5.2.2"
echo "Option(s) -g <string> or -W <string> must be given on commandline"
echo "Examples:"
exit 1
FAKE
chmod +x "$TMP/perfctr-refuses"
sl_env SCOPE_LIKWID_PERFCTR=$TMP/perfctr-refuses refuses run -C 0 -- sh -c 'echo ran'
check_rc 0 "refused options"
check_grep "$TMP/refuses.out" "ran" "refused options: app ran directly"
check_grep "$TMP/refuses.err" "scope-likwid: run: likwid-perfctr refuses the options given before '--' (Option(s) -g <string> or -W <string> must be given on commandline): running sh without likwid-perfctr; timing only" "refused options: reason"
CHECKS=$((CHECKS + 1))
if grep -q "cannot count" "$TMP/refuses.err"; then fail "missing -g called a host that cannot count"; fi

# likwid-perfctr 5.x on a bad event set: it forks the application, stops it
# (SIGSTOP) and exits 1; the stopped orphan holds the probe's pipe. run ends
# it (by pid), says which option is wrong and runs the application directly.
cat >"$TMP/perfctr-stops" <<'FAKE'
#!/bin/sh
if [ "$1" = "-e" ]; then echo "This architecture has 4 counters."; exit 0; fi
while [ $# -gt 0 ]; do
    case $1 in
    -g|-C|-c) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
sh -c 'kill -STOP $$; exec "$@"' sh "$@" &
echo $! >>"$STOPPED_LOG"
echo "ERROR - [./src/perfgroup.c:perfgroup_readGroup:830] Cannot read group file NOSUCHGROUP.txt. Searched in /usr/share/likwid/perfgroups/zen5/NOSUCHGROUP.txt and /root/.likwid/groups/zen5/NOSUCHGROUP.txt" >&2
exit 1
FAKE
chmod +x "$TMP/perfctr-stops"
export STOPPED_LOG=$TMP/stopped.log
# each stopped process must be gone: not stopped, not a zombie, not there
check_ended() {
    while read -r _p; do
        CHECKS=$((CHECKS + 1))
        if [ -e "/proc/$_p" ]; then
            fail "$1: process $_p ($(cat "/proc/$_p/cmdline" | tr '\0' ' ')) left behind"
            kill -KILL "$_p" 2>/dev/null || true
        fi
    done <"$STOPPED_LOG"
    : >"$STOPPED_LOG"
}
_t0=$(date +%s)
RC=0
SCOPE_LIKWID_PERFCTR=$TMP/perfctr-stops SCOPE_LIKWID_OUTPUT=$TMP/nogroup.h5 \
    timeout 60 "$SL" run -g NOSUCHGROUP -- "$APP" 4 >"$TMP/nogroup.out" 2>"$TMP/nogroup.err" || RC=$?
_name=nogroup
CHECKS=$((CHECKS + 1))
check_rc 4 "-g NOSUCHGROUP: the app's status (124: run hung)"
CHECKS=$((CHECKS + 1))
[ $(($(date +%s) - _t0)) -lt 30 ] || fail "-g NOSUCHGROUP: took $(($(date +%s) - _t0)) s"
check_grep "$TMP/nogroup.err" "scope-likwid: run: likwid-perfctr refuses the options given before '--' (Cannot read group file NOSUCHGROUP.txt. Searched in /usr/share/likwid/perfgroups/zen5/NOSUCHGROUP.txt and /root/.likwid/groups/zen5/NOSUCHGROUP.txt): running $APP without likwid-perfctr; timing only" "-g NOSUCHGROUP: the option named"
CHECKS=$((CHECKS + 1))
[ -f "$TMP/nogroup.h5" ] || fail "-g NOSUCHGROUP: no timing result $TMP/nogroup.h5: $(cat "$TMP/nogroup.err")"
CHECKS=$((CHECKS + 1))
[ -s "$STOPPED_LOG" ] || fail "-g NOSUCHGROUP: the stand-in stopped nothing"
check_ended "-g NOSUCHGROUP probe"

# the same failure in the real run (the probe with 'true' passed): the
# stopped application is ended and named, run ends with likwid-perfctr's status
cat >"$TMP/perfctr-stops-late" <<'FAKE'
#!/bin/sh
for a in "$@"; do [ "$a" = true ] && exit 0; done
exec "$PERFCTR_STOPS" "$@"
FAKE
chmod +x "$TMP/perfctr-stops-late"
RC=0
PERFCTR_STOPS=$TMP/perfctr-stops SCOPE_LIKWID_PERFCTR=$TMP/perfctr-stops-late \
    timeout 60 "$SL" run -g X -- sleep 100 >"$TMP/late.out" 2>"$TMP/late.err" || RC=$?
_name=late
CHECKS=$((CHECKS + 1))
check_rc 1 "stopped in the real run: likwid-perfctr's status"
check_grep "$TMP/late.err" "scope-likwid: run: ended process $(cat "$STOPPED_LOG"), which likwid-perfctr left stopped" "stopped in the real run: named"
check_ended "stopped in the real run"

# likwid-perfctr 5.5 in perf_event mode: exits 0, but its events cannot be set up
cat >"$TMP/perfctr-nosetup" <<'FAKE'
#!/bin/sh
if [ "$1" = "-e" ]; then echo "This architecture has 4 counters."; exit 0; fi
echo "ERROR - [./src/includes/perfmon_perfevent.h:perfmon_setupCountersThread_perfevent:1552] Setup of event INSTR_RETIRED_ANY on CPU 0 failed: Permission denied" >&2
exit 0
FAKE
chmod +x "$TMP/perfctr-nosetup"
sl_env SCOPE_LIKWID_PERFCTR=$TMP/perfctr-nosetup nosetup run -g CLOCK -- sh -c 'echo ran'
check_rc 0 "events not set up"
check_grep "$TMP/nosetup.out" "ran" "events not set up: app ran directly"
check_grep "$TMP/nosetup.err" "LIKWID cannot count on this host (Setup of event INSTR_RETIRED_ANY on CPU 0 failed: Permission denied)" "events not set up: reason"

# a likwid-perfctr that is not there
sl_env SCOPE_LIKWID_PERFCTR=$TMP/no-perfctr noperf run -- sh -c 'echo ran'
check_rc 0 "no likwid-perfctr"
check_grep "$TMP/noperf.err" "cannot run $TMP/no-perfctr" "no likwid-perfctr: reason"

# a real marker-API program: the result file is found and readable; the
# directory name holds a '%', which must not be expanded as a template
mkdir "$TMP/dir%p"
RC=0
export SCOPE_LIKWID_QUIET=1
(cd "$TMP/dir%p" && "$SL" run -- "$APP" 5) \
    >"$TMP/app.out" 2>"$TMP/app.err" || RC=$?
_name=app
check_rc 5 "marker app exit status"
CHECKS=$((CHECKS + 1))
res=$(sed -n 's/^scope-likwid: run: result in //p' "$TMP/app.err")
case $res in
"$TMP/dir%p"/scope-likwid-run-[0-9]*.h5) ;;
*) fail "marker app: result line '$res': $(cat "$TMP/app.err")" ;;
esac
CHECKS=$((CHECKS + 1))
[ -f "$res" ] || fail "marker app: $res does not exist"
# named after the app's pid (the process that wrote it), not scope-likwid's
CHECKS=$((CHECKS + 1))
app_pid=$(sed -n 's/^pid //p' "$TMP/app.out")
[ "$res" = "$TMP/dir%p/scope-likwid-run-$app_pid.h5" ] ||
    fail "marker app: result '$res', expected one named after the app's pid $app_pid"
sl appshow show "$res" --csv
check_rc 0 "marker app: show"
check_grep "$TMP/appshow.out" "0,timing,,,cli-region,,,calls,3" "marker app: timing"
# a timing-only file: --metric says there are no counters (not "no metric X")
sl appcpi show "$res" --metric CPI
check_rc 1 "timing only: --metric CPI"
check_grep "$TMP/appcpi.err" "scope-likwid: show: $res: no counter data (timing only)" \
    "timing only: --metric CPI"

# run names exactly the file its process wrote, in one line; its report
# file goes to TMPDIR (a private one: nothing may be left there)
TMPDIR=$TMP/tmpdir
export TMPDIR
mkdir "$TMPDIR"
# only_line RUN LINE WHAT: LINE is the only line of run (or recover) in RUN
only_line() {
    CHECKS=$((CHECKS + 1))
    _got=$(grep -E '^scope-likwid: (run|recover): ' "$TMP/$1.err" | grep -v 'cannot count' || true)
    [ "$_got" = "$2" ] || fail "$3: run said '$_got', expected '$2'"
}
# SCOPE_LIKWID_OUTPUT set by the user is left alone and named
sl_env SCOPE_LIKWID_OUTPUT=$TMP/mine.h5 own run -- "$APP"
check_rc 0 "own output"
only_line own "scope-likwid: run: result in $TMP/mine.h5" "own output named"
CHECKS=$((CHECKS + 1))
[ -f "$TMP/mine.h5" ] || fail "own output: $TMP/mine.h5 not written"
# taken: the shim writes mine.1.h5, and run says so (not the old file)
sl_env SCOPE_LIKWID_OUTPUT=$TMP/mine.h5 taken run -- "$APP"
check_rc 0 "taken output"
only_line taken "scope-likwid: run: result in $TMP/mine.1.h5 ($TMP/mine.h5 exists: never overwritten)" "taken output: the new name, and why"
# a template: the expanded name, never the template
sl_env SCOPE_LIKWID_OUTPUT=$TMP/tmpl-%p.h5 tmpl run -- "$APP"
app_pid=$(sed -n 's/^pid //p' "$TMP/tmpl.out")
only_line tmpl "scope-likwid: run: result in $TMP/tmpl-$app_pid.h5" "template expanded"
# the writer fails: the rescue file, not the template or a result
RC=0
SCOPE_LIKWID_OUTPUT=$TMP/resc-%p.h5 SCOPE_LIKWID_WRITER=$TMP/no-writer \
    "$SL" run -- "$APP" >"$TMP/resc.out" 2>"$TMP/resc.err" || RC=$?
_name=resc
check_rc 0 "writer failed"
app_pid=$(sed -n 's/^pid //p' "$TMP/resc.out")
only_line resc "scope-likwid: run: no result file written; the timing is in $TMP/resc-$app_pid.h5.rescue (the line above says how to convert it)" "writer failed: the rescue file"
# killed before Close: its journal is recovered into the result, one line
sl_env SCOPE_LIKWID_OUTPUT=$TMP/killed.h5 killed run -- "$APP" kill
check_rc 137 "killed app"
only_line killed "scope-likwid: recover: recovered $TMP/killed.h5.journal: wrote $TMP/killed.h5" "killed: recovered"
CHECKS=$((CHECKS + 1))
[ -f "$TMP/killed.h5" ] || fail "killed: $TMP/killed.h5 not recovered"
# killed without a journal: named, not "did it call likwid_markerInit?"
RC=0
SCOPE_LIKWID_OUTPUT=$TMP/nojrn.h5 SCOPE_LIKWID_JOURNAL=0 \
    "$SL" run -- "$APP" kill >"$TMP/nojrn.out" 2>"$TMP/nojrn.err" || RC=$?
_name=nojrn
check_rc 137 "killed app without a journal"
app_pid=$(sed -n 's/^pid //p' "$TMP/nojrn.out")
only_line nojrn "scope-likwid: run: process $app_pid ended without writing $TMP/nojrn.h5 and left no journal" "killed without a journal: named"
# no report file left behind in TMPDIR
CHECKS=$((CHECKS + 1))
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
finish
