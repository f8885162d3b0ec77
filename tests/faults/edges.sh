#!/bin/sh
# What real codes and runtimes do around the shim (edge_app.c says what each
# mode does): the same exit status, stdout, stderr (minus the shim's lines)
# and data files with the shim as without it, and the timing kept.
#   edges.sh CASE [real|sim]
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_EDGE_APP SL_CHECKER SL_CLI
pick_python
case=${1:-}
kind=${2:-real}
[ "$kind" = sim ] && need SL_SIM_DIR SL_SIM_PERFCTR
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE

# broken_run NAME CMD...: CMD with stderr on a FIFO whose only reader (this
# shell) closes it once CMD created ./ready (after its Init): a logger that
# died, `| head`. NAME.err stays empty (nothing can be read).
broken_run() {
    bname=$1
    shift
    mkdir -p "$T/$bname"
    rm -f "$T/$bname.fifo"
    mkfifo "$T/$bname.fifo" || { fail "mkfifo failed"; return 1; }
    (cd "$T/$bname" && exec timeout -k 5 60 "$@" >"$T/$bname.out" 2>"$T/$bname.fifo") &
    bpid=$!
    exec 3<"$T/$bname.fifo"
    i=0
    while [ ! -e "$T/$bname/ready" ] && [ "$i" -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -e "$T/$bname/ready" ] || fail "$bname: no ./ready after 30 s"
    exec 3<&-
    wait "$bpid"
    echo $? >"$T/$bname.rc"
    : >"$T/$bname.err"
}

case $case in
page-end-tag)
    # The second tag ends 2 bytes before a PROT_NONE page, at the pointer
    # of a longer tag that reached into that page: no load past it.
    pair a "$kind" "$SL_EDGE_APP" page-end-tag
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && check "$f" --timing "abcdefghijkl=1x1" --timing "ab=1x3" \
        --timing-tags abcdefghijkl ab --no-likwid ;;
stderr-broken)
    # stderr is a pipe whose reader has gone; the application never writes
    # to it. The shim's lines must not raise SIGPIPE (exit 141, the buffered
    # stdout lost).
    if [ "$kind" = sim ]; then
        broken_run a.base env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- \
            "$SL_EDGE_APP" stderr-broken
        broken_run a.shim env LD_LIBRARY_PATH="$SL_SIM_DIR" "$SL_SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- \
            env LD_PRELOAD="$SL_SHIM" "$SL_EDGE_APP" stderr-broken
    else
        broken_run a.base "$SL_EDGE_APP" stderr-broken
        broken_run a.shim env LD_PRELOAD="$SL_SHIM" "$SL_EDGE_APP" stderr-broken
    fi
    same_behaviour a.base a.shim
    [ "$(rc_of a.base)" = 0 ] || fail "a.base: exit status $(rc_of a.base): expected 0"
    grep -q 'has no reader; done' "$T/a.shim.out" ||
        fail "a.shim: stdout '$(cat "$T/a.shim.out")': expected the application's own line"
    f=$(result_file a.shim) || fail "no result file"
    if [ -n "$f" ]; then
        if [ "$kind" = sim ]; then
            check "$f" --timing "work=1x3" --source full_api --names --status "used full_api" \
                --likwid-region work=1x3
        else
            work_timing "$f" --no-likwid --status "not counting"
        fi
    fi ;;
fd2-before-init)
    # fd 2 is the application's data file from before Init on: the shim
    # writes only to the stderr the process started with.
    pair a "$kind" "$SL_EDGE_APP" fd2-before-init
    cmp -s "$T/a.base/data.txt" "$T/a.shim/data.txt" ||
        fail "the data file on fd 2 differs: $(cat "$T/a.shim/data.txt")"
    grep -q 'scope-likwid' "$T/a.shim/data.txt" && fail "a scope-likwid line in the data file"
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && work_timing "$f" --no-likwid ;;
markerfile-same-second)
    # Two runs in a row share LIKWID_FILEPATH; the second one's LIKWID
    # writes no marker file (SIMLIKWID_WRITE_MARKER=0): the file is the
    # first run's, unchanged since the second run's Init, and must not give
    # it the first run's counters.
    mf=$T/shared-marker.txt
    # likwid-perfctr -C 0,1 -m's environment and its main thread on CPU 0
    # (sim-perfctr would name the file by its pid)
    lk="LD_LIBRARY_PATH=$SL_SIM_DIR LIKWID_FILEPATH=$mf LIKWID_MODE=1 LIKWID_EVENTS=FLOPS_DP LIKWID_THREADS=0,1"
    run a1.base env $lk taskset -c 0 "$SL_EDGE_APP" first-run
    run a2.base env $lk SIMLIKWID_WRITE_MARKER=0 taskset -c 0 "$SL_EDGE_APP" second-run
    run a1.shim env $lk LD_PRELOAD="$SL_SHIM" taskset -c 0 "$SL_EDGE_APP" first-run
    run a2.shim env $lk SIMLIKWID_WRITE_MARKER=0 LD_PRELOAD="$SL_SHIM" taskset -c 0 "$SL_EDGE_APP" second-run
    same_behaviour a1.base a1.shim
    same_behaviour a2.base a2.shim
    f=$(result_file a1.shim) || fail "no result file of the first run"
    [ -n "$f" ] && check "$f" --timing "first=1x3" --timing-tags first --source full_api \
        --likwid-region first=1x3 --status "used full_api"
    f=$(result_file a2.shim) || fail "no result file of the second run"
    [ -n "$f" ] && check "$f" --timing "second=1x2" --timing-tags second --source marker_api \
        --likwid-region second=1 --status "marker file .* is unchanged since this run's Init: LIKWID did not write it" \
        --status "used marker_api" --status-not "full_api|used marker_file"
    SHOW=a2.shim ;;
