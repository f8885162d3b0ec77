#!/bin/sh
# Processes forked after Init (fork_app.c says what each mode does):
# fork.sh CASE. Same behaviour as without the shim; every process that
# timed regions has its own result file, a child's marked with its
# parent's pid (parent_pid); every call in exactly one file.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FORK_APP SL_CHECKER SL_CLI
pick_python

# await FILE: a daemon's work ends after its parent (at most 60 s).
await() {
    i=0
    while [ ! -f "$1" ] && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -f "$1" ] || fail "the child never finished (no $1 after 60 s)"
}

# attrs FILE: "pid parent_pid" of its rank0 group (parent_pid "-" when absent).
attrs() {
    "$PY" -c 'import h5py, sys
g = h5py.File(sys.argv[1], "r")["rank0"]
print(int(g.attrs["pid"]), int(g.attrs["parent_pid"]) if "parent_pid" in g.attrs else "-")' "$1"
}

# the_parent DIR: the result file without ".pid" in its name; the_children DIR: the others.
the_parent() { ls "$1"/scope-likwid-*.h5 2>/dev/null | grep -v '\.pid[0-9]*\.h5$'; }
the_children() { ls "$1"/scope-likwid-*.pid*.h5 2>/dev/null; }

# child_of FILE PARENT: FILE is the result of a child of PARENT (by pid).
child_of() {
    a=$(attrs "$1")
    set -- "$1" "$2" $a
    [ "$4" = "$2" ] || fail "$1: parent_pid '$4': expected $2"
    case $1 in *.pid$3.h5) ;; *) fail "$1: not named by its pid $3" ;; esac
}

# no_journal DIR: nothing left behind but the result files (and DONE).
no_journal() {
    left=$(ls "$1" | grep -v '^scope-likwid-.*\.h5$' | grep -v '^done$')
    [ -z "$left" ] || fail "$1: left behind: $left"
}

case ${1:-} in
daemon)
    # daemon() after Init: the parent _exits, the child times 3 calls and
    # Closes. The parent's call is in the parent's file (its journal,
    # delivered by the child once it saw the parent end), the child's three
    # in the child's: 4 of 4.
    pair a real "$SL_FORK_APP" daemon done
    await "$T/a.base/done"
    await "$T/a.shim/done"
    p=$(the_parent "$T/a.shim")
    c=$(the_children "$T/a.shim")
    [ -f "$p" ] && [ -f "$c" ] && [ "$(echo "$c" | wc -l)" = 1 ] ||
        fail "expected the parent's and one child's result file, found: $(ls "$T/a.shim")"
    if [ -f "$p" ] && [ -f "$c" ]; then
        check "$p" --timing "parent=1x1" --timing-tags parent --no-likwid \
            --status "recovered from the journal by the shim in a forked child" \
            --status "ended after fork without likwid_markerClose"
        check "$c" --timing "child=1x3" --timing-tags child --no-likwid --status "not counting"
        set -- $(attrs "$p")
        [ "$2" = - ] || fail "$p: parent_pid $2 in the parent's own file: expected none"
        child_of "$c" "$1"
    fi
    no_journal "$T/a.shim" ;;
workers)
    # Three workers forked to do the work; the parent waits for them and
    # Closes. 1 call in the parent's file, 2 in each worker's: 7 of 7.
    pair a real "$SL_FORK_APP" workers
    p=$(the_parent "$T/a.shim")
    n=$(the_children "$T/a.shim" | wc -l)
    [ -f "$p" ] && [ "$n" = 3 ] ||
        fail "expected the parent's and 3 workers' result files, found: $(ls "$T/a.shim")"
    if [ -f "$p" ]; then
        check "$p" --timing "main=1x1" --timing-tags main --no-likwid --status "not counting"
        set -- $(attrs "$p")
        ppid=$1
        [ "$2" = - ] || fail "$p: parent_pid $2 in the parent's own file: expected none"
        closed=0
        for c in $(the_children "$T/a.shim"); do
            child_of "$c" "$ppid"
            # Closed (LIKWID's status) or exited (the exit hook's).
            how="not counting"
            "$PY" "$SL_CHECKER" "$c" --status "exited without likwid_markerClose" \
                >/dev/null 2>&1 && how="exited without likwid_markerClose"
            [ "$how" = "not counting" ] && closed=$((closed + 1))
            check "$c" --timing "worker=1x2" --timing-tags worker --no-likwid --status "$how"
        done
        [ "$closed" = 2 ] || fail "expected 2 workers' files from Close (one from its exit), found $closed"
    fi
    no_journal "$T/a.shim" ;;
keep)
    # A child times 5 calls while the parent goes on timing and then
    # _exits: the child never wrote into the parent's (shared) journal, so
    # the parent's result, made from it, holds its own 3 calls only.
    pair a real "$SL_FORK_APP" keep done
    await "$T/a.base/done"
    await "$T/a.shim/done"
    p=$(the_parent "$T/a.shim")
    c=$(the_children "$T/a.shim")
    [ -f "$p" ] && [ -f "$c" ] ||
        fail "expected the parent's and the child's result file, found: $(ls "$T/a.shim")"
    if [ -f "$p" ] && [ -f "$c" ]; then
        check "$p" --timing "parent=1x3" --timing-tags parent --no-likwid \
            --status "ended after fork without likwid_markerClose"
        check "$c" --timing "child=1x5" --timing-tags child --no-likwid --status "not counting"
        set -- $(attrs "$p")
        child_of "$c" "$1"
    fi
    no_journal "$T/a.shim" ;;
killed)
    # A child that times is killed (SIGKILL): its journal, its own (the
    # parent's result is untouched), becomes its result at the parent's
    # Close (the child has ended), still marked with its parent's pid.
    pair a real "$SL_FORK_APP" killed
    p=$(the_parent "$T/a.shim")
    c=$(the_children "$T/a.shim")
    [ -f "$p" ] && [ -f "$c" ] && [ "$(ls "$T/a.shim" | wc -l)" = 2 ] ||
        fail "expected the parent's and the child's result files, found: $(ls "$T/a.shim")"
    if [ -f "$p" ] && [ -f "$c" ]; then
        check "$p" --timing "main=1x1" --timing-tags main --no-likwid --status "not counting"
        check "$c" --timing "child=1x2" --timing-tags child --no-likwid \
            --status "recovered from the journal by the shim in its parent process" \
            --status "ended without likwid_markerClose"
        set -- $(attrs "$p")
        child_of "$c" "$1"
        shim_lines a.shim | grep -q "^scope-likwid: wrote $c (the timing of process" ||
            fail "no line names the child's result $c: $(shim_lines a.shim)"
    fi ;;
*)
    fail "unknown case '${1:-}'" ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim
finish
