#!/bin/sh
# The application changes its process between Init and its end (proc_app.c
# says what each mode does): proc.sh CASE. Same behaviour as without the
# shim, and the timing of every process that timed regions saved once.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_PROC_APP SL_CHECKER SL_CLI
pick_python

case ${1:-} in
chdir)
    # LD_PRELOAD names the shim by a relative path (through a symlink), and
    # the application changes its directory after Init: the helpers are
    # still found next to the shim (its path was resolved at load).
    unset SCOPE_LIKWID_WRITER SCOPE_LIKWID_COLLECTOR
    mkdir -p "$T/a.shim"
    ln -s "$(dirname "$SL_SHIM")" "$T/a.shim/lib"
    run a.base "$SL_PROC_APP" chdir
    run a.shim env LD_PRELOAD=lib/$(basename "$SL_SHIM") "$SL_PROC_APP" chdir
    same_behaviour a.base a.shim
    f=$(result_file a.shim) || fail "no single result file in the directory of Init"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --timing "after-chdir=1x2" --no-likwid \
        --status "not counting"
    [ "$(shim_lines a.shim)" = "scope-likwid: wrote $f" ] ||
        fail "a.shim: expected the one line 'scope-likwid: wrote $f', got: $(shim_lines a.shim)" ;;
two-copies)
    # Two copies of the shim in LD_PRELOAD (LIKWID counting): the first
    # times the regions and reaches LIKWID past the second, which stays out;
    # one line says so, one result file.
    need SL_SIM_DIR SL_SIM_PERFCTR
    SIMLIKWID_STYLE=552
    export SIMLIKWID_STYLE
    mkdir -p "$T/copy"
    cp "$SL_SHIM" "$T/copy/"
    copy=$T/copy/$(basename "$SL_SHIM")
    sim a.base "$SL_PROC_APP" close
    sim a.shim env LD_PRELOAD="$SL_SHIM $copy" "$SL_PROC_APP" close
    same_behaviour a.base a.shim
    f=$(result_file a.shim) || fail "expected one result file, found: $(ls "$T/a.shim")"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --likwid-region work=1x3 --source full_api \
        --names --status "used full_api"
    n=$(shim_lines a.shim | grep -c 'two copies of the shim are loaded')
    [ "$n" = 1 ] || fail "a.shim: $n lines about the two copies: expected 1"
    expect_line a.shim "two copies of the shim are loaded: .* times the regions, $copy stays out" \
        "the line to name the copy that stays out" ;;
run-copy)
    # scope-likwid run while LD_PRELOAD already names a copy of the shim:
    # run's shim comes first and times; the user's copy stays out.
    mkdir -p "$T/copy"
    cp "$SL_SHIM" "$T/copy/"
    copy=$T/copy/$(basename "$SL_SHIM")
    run a.base "$SL_PROC_APP" close
    run a.shim env LD_PRELOAD="$copy" "$SL_CLI" run -- "$SL_PROC_APP" close
    same_behaviour a.base a.shim
    set -- "$T/a.shim"/*.h5
    [ $# = 1 ] && [ -f "$1" ] || fail "expected one result file, found: $*"
    [ -f "$1" ] && check "$1" --timing "work=1x3" --no-likwid --status "not counting"
    n=$(shim_lines a.shim | grep -c 'two copies of the shim are loaded')
    [ "$n" = 1 ] || fail "a.shim: $n lines about the two copies: expected 1" ;;
*)
    echo "proc.sh: unknown case '${1:-}'" >&2
    exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim
finish