mpi-singleton)
    # A serial run whose MPI library set a rank and a world of one (Open
    # MPI's singleton: PMIX_RANK=0 and OMPI_COMM_WORLD_SIZE=1 or PMIX_SIZE=1)
    # is named and tagged as a serial run; /metadata keeps mpi_size 1. A
    # world of two stays MPI rank 0.
    meta() {    # FILE: mpi_rank of rank0, /metadata mpi_size
        "$PY" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
print(int(f["rank0"].attrs["mpi_rank"]), int(f["metadata"].attrs["mpi_size"]))' "$1" 2>&1
    }
    # ompi41: what Open MPI 4.1's singleton sets (no size variable above);
    # ess: its "singleton" component named alone.
    for v in OMPI_COMM_WORLD_SIZE PMIX_SIZE ompi41 ess; do
        case $v in
        ompi41) vars="OMPI_MCA_ess=singleton OMPI_APP_CTX_NUM_PROCS=1 OMPI_MCA_orte_ess_num_procs=1" ;;
        ess) vars="OMPI_MCA_ess=singleton" ;;
        *) vars="$v=1" ;;
        esac
        # $vars unquoted on purpose: several NAME=VALUE words
        pair s.$v "$kind" env PMIX_RANK=0 $vars "$SL_EDGE_APP" first-run
        set -- "$T/s.$v.shim"/scope-likwid-*.h5
        case $#:$(basename "$1") in
        1:scope-likwid-[0-9]*.h5) ;;
        *) fail "PMIX_RANK=0 $vars: result files $*: expected one scope-likwid-PID.h5" ;;
        esac
        [ -f "$1" ] || continue
        check "$1" --timing "first=1x3" --no-likwid --mpi-rank -1
        [ "$(meta "$1")" = "-1 1" ] || fail "$1: mpi_rank, mpi_size '$(meta "$1")': expected '-1 1'"
    done
    pair s.two "$kind" env PMIX_RANK=0 PMIX_SIZE=2 "$SL_EDGE_APP" first-run
    f=$T/s.two.shim/scope-likwid-rank0.h5
    if [ -f "$f" ]; then
        check "$f" --timing "first=1x3" --no-likwid --mpi-rank 0
        [ "$(meta "$f")" = "0 2" ] || fail "$f: mpi_rank, mpi_size '$(meta "$f")': expected '0 2'"
    else
        fail "PMIX_RANK=0 PMIX_SIZE=2: no scope-likwid-rank0.h5: $(ls "$T/s.two.shim")"
    fi
    SHOW=s.PMIX_SIZE.shim ;;
three-cycles)
    # Three Init..Close cycles: LIKWID 5.2 resets at Close and starts afresh
    # at Init (the simulated one with SIMLIKWID_STYLE=52 does the same), so
    # every cycle reaches it as without the shim: GetRegion's answers are
    # the same, and each cycle's file has that cycle's counters. Not
    # counting (real), cycles 2 and 3 are one batch: one file, both named.
    SIMLIKWID_STYLE=52
    pair a "$kind" "$SL_EDGE_APP" three-cycles
    if [ "$kind" = sim ]; then
        n=$(grep -c 'events, counted, time > 0' "$T/a.base.out")
        [ "$n" = 3 ] || fail "a.base: $n of 3 cycles with counts from GetRegion: $(cat "$T/a.base.out")"
    else
        set -- "$T/a.shim"/scope-likwid-*.h5
        [ $# = 2 ] || fail "expected 2 result files (cycle 1, and cycles 2 and 3 as one batch), found: $*"
        f=$(ls "$T/a.shim"/scope-likwid-*.h5 | grep -v '\.cycle[0-9]\.h5$')
        [ -f "$f" ] && check "$f" --timing "cyc1=1x1" --timing-tags cyc1 --no-likwid --status "not counting"
        f=$(ls "$T/a.shim"/scope-likwid-*.cycle2.h5 2>/dev/null)
        [ -f "$f" ] && check "$f" --timing "cyc2=1x2" --timing "cyc3=1x3" --timing-tags cyc2 cyc3 --no-likwid \
            --status "not counting" --status "Init..Close cycles 2 to 3 of process" ||
            fail "no <output>.cycle2.h5 with cycles 2 and 3"
        finish
    fi
    set -- "$T/a.shim"/scope-likwid-*.h5
    [ $# = 3 ] || fail "expected 3 result files (one per cycle), found: $*"
    for c in 1 2 3; do
        case $c in
        1) f=$(ls "$T/a.shim"/scope-likwid-*.h5 | grep -v '\.cycle[0-9]\.h5$') ;;
        *) f=$(ls "$T/a.shim"/scope-likwid-*.cycle$c.h5 2>/dev/null) ;;
        esac
        [ -f "$f" ] || { fail "no result file for cycle $c"; continue; }
        st=""
        [ "$c" = 1 ] || st="Init..Close cycle $c of process"
        if [ "$kind" = sim ]; then
            check "$f" --timing "cyc$c=1x$c" --timing-tags "cyc$c" --source full_api --names \
                --likwid-region "cyc$c=1x$c" --status "used full_api" ${st:+--status "$st"}
        else
            check "$f" --timing "cyc$c=1x$c" --timing-tags "cyc$c" --no-likwid \
                --status "not counting" ${st:+--status "$st"}
        fi
    done ;;
