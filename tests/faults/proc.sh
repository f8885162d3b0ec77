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
    # LeakSanitizer's scan at exit runs after the static destructors and
    # takes longer the more the process has mapped (the shim's journal and
    # tables): the sanitizer's own work in the exiting process, not the
    # shim's, would widen the window this case measures.
    ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
    export ASAN_OPTIONS
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
exec-self)
    # The program execs itself mid-run: the image before the exec is a run
    # of its own (its result written at the exec), the new image writes its
    # own under a new name; nothing overwritten, no journal left.
    pair a real "$SL_PROC_APP" exec-self
    first=$(ls "$T/a.shim"/scope-likwid-*.h5 2>/dev/null | grep -v '\.1\.h5$')
    second=$(ls "$T/a.shim"/scope-likwid-*.1.h5 2>/dev/null)
    [ -f "$first" ] && [ -f "$second" ] ||
        fail "expected two result files (before and after the exec), found: $(ls "$T/a.shim")"
    [ -f "$first" ] && check "$first" --timing "work=1x3" --timing-tags work --no-likwid \
        --status "the program called exec ./proc/self/exe. before likwid_markerClose"
    [ -f "$second" ] && check "$second" --timing "work=1x3" --timing "second=1x2" \
        --timing-tags work second --no-likwid --status "not counting"
    n=$(ls "$T/a.shim" | wc -l)
    [ "$n" = 2 ] || fail "expected only the two result files, found: $(ls "$T/a.shim")" ;;
exec-other)
    # The program execs another one (/bin/echo): its timing is written at
    # the exec; nothing else is left.
    pair a real "$SL_PROC_APP" exec-other
    f=$(result_file a.shim) || fail "no single result file: $(ls "$T/a.shim")"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --no-likwid \
        --status "the program called exec ./bin/echo. before likwid_markerClose"
    n=$(ls "$T/a.shim" | wc -l)
    [ "$n" = 1 ] || fail "expected only the result file, found: $(ls "$T/a.shim")"
    [ "$(shim_lines a.shim)" = "scope-likwid: wrote $f" ] ||
        fail "a.shim: expected the one line 'scope-likwid: wrote $f', got: $(shim_lines a.shim)" ;;
exec-fail)
    # An exec that fails: the result written for it is removed again, the
    # program goes on and its Close writes every call once.
    pair a real "$SL_PROC_APP" exec-fail
    f=$(result_file a.shim) || fail "no single result file: $(ls "$T/a.shim")"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --timing "after-exec=1x2" --no-likwid \
        --status "not counting"
    expect_line a.shim "exec of /nonexistent/proc_app-no-such-program failed \(No such file or directory\): .* removed, the timing goes on" \
        "a line saying that the exec's result was removed" ;;
kill-writer|kill-writer-dies)
    # SIGKILL while the writer runs (the wrapper kills the application, then
    # runs the real writer, or dies itself): the orphaned writer delivers
    # and removes the rescue file, so recover removes the journal and makes
    # no second result; when the writer died too, recover turns the rescue
    # file into the result. One result file for the process either way.
    need SL_WRITE
    if [ "$1" = kill-writer ]; then then_do='exec "$SL_WRITE" "$@"'; else then_do='exit 1'; fi
    cat >"$T/writer" <<EOS
#!/bin/sh
pid=\$(basename "\$2" | sed -n 's/^scope-likwid-\([0-9]*\)\.h5\$/\1/p')
kill -KILL "\$pid"
while kill -0 "\$pid" 2>/dev/null; do sleep 0.05; done
SL_WRITE=$SL_WRITE
$then_do
EOS
    chmod +x "$T/writer"
    run k env SCOPE_LIKWID_WRITER="$T/writer" LD_PRELOAD="$SL_SHIM" "$SL_PROC_APP" close
    [ "$(rc_of k)" = 137 ] || fail "k: exit status $(rc_of k): expected 137 (killed while the writer ran)"
    if [ "$1" = kill-writer ]; then
        for i in $(seq 300); do
            [ -e "$T/k"/scope-likwid-*.h5.rescue ] || [ ! -e "$T/k"/scope-likwid-*[0-9].h5 ] || break
            sleep 0.1
        done
        ls "$T/k"/*.rescue >/dev/null 2>&1 && fail "the orphaned writer left its rescue file: $(ls "$T/k")"
    else
        ls "$T/k"/*.rescue >/dev/null 2>&1 || fail "expected the rescue file when the writer died: $(ls "$T/k")"
    fi
    ls "$T/k"/*.journal >/dev/null 2>&1 || fail "expected the journal of the killed process: $(ls "$T/k")"
    (cd "$T/k" && exec "$SL_CLI" recover .) >"$T/rec.out" 2>"$T/rec.err" || fail "recover failed: $(cat "$T/rec.err")"
    if [ "$1" = kill-writer ]; then
        grep -q 'result already delivered (its writer finished): journal removed' "$T/rec.err" ||
            fail "recover did not say the result was delivered: $(cat "$T/rec.err")"
    else
        grep -q 'its writer had not finished: wrote .* from the rescue file' "$T/rec.err" ||
            fail "recover did not say it used the rescue file: $(cat "$T/rec.err")"
    fi
    n=$(ls "$T/k" | wc -l)
    f=$(result_file k) || fail "expected one result file, found: $(ls "$T/k")"
    [ "$n" = 1 ] || fail "expected only the result file after recover, found: $(ls "$T/k")"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --no-likwid --status "not counting"
    (cd "$T/k" && exec "$SL_CLI" recover .) >"$T/rec2.out" 2>"$T/rec2.err"
    grep -q 'no journal' "$T/rec2.err" || fail "a second recover: $(cat "$T/rec2.err"): expected 'no journal'"
    shown=k ;;
*)
    echo "proc.sh: unknown case '${1:-}'" >&2
    exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run "$shown"
finish
