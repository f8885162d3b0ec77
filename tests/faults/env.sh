#!/bin/sh
# The environment is partly set or holds garbage:
#   env.sh likwid-partial   only LIKWID_FILEPATH and LIKWID_MODE set
#   env.sh timeout          SCOPE_LIKWID_TIMEOUT=soon
#   env.sh sources          SCOPE_LIKWID_SOURCES=bogus,marker_file
#   env.sh output-template  SCOPE_LIKWID_OUTPUT=out-%q-%p.h5
#   env.sh max-calls        SCOPE_LIKWID_MAX_CALLS=-5
#   env.sh long-names       SCOPE_LIKWID_OUTPUT of 240 to 255 bytes
# Same behaviour; exactly one scope-likwid: warning per bad variable, naming
# it; the default used; the timing saved.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE

# one_warning RUN VAR: exactly one line names VAR, and it is one line.
one_warning() {
    n=$(shim_lines "$1" | grep -c "$2")
    [ "$n" = 1 ] || { fail "$1: $n scope-likwid: lines name $2: expected exactly one"; shim_lines "$1" | sed 's/^/    /'; }
}

case ${1:-} in
likwid-partial)
    # No sim-perfctr: the simulated library with half of likwid-perfctr's
    # environment. LIKWID runs without the marker API; the shim times.
    mkdir -p "$T/lw"
    run e.base env LD_LIBRARY_PATH="$SL_SIM_DIR" LIKWID_FILEPATH="$T/lw/m.txt" LIKWID_MODE=1 "$SL_FAULT_APP" basic
    run e.shim env LD_LIBRARY_PATH="$SL_SIM_DIR" LIKWID_FILEPATH="$T/lw/m.txt" LIKWID_MODE=1 \
        LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" basic
    same_behaviour e.base e.shim
    if f=$(result_file e.shim); then
        work_timing "$f" --no-likwid --status "not counting" --status "LIKWID_EVENTS not set"
    else
        fail "no single scope-likwid-*.h5 in the application's cwd"
    fi ;;
timeout|sources|max-calls)
    case $1 in
    timeout) var=SCOPE_LIKWID_TIMEOUT; SCOPE_LIKWID_TIMEOUT=soon; src=full_api ;;
    sources) var=SCOPE_LIKWID_SOURCES; SCOPE_LIKWID_SOURCES=bogus,marker_file; src=marker_file ;;
    max-calls) var=SCOPE_LIKWID_MAX_CALLS; SCOPE_LIKWID_MAX_CALLS=-5; src=full_api ;;
    esac
    export "${var?}"
    pair e sim "$SL_FAULT_APP" basic
    one_warning e.shim "$var"
    if f=$(result_file e.shim); then
        work_timing "$f" --source "$src" --status "used $src"
    else
        fail "no single scope-likwid-*.h5 in the application's cwd"
    fi ;;
output-template)
    SCOPE_LIKWID_OUTPUT='out-%q-%p.h5'
    export SCOPE_LIKWID_OUTPUT
    pair e sim "$SL_FAULT_APP" basic
    one_warning e.shim SCOPE_LIKWID_OUTPUT
    set -- "$T"/e.shim/out-%q-*.h5
    if [ $# = 1 ] && [ -f "$1" ]; then
        work_timing "$1" --source full_api
    else
        fail "no out-%q-PID.h5 (the bad code kept literally) in the application's cwd: $(ls "$T/e.shim")"
    fi ;;
long-names)
    # Output names of 240 to 255 bytes: the writer's temporary name, the
    # rescue name and the converted file's temporary name are derived from
    # it and must stay within NAME_MAX (shortened with a hash).
    need SL_CLI
    for len in 240 246 248 250 252 254 255; do
        long=$(printf "%$((len - 3))s" | tr ' ' n).h5
        mkdir -p "$T/out$len"
        SCOPE_LIKWID_OUTPUT=$T/out$len/$long run "n$len" env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" basic
        [ "$(rc_of "n$len")" = 0 ] || fail "n$len: exit status $(rc_of "n$len")"
        if [ -f "$T/out$len/$long" ]; then
            work_timing "$T/out$len/$long" --no-likwid >/dev/null
        else
            fail "n$len: no result file of $len bytes: $(ls "$T/out$len"; shim_lines "n$len")"
        fi
        [ "$(ls -A "$T/out$len" | wc -l)" = 1 ] || fail "n$len: files left besides the result: $(ls -A "$T/out$len")"
    done
    # The writer missing: the rescue file (shortened name) and its convert
    # to a 255-byte name.
    long=$(printf "%252s" | tr ' ' r).h5
    mkdir -p "$T/resc"
    SCOPE_LIKWID_OUTPUT=$T/resc/$long SCOPE_LIKWID_WRITER=$T/no-writer \
        run r255 env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" basic
    r=$(rescue_path r255)
    case $r in "$T/resc/"*) ;; *) fail "r255: the rescue file is not next to the output: '$r'" ;; esac
    check_rescue r255 --timing "work=1x3" --no-likwid
    "$SL_CLI" convert "$r" -o "$T/resc/$long" >"$T/conv.log" 2>&1 || fail "convert to a 255-byte name failed: $(cat "$T/conv.log")"
    [ -f "$T/resc/$long" ] || fail "convert wrote no file of 255 bytes: $(ls "$T/resc")" ;;
*) echo "env.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run e.shim
finish
