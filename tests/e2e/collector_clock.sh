#!/bin/sh
# The collector's LIKWID does not measure the CPU clock again, nor look for
# its access daemon again: the shim hands it the clock the application's
# LIKWID measured at Init (the metrics that use inverseClock are computed
# with it) and the daemon its configuration found. The simulated LIKWID
# (tests/simlikwid/sim_timer.c) measures a clock of each process's own and
# logs every measurement (SIMLIKWID_TIMER_LOG); its CLOCK group has LIKWID's
# "Runtime unhalted [s]" (FIXC1*inverseClock) and "Clock [MHz]"
# (1.E-06*(FIXC1/FIXC2)/inverseClock); with SIMLIKWID_ACCESSD_LOOKUP=1 its
# configuration (sim_config.c) runs LIKWID's `bash ... which likwid-accessD`
# and logs the daemon it kept (SIMLIKWID_CONFIG_LOG).
#   collector_clock.sh given     the solver under sim-perfctr -g CLOCK -m
#                                with the shim: one measurement (the
#                                application's), the metrics with its clock
#   collector_clock.sh direct-init | direct-clock
#                                a LIKWID whose perfmon_init starts its timer,
#                                or whose metrics read its clock, without its
#                                exported functions: the collector's LIKWID
#                                measures its own clock and the metrics use
#                                it (as without a given clock)
#   collector_clock.sh accessd   as given, with the look-up on and a
#                                likwid-accessD and a bash that logs who
#                                started it first in PATH: only the
#                                application's LIKWID ran the shell, and the
#                                collector's LIKWID kept the daemon it found
#   collector_clock.sh args      the collector alone: a given clock reaches
#                                the metrics and nothing is measured; none
#                                given: LIKWID measures; a given daemon
#                                answers LIKWID's look-up without a shell,
#                                none: LIKWID runs its shell; a bad clock
#                                argument is refused with one line
. "$(dirname "$0")/lib.sh"
case ${1:-} in
given | direct-init | direct-clock | accessd | args) mode=$1 ;;
*) echo "usage: collector_clock.sh given|direct-init|direct-clock|accessd|args" >&2; exit 2 ;;
esac
need SL_SHIM SL_SOLVER SL_COLLECT SL_WRITE SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SIMLIKWID_TIMER_LOG=$T/timer.log
export SIMLIKWID_TIMER_LOG
: >"$T/timer.log"

# clock_metrics FILE HZ: every region's and thread's "Runtime unhalted [s]"
# and "Clock [MHz]" in FILE are those of the clock HZ (h5py)
clock_metrics() {
    "$PY" - "$@" <<'EOF'
import sys, h5py
path, hz = sys.argv[1], float(sys.argv[2])
f = h5py.File(path, "r")
rank = f["rank0"]
status = rank.attrs["likwid_status"]
status = status.decode() if isinstance(status, bytes) else status
if "likwid" not in rank or rank["likwid"].attrs["source"] not in ("full_api", b"full_api"):
    sys.exit("counters not from full_api: %s" % status)
bad, n = [], 0
for tag, g in rank["likwid/regions"].items():
    names = [x.decode() if isinstance(x, bytes) else x for x in g.attrs["metric_names"]]
    events = [x.decode() if isinstance(x, bytes) else x for x in g.attrs["event_names"]]
    ev, mv = g["events"][()], g["metrics"][()]
    core, ref = ev[events.index("CPU_CLK_UNHALTED_CORE")], ev[events.index("CPU_CLK_UNHALTED_REF")]
    for t in range(len(core)):
        want = {"Runtime unhalted [s]": core[t] / hz, "Clock [MHz]": 1e-6 * (core[t] / ref[t]) * hz}
        for name, w in want.items():
            got = mv[names.index(name)][t]
            n += 1
            if not abs(got - w) <= 1e-12 * abs(w):
                bad.append("%s thread %d %s: %r, expected %r (clock %.0f Hz)" % (tag, t, name, got, w, hz))
if bad or n == 0:
    sys.exit("\n".join(bad) or "no clock metric")
print("%d clock metrics with %.0f Hz (%s)" % (n, hz, status))
EOF
}
# measured PID: the clock the log says process PID measured
measured() { awk -v p="$1" '$1 == p { print $2 }' "$T/timer.log"; }
# A likwid-accessD for LIKWID's look-up to find, and a bash that logs the
# process whose popen started it (its parent's parent: popen runs sh -c).
mkdir "$T/bin"
printf '#!/bin/sh\nexit 0\n' >"$T/bin/likwid-accessD"
real_bash=$(command -v bash) || skip "no bash"
printf '#!/bin/sh\nawk %s /proc/$PPID/status >>"%s"\nexec "%s" "$@"\n' \
    "'/^PPid:/ { print \$2 }'" "$T/bash.log" "$real_bash" >"$T/bin/bash"