output-names)
    # SCOPE_LIKWID_OUTPUT names a directory (with or without a trailing
    # slash): the default name inside it. /dev/null: no result file, said
    # once, nothing created anywhere. A device or a FIFO: refused with one
    # line, the default name in the working directory, nothing created next
    # to it.
    TMPDIR=$T/tmp
    export TMPDIR
    mkdir -p "$T/tmp" "$T/outdir" "$T/outdir2"
    devs_before=$(ls -d /dev/null.* /dev/zero.* 2>/dev/null)
    for o in "$T/outdir" "$T/outdir2/"; do
        n=$(basename "$o")
        SCOPE_LIKWID_OUTPUT=$o pair d.$n "$kind" "$SL_EDGE_APP" first-run
        set -- "$T/$n"/*
        case $#:$(basename "$1") in
        1:scope-likwid-[0-9]*.h5) check "$1" --timing "first=1x3" --no-likwid ;;
        *) fail "SCOPE_LIKWID_OUTPUT=$o: in it: $(ls -A "$T/$n"): expected one scope-likwid-PID.h5" ;;
        esac
        ls -d "$T/$n".* "$T/$n/".?* >/dev/null 2>&1 && fail "SCOPE_LIKWID_OUTPUT=$o: files beside or hidden: $(ls -d "$T/$n".* "$T/$n/".?* 2>/dev/null)"
        [ -z "$(shim_lines d.$n.shim | grep -v ': wrote ')" ] || fail "d.$n.shim: unexpected lines: $(shim_lines d.$n.shim)"
    done
    SCOPE_LIKWID_OUTPUT=/dev/null pair d.null "$kind" "$SL_EDGE_APP" first-run
    [ "$(shim_lines d.null.shim)" = "scope-likwid: SCOPE_LIKWID_OUTPUT is /dev/null: no result file (the calls pass through to LIKWID untimed)" ] ||
        fail "d.null.shim: shim lines '$(shim_lines d.null.shim)': expected the one 'no result file' line"
    made=$(ls -A "$T/d.null.shim")$(ls -A "$T/tmp")
    [ -z "$made" ] || fail "/dev/null: files made in the working directory or TMPDIR: $made"
    for dev in /dev/zero fifo; do
        [ "$dev" = fifo ] && { mkfifo "$T/fifo"; dev=$T/fifo; }
        n=d.$(basename "$dev")
        SCOPE_LIKWID_OUTPUT=$dev pair $n "$kind" "$SL_EDGE_APP" first-run
        expect_line $n.shim "SCOPE_LIKWID_OUTPUT $dev is a (character device|FIFO): expected a regular file or a directory; writing .*/scope-likwid-[0-9]+\.h5 instead" \
            "one line refusing $dev"
        [ "$(shim_lines $n.shim | grep -c 'expected a regular file')" = 1 ] || fail "$n.shim: not one refusal line"
        f=$(result_file $n.shim) || fail "$n.shim: no result file in the working directory"
        [ -n "$f" ] && check "$f" --timing "first=1x3" --no-likwid
    done
    [ -p "$T/fifo" ] && [ "$(ls -d "$T"/fifo* | wc -l)" = 1 ] || fail "beside the FIFO: $(ls -d "$T"/fifo*)"
    [ "$(ls -d /dev/null.* /dev/zero.* 2>/dev/null)" = "$devs_before" ] ||
        fail "files made next to a device: $(ls -d /dev/null.* /dev/zero.* 2>/dev/null)"
    [ -z "$(ls -A "$T/tmp")" ] || fail "left in TMPDIR: $(ls -A "$T/tmp")"
    SHOW=d.null.shim ;;
*)
    echo "edges.sh: unknown case '$case'" >&2
    exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run "${SHOW:-a.shim}"
finish
