#!/bin/sh
# The application does what the marker API or the shim did not expect:
#   app.sh MODE real|sim
# MODE is a fault_app mode (fault_app.c says what each does); "real" runs
# with the real LIKWID (no-count mode: the application's view of every call
# must be unchanged), "sim" under the simulated likwid-perfctr -m (counting).
# Same behaviour as without the shim, and the timing saved, in every case.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_CLI
pick_python
mode=${1:-}
kind=${2:-}
[ "$kind" = sim ] && need SL_SIM_DIR SL_SIM_PERFCTR
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE

counted() {     # the status and source of a counting run whose helpers work
    check "$@" --source full_api --names --status "used full_api"
}

case $mode in
close-static-dtor)
    # likwid_markerClose in a C++ static destructor: forwarded to LIKWID
    # (the simulated one writes its marker file), full result.
    need SL_DTOR_APP
    pair a sim "$SL_DTOR_APP"
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && counted "$f" --timing "work=1x3" --likwid-region work=1x3 ;;
two-cycles)
    # Init after Close: each cycle its own file; the second names its cycle.
    # Every call reaches LIKWID in every cycle, as without the shim:
    # counting (sim, LIKWID 5.2's reset at Close), both cycles counted; not
    # counting (real), both timed.
    [ "$kind" = sim ] && SIMLIKWID_STYLE=52
    pair a "$kind" "$SL_FAULT_APP" two-cycles
    set -- "$T/a.shim"/scope-likwid-*.h5
    [ $# = 2 ] || fail "expected 2 result files (one per cycle), found: $*"
    one=$(ls "$T/a.shim"/scope-likwid-*.h5 | grep -v '\.cycle2\.h5$')
    two=$(ls "$T/a.shim"/scope-likwid-*.cycle2.h5 2>/dev/null)
    [ -f "$two" ] || fail "no <output>.cycle2.h5 for the second cycle"
    if [ "$kind" = sim ]; then
        counted "$one" --timing "work=1x3" --timing-tags work --likwid-region work=1x3
        counted "$two" --timing "phase2=1x2" --timing-tags phase2 --likwid-region phase2=1x2 \
            --status "cycle 2 of process"
    else
        work_timing "$one" --timing-tags work --no-likwid --status "not counting"
        check "$two" --timing "phase2=1x2" --timing-tags phase2 --no-likwid \
            --status "cycle 2 of process" --status "not counting"
    fi
    "$SL_CLI" show "$two" >"$T/show.out" 2>&1 || fail "scope-likwid show $two failed"
    grep -q 'LIKWID status: Init..Close cycle 2 of process' "$T/show.out" ||
        fail "show does not say which cycle: $(grep 'LIKWID status' "$T/show.out")" ;;
two-cycles-55)
    # LIKWID 5.5 keeps its init flag at Close with its state destroyed: the
    # second cycle's Close walks freed memory (the simulated one crashes).
    # The application sees what it sees without the shim: the same crash;
    # the first cycle's result is written.
    # A sanitizer reports the crash itself, with per-run addresses.
    case ${SL_SANITIZE:-none} in none) ;; *) skip "b_sanitize=$SL_SANITIZE: the sanitizer reports LIKWID's crash itself" ;; esac
    SIMLIKWID_STYLE=55
    pair a sim "$SL_FAULT_APP" two-cycles
    [ "$(rc_of a.base)" = 139 ] || fail "a.base: exit status $(rc_of a.base): expected LIKWID 5.5's crash (139)"
    set -- "$T/a.shim"/scope-likwid-*.h5
    [ $# = 1 ] && [ -f "$1" ] || fail "expected the first cycle's result file only, found: $*"
    [ -f "$1" ] && counted "$1" --timing "work=1x3" --timing-tags work --likwid-region work=1x3 ;;
seq-threads)
    # ulimit -v 2 GiB, 1000 threads one after the other, then a 1 GiB
    # malloc: as without the shim (each thread reserved 256 MiB for good).
    # A sanitizer's shadow memory alone is far beyond any such limit.
    case ${SL_SANITIZE:-none} in none) ;; *) skip "b_sanitize=$SL_SANITIZE: the sanitizer cannot run under ulimit -v" ;; esac
    run a.base sh -c 'ulimit -v 2097152 && exec "$@"' sh "$SL_FAULT_APP" seq-threads
    run a.shim sh -c 'ulimit -v 2097152 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" seq-threads
    same_behaviour a.base a.shim
    grep -q '1 GiB allocated' "$T/a.base.out" || fail "the run without the shim failed: $(cat "$T/a.base.out")"
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && work_timing "$f" --timing "thr=1000x2" --no-likwid ;;
fd2-data)
    # The application closed stderr and opened a data file on fd 2: the
    # shim's lines must not land in it.
    pair a real "$SL_FAULT_APP" fd2-data
    cmp -s "$T/a.base/data.txt" "$T/a.shim/data.txt" ||
        fail "the data file on fd 2 differs: $(cat "$T/a.shim/data.txt")"
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && work_timing "$f" --no-likwid ;;
fd-limit)
    # 64 descriptors, all but 2 taken by the application at Close: too few
    # for the helpers' pipes. The marker file is still read, the timing goes
    # to the rescue file, and the shim gives back every descriptor it took.
    sim a.base sh -c 'ulimit -n 64 && exec "$@"' sh "$SL_FAULT_APP" fd-limit
    sim a.shim sh -c 'ulimit -n 64 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" fd-limit
    same_behaviour a.base a.shim
    grep -q '2 of 2 descriptors free' "$T/a.shim.out" || fail "the shim kept descriptors: $(cat "$T/a.shim.out")"
    expect_line a.shim 'Too many open files' "the warning to name EMFILE"
    check_rescue a.shim --timing "work=1x3" --source marker_file \
        --status "collector could not be started: Too many open files" --status "used marker_file" ;;