chmod +x "$T/bin/likwid-accessD" "$T/bin/bash"
: >"$T/bash.log"
SIMLIKWID_CONFIG_LOG=$T/config.log
export SIMLIKWID_CONFIG_LOG

if [ "$mode" = args ]; then
    # a marker file of the CLOCK group, kept from a run without the shim
    SIM_KEEP_MARKER=$T/m.txt run keep env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g CLOCK -m -- "$SL_SOLVER"
    [ -s "$T/m.txt" ] || { fail "sim-perfctr kept no marker file"; show_run keep; finish; }
    : >"$T/timer.log"
    lib=$SL_SIM_DIR/$SL_SIM_SONAME
    collect() {  # NAME ARGS...: the collector on m.txt, answer in NAME.ans
        n=$1
        shift
        LIKWID_MODE=1 LIKWID_EVENTS=CLOCK LIKWID_THREADS=0,1 "$SL_COLLECT" "$T/m.txt" "$@" \
            >"$T/$n.ans" 2>"$T/$n.cerr"
        echo $? >"$T/$n.crc"
    }
    # the answer's clock metrics against a clock (the wire format read here,
    # from docs/WIRE.md: "metric =NAME HEX..." after "event =NAME =COUNTER HEX...")
    answer_clock() {
        "$PY" - "$@" <<'EOF'
import sys, struct, urllib.parse
path, hz = sys.argv[1], float(sys.argv[2])
dbl = lambda h: struct.unpack(">d", bytes.fromhex(h))[0]
ev, n, bad = {}, 0, []
for line in open(path):
    w = line.split()
    if w and w[0] == "region":
        ev = {}
    elif w and w[0] == "event":
        ev[urllib.parse.unquote(w[1][1:])] = [dbl(h) for h in w[3:]]
    elif w and w[0] == "metric":
        name = urllib.parse.unquote(w[1][1:])
        core, ref = ev["CPU_CLK_UNHALTED_CORE"], ev["CPU_CLK_UNHALTED_REF"]
        for t, h in enumerate(w[2:]):
            want = {"Runtime unhalted [s]": core[t] / hz, "Clock [MHz]": 1e-6 * core[t] / ref[t] * hz}.get(name)
            if want is not None:
                n += 1
                if abs(dbl(h) - want) > 1e-12 * abs(want):
                    bad.append("%s thread %d: %r, expected %r" % (name, t, dbl(h), want))
if bad or n == 0:
    sys.exit("\n".join(bad) or "no clock metric in the answer")
print("%d clock metrics with %.0f Hz" % (n, hz))
EOF
    }
    collect given "$lib" 3000000000 3000000000
    [ "$(cat "$T/given.crc")" = 0 ] || fail "given clock: exit $(cat "$T/given.crc"): $(cat "$T/given.cerr")"
    [ -s "$T/timer.log" ] && fail "given clock: LIKWID measured the clock in the collector: $(cat "$T/timer.log")"
    answer_clock "$T/given.ans" 3000000000 || fail "given clock: the metrics are not those of 3 GHz"
    collect own "$lib"
    [ "$(cat "$T/own.crc")" = 0 ] || fail "no clock: exit $(cat "$T/own.crc"): $(cat "$T/own.cerr")"
    [ "$(wc -l <"$T/timer.log")" = 1 ] || fail "no clock: expected LIKWID to measure once, log: $(cat "$T/timer.log")"
    hz=$(awk '{ print $2 }' "$T/timer.log")
    answer_clock "$T/own.ans" "${hz:-0}" || fail "no clock: the metrics are not those of LIKWID's own clock"
    # bad clocks: one line naming the argument and what was expected
    for bad in 0 -5 3e9 x "" 18446744073709551616; do
        collect bad "$lib" "$bad" 2000000000
        [ "$(cat "$T/bad.crc")" = 1 ] || fail "CYCLE_HZ '$bad': exit $(cat "$T/bad.crc"): expected 1"
        [ "$(wc -l <"$T/bad.cerr")" = 1 ] &&
            grep -qx "scope-likwid-collect: CYCLE_HZ '$bad': expected a clock in Hz (a whole number above 0)" "$T/bad.cerr" ||
            fail "CYCLE_HZ '$bad': message: $(cat "$T/bad.cerr")"
        [ -s "$T/bad.ans" ] && fail "CYCLE_HZ '$bad': an answer was printed"
    done
    collect bad "$lib" 2000000000 nope
    grep -qx "scope-likwid-collect: CPU_HZ 'nope': expected a clock in Hz (a whole number above 0)" "$T/bad.cerr" ||
        fail "CPU_HZ 'nope': message: $(cat "$T/bad.cerr")"
    collect bad "$lib" 2000000000
    [ "$(cat "$T/bad.crc")" = 1 ] && grep -q "^scope-likwid-collect: usage: .*\[CYCLE_HZ CPU_HZ \[ACCESSD\]\]" "$T/bad.cerr" ||
        fail "one clock argument: expected the usage line, got exit $(cat "$T/bad.crc"): $(cat "$T/bad.cerr")"
    # the access daemon: given, LIKWID's look-up reads it, no shell runs
    # (and LIKWID checks it as it checks the shell's answer); not given,
    # LIKWID's shell finds the one in PATH
    export SIMLIKWID_ACCESSD_LOOKUP=1
    for given in /nonexistent/likwid-accessD "$T/bin/likwid-accessD" ""; do
        : >"$T/config.log"
        : >"$T/bash.log"
        PATH=$T/bin:$PATH collect accessd "$lib" 3000000000 3000000000 ${given:+"$given"}
        [ "$(cat "$T/accessd.crc")" = 0 ] || fail "daemon '$given': exit $(cat "$T/accessd.crc"): $(cat "$T/accessd.cerr")"
        case $given in
        /nonexistent/*) want=- shells=0 ;;
        "") want=$T/bin/likwid-accessD shells=1 ;;
        *) want=$given shells=0 ;;
        esac
        [ "$(grep -c . "$T/bash.log")" = "$shells" ] ||
            fail "daemon '$given': LIKWID's shell ran $(grep -c . "$T/bash.log") times: expected $shells"
        [ "$(cut -d' ' -f2- "$T/config.log")" = "$want" ] ||
            fail "daemon '$given': LIKWID kept '$(cut -d' ' -f2- "$T/config.log")': expected '$want'"
    done
    finish
fi

# The application's LIKWID measures for 300 ms at Init, as LIKWID does.
SIMLIKWID_TIMER_SLEEP_MS=300
export SIMLIKWID_TIMER_SLEEP_MS
case $mode in
direct-init) SIMLIKWID_TIMER_DIRECT=init; export SIMLIKWID_TIMER_DIRECT ;;
direct-clock) SIMLIKWID_TIMER_DIRECT=clock; export SIMLIKWID_TIMER_DIRECT ;;
accessd) SIMLIKWID_ACCESSD_LOOKUP=1 PATH=$T/bin:$PATH; export SIMLIKWID_ACCESSD_LOOKUP PATH ;;
esac
run shim env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g CLOCK -m -- \
    env LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
[ "$(rc_of shim)" = 0 ] || { fail "solver under sim-perfctr exited $(rc_of shim): expected 0"; show_run shim; }
f=$(result_file shim) || { fail "no single scope-likwid-*.h5 in the application's cwd"; show_run shim; finish; }
app=$("$PY" -c 'import sys, h5py; print(int(h5py.File(sys.argv[1], "r")["rank0"].attrs["pid"]))' "$f")
app_hz=$(measured "$app")
[ -n "$app_hz" ] || fail "the application (pid $app) did not measure its clock: $(cat "$T/timer.log")"
others=$(awk -v p="$app" '$1 != p' "$T/timer.log")
if [ "$mode" = given ] || [ "$mode" = accessd ]; then
    [ -z "$others" ] || fail "another process measured the clock again: $others"
    clock_metrics "$f" "${app_hz:-0}" || fail "the clock metrics are not those of the application's clock"
else
    # the collector's LIKWID measured its own clock, once; the metrics use it
    [ "$(echo "$others" | grep -c .)" = 1 ] ||
        fail "$mode: expected one measurement besides the application's: $(cat "$T/timer.log")"
    clock_metrics "$f" "$(echo "$others" | awk '{ print $2; exit }')" ||
        fail "$mode: the clock metrics are not those of the collector's LIKWID's own clock"
fi
if [ "$mode" = accessd ]; then
    # sim-perfctr is a script (no LIKWID): the application's LIKWID alone
    # ran the shell; the collector's LIKWID kept the same daemon
    [ "$(cat "$T/bash.log")" = "$app" ] ||
        fail "LIKWID's shell was started by '$(tr '\n' ' ' <"$T/bash.log")': expected the application ($app) alone"
    [ "$(grep -c " $T/bin/likwid-accessD\$" "$T/config.log")" = 2 ] && [ "$(grep -c . "$T/config.log")" = 2 ] ||
        fail "the daemons LIKWID kept: $(cat "$T/config.log"): expected $T/bin/likwid-accessD in the application and the collector"
fi
check "$f" --source full_api --names --metrics --status "used full_api" >/dev/null ||
    fail "result file rejected by the checker"
[ "$FAILED" = 0 ] || show_run shim
finish
