#!/bin/sh
# The application changes its process between Init and its end (proc_app.c
# says what each mode does): proc.sh CASE. Same behaviour as without the
# shim, and the timing of every process that timed regions saved once.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_PROC_APP SL_CHECKER SL_CLI
pick_python
shown=a.shim    # the run whose output a failure shows

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
detached-thread)
    # main returns without Close while a detached thread still uses a
    # global that a static destructor frees: the shim writes the result
    # before the destructors run, so the process ends as soon after them as
    # without the shim. Five runs, each must end cleanly with its result.
    need SL_DETACHED_APP
    for i in 1 2 3 4 5; do
        run d$i.base "$SL_DETACHED_APP"
        run d$i.shim env LD_PRELOAD="$SL_SHIM" "$SL_DETACHED_APP"
        [ "$(rc_of d$i.base)" = 0 ] || fail "d$i.base: exit status $(rc_of d$i.base) without the shim: expected 0"
        same_behaviour d$i.base d$i.shim
        f=$(result_file d$i.shim) || fail "d$i.shim: no single result file: $(ls "$T/d$i.shim")"
        [ -n "$f" ] && check "$f" --timing "work=1x3" --no-likwid \
            --status "exited without likwid_markerClose" >/dev/null
        [ "$(shim_lines d$i.shim)" = "scope-likwid: wrote $f" ] ||
            fail "d$i.shim: expected the one line 'scope-likwid: wrote $f', got: $(shim_lines d$i.shim)"
        ls "$T/d$i.shim"/*.journal "$T/d$i.shim"/*.rescue >/dev/null 2>&1 &&
            fail "d$i.shim: a journal or rescue file was left: $(ls "$T/d$i.shim")"
    done
    ok=$(for i in 1 2 3 4 5; do [ "$(rc_of d$i.shim)" = 0 ] && echo x; done | wc -l)
    say "$ok of 5 runs with the shim ended cleanly"
    shown=d1.shim ;;
*)
    echo "proc.sh: unknown case '${1:-}'" >&2
    exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run "$shown"
finish