many-tags)
    # 10,000 tags. The writer needs longer for them than a short helper
    # timeout (about 13 s here for the 20,000 HDF5 groups), so with
    # SCOPE_LIKWID_TIMEOUT=3 either the file is written or the writer times
    # out and the rescue file holds every tag; the application waits about
    # the timeout, never more.
    # The bound is the run without the shim plus the deadlines the shim
    # gives its helpers (the collector's 3 s; the writer's 3 s plus 1 s per
    # MiB of rescue file, as its warning names it), plus 10 s for a loaded
    # machine: a shim that waited for the writer regardless would exceed it
    # by the writer's whole run.
    SCOPE_LIKWID_TIMEOUT=3
    export SCOPE_LIKWID_TIMEOUT
    start=$(date +%s)
    sim a.base "$SL_FAULT_APP" many-tags
    mid=$(date +%s)
    sim a.shim env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" many-tags
    end=$(date +%s)
    same_behaviour a.base a.shim
    writer_s=$(shim_lines a.shim | sed -n 's/.*writer timed out after \([0-9]*\).*/\1/p' | tail -n 1)
    [ -n "$writer_s" ] || writer_s=$(( 3 + $(du -m "$T/a.shim"/*.h5 2>/dev/null | awk '{s += $1} END {print s + 1}') ))
    allowed=$(( mid - start + 3 + writer_s + 10 ))
    [ $(( end - mid )) -le "$allowed" ] ||
        fail "the run with the shim took $(( end - mid )) s: expected at most $allowed s (the run without it, the helpers' deadlines, 10 s)"
    # The full checker needs a minute for 10,000 regions: count them instead.
    f=$(result_file a.shim) || f=""
    if [ -z "$f" ]; then
        expect_line a.shim 'writer timed out after ' "the warning to name the writer's timeout (3 s plus 1 s per MiB of rescue file)"
        r=$(rescue_path a.shim)
        f=$T/converted.h5
        "$SL_CLI" convert "$r" -o "$f" >"$T/convert.log" 2>&1 || { fail "convert '$r' failed"; cat "$T/convert.log"; }
    fi
    n=$("$PY" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = f["rank0"]
tags = {g["timing/regions"][k].attrs["tag"] for k in g["timing/regions"]}
lw = {g["likwid/regions"][k].attrs["tag"] for k in g["likwid/regions"]}
st = g.attrs["likwid_status"]
print(len(tags), len(lw), g["likwid"].attrs["source"], "used full_api" in (st if isinstance(st, str) else st.decode()))' "$f" 2>&1)
    [ "$n" = "10000 10000 full_api True" ] ||
        fail "$f: timing tags, likwid tags, source, status ok: '$n': expected '10000 10000 full_api True'" ;;
fork-markers)
    # Children forked after Init call markers: each process that timed has
    # its own file. The parent's holds its own regions only; the first
    # child's (it Closed) its 4 calls, marked with the parent's pid; the
    # second child, inside its region while the parent Closes, ends it and
    # _exits: its journal stays, and recover makes its result (1 call).
    pair a "$kind" "$SL_FAULT_APP" fork-markers
    p=$(ls "$T/a.shim"/scope-likwid-*.h5 2>/dev/null | grep -v '\.pid[0-9]*\.h5$')
    c=$(ls "$T/a.shim"/scope-likwid-*.pid*.h5 2>/dev/null)
    j=$(ls "$T/a.shim"/scope-likwid-*.pid*.h5.journal 2>/dev/null)
    [ -f "$p" ] && [ -f "$c" ] && [ -f "$j" ] && [ "$(ls "$T/a.shim" | wc -l)" = 3 ] ||
        fail "expected the parent's and a child's result file and a child's journal, found: $(ls "$T/a.shim")"
    [ -f "$p" ] && counted "$p" --timing "work=1x3" --timing "parent=1x2" --timing-tags work parent
    [ -f "$c" ] && check "$c" --timing "child=1x4" --timing-tags child
    pp=$("$PY" -c 'import h5py, sys
print(int(h5py.File(sys.argv[1], "r")["rank0"].attrs["pid"]))' "$p")
    cp=$("$PY" -c 'import h5py, sys
print(int(h5py.File(sys.argv[1], "r")["rank0"].attrs.get("parent_pid", 0)))' "$c")
    [ "$cp" = "$pp" ] || fail "$c: parent_pid '$cp': expected the parent's pid $pp"
    if [ -f "$j" ]; then
        "$SL_CLI" recover "$j" >"$T/recover.log" 2>&1 || fail "scope-likwid recover $j failed: $(cat "$T/recover.log")"
        check "${j%.journal}" --timing "child2=1x1" --timing-tags child2 \
            --status "ended without likwid_markerClose"
    fi ;;
*)
    pair a "$kind" "$SL_FAULT_APP" "$mode"
    if ! f=$(result_file a.shim); then
        fail "no single scope-likwid-*.h5 in the application's cwd"
        ls -la "$T/a.shim" | sed 's/^/    /'
    else
        case $mode in
        no-close) work_timing "$f" --no-likwid --status "exited without likwid_markerClose" ;;
        close-twice) work_timing "$f" --no-likwid --timing-tags work --status "not counting" ;;
        unknown-tags) work_timing "$f" --no-likwid --status "not counting" ;;
        close-threads-inside) counted "$f" --timing "busy=3x0" --open "busy=3" --timing-tags busy ;;
        sigchld-ignore|sigchld-reap|block-signals) counted "$f" --timing "work=1x3" --likwid-region work=1x3 ;;
        close-atexit) counted "$f" --timing "work=1x3" --likwid-region work=1x3 ;;
        long-tags)
            a=$(printf '%10240s' | tr ' ' a); b=$(printf '%10240s' | tr ' ' b); c=$(printf '%10240s' | tr ' ' c)
            # LIKWID's own reader cuts lines at 2048 bytes: the collector
            # gives it short tags and keeps the file's.
            check "$f" --timing "$a=1x2" --timing "$c=1x2" --timing-tags "$a" "$b" "$c" \
                --likwid-region "$b=1x2" --source full_api --names --status "used full_api" ;;
        many-threads) counted "$f" --timing "par=16x5" ;;
        *) echo "app.sh: unknown mode '$mode'" >&2; exit 2 ;;
        esac
    fi ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim
finish
