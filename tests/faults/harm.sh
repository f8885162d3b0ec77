#!/bin/sh
# What services, sandboxes, containers and crash handlers do around the
# marker API (harm_app.c says what each mode does): harm.sh CASE. Each case
# runs the program without and with the shim (same exit status, stdout, and
# stderr apart from the shim's own lines) and checks the result call by
# call with the independent reader (check_result.py, h5py). Cases that
# depend on timing run several times and must pass every time.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_HARM_APP SL_CHECKER SL_CLI
pick_python
ulimit -c 0

# one_result RUN: the one result file of RUN, and nothing else left
# (no journal, no rescue file).
one_result() {
    f=$(result_file "$1") || { fail "$1: expected one result file, found: $(ls "$T/$1")"; return 1; }
    left=$(ls "$T/$1" | grep -v '^scope-likwid-[0-9]*\.h5$')
    [ -z "$left" ] || fail "$1: left behind: $left"
    [ "$(wrote_path "$1")" = "$f" ] || fail "$1: no 'wrote $f' line: $(shim_lines "$1")"
    printf '%s\n' "$f"
}

case ${1:-} in
pid1)
    # A container's entry point is PID 1 of its namespace: the SIGTERM it
    # sends itself (docker stop sends one from outside) is dropped by the
    # kernel, with or without the shim. The simulated LIKWID counts, so
    # the Start and Stop after the signal return LIKWID's 0 both ways.
    need SL_SIM_DIR SL_SIM_PERFCTR
    unshare -p -f --mount-proc true 2>/dev/null ||
        skip "unshare -p -f --mount-proc fails here (no PID namespaces for this user)"
    pair a sim unshare -p -f --mount-proc "$SL_HARM_APP" pid1
    grep -q 'returned 0, the last Stop 0' "$T/a.shim.out" ||
        fail "LIKWID's return values changed: $(cat "$T/a.shim.out")"
    f=$(one_result a.shim) &&
        check "$f" --timing "work=1x20" --timing-tags work --source full_api \
            --status "used full_api" --status-not "signal" ;;
*)
    fail "unknown case '${1:-}'" ;;
esac
[ "$FAILED" = 0 ] || { show_run a.base; show_run a.shim; }
finish
