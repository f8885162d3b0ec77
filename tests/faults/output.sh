#!/bin/sh
# The result file cannot go where SCOPE_LIKWID_OUTPUT says, or not simply:
#   output.sh dir-missing   its directories do not exist: they are created
#   output.sh under-file    its "directory" is a regular file (ENOTDIR)
#   output.sh readonly      a read-only tmpfs (SKIP where mount is not allowed)
#   output.sh disk-full     a full 64 KiB tmpfs (SKIP where mount is not allowed)
#   output.sh fsize-limit   ulimit -f 1: every file is limited to one block
#   output.sh fsize-writer  ulimit -f 4: the rescue file fits, the HDF5 file not
#   output.sh exists        a file is already there: a new name, the old untouched
#   output.sh race          two processes aim at the same name at the same time
#   output.sh symlinks      symlinks planted at the result and rescue names
#   output.sh writer-timeout the writer's deadline grows with the data
# The real LIKWID (no-count mode): the output path is what is under test.
# Where nothing can be written at the target, the rescue file goes to
# $TMPDIR and the warning says how to convert it.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_CLI SL_WRITE
pick_python
mkdir -p "$T/tmp"
TMPDIR=$T/tmp
export TMPDIR
mounted=""
trap '[ -n "$mounted" ] && umount "$mounted"; [ "$SL_KEEP" = 1 ] || rm -rf "$T"' EXIT

try_mount() {   # try_mount DIR OPTIONS
    mkdir -p "$1"
    mount -t tmpfs -o "$2" scope-likwid-test "$1" 2>"$T/mount.err" ||
        skip "cannot mount a tmpfs here ($(cat "$T/mount.err")): the case needs one"
    mounted=$1
}

# rescued WHY: the shim could not write at the target: stderr names the
# reason, a rescue file holds the timing and converts.
rescued() {
    expect_line o.shim "could not write .*$1" "a warning naming the reason"
    check_rescue o.shim --timing "work=1x3" --no-likwid --status "not counting"
}

case ${1:-} in
dir-missing)
    # the man page's Slurm example without mkdir: the directories are made,
    # the result is where it was meant to be, nothing went to TMPDIR
    SCOPE_LIKWID_OUTPUT=$T/missing/deeper/out.h5
    export SCOPE_LIKWID_OUTPUT
    pair o real "$SL_FAULT_APP" basic
    w=$(wrote_path o.shim)
    if [ "$w" != "$SCOPE_LIKWID_OUTPUT" ]; then
        fail "the shim wrote '$w': expected $SCOPE_LIKWID_OUTPUT"
        shim_lines o.shim | sed 's/^/    /'
    else
        work_timing "$w" --no-likwid
    fi
    [ -z "$(ls -A "$T/tmp")" ] || fail "TMPDIR holds $(ls -A "$T/tmp"): expected nothing there" ;;
under-file|readonly|disk-full)
    case $1 in
    under-file) : >"$T/afile"; out=$T/afile/out.h5; why='Not a directory' ;;
    readonly) try_mount "$T/ro" size=64k,ro; out=$T/ro/out.h5; why='Read-only file system' ;;
    disk-full) try_mount "$T/full" size=64k; out=$T/full/out.h5; why='No space left'
               dd if=/dev/zero of="$T/full/filler" bs=4k 2>/dev/null ;;
    esac
    SCOPE_LIKWID_OUTPUT=$out
    export SCOPE_LIKWID_OUTPUT
    pair o real "$SL_FAULT_APP" basic
    rescued "$why"
    case $(rescue_path o.shim) in
    "$T/tmp/"*) ;;
    *) fail "rescue file $(rescue_path o.shim): expected it in \$TMPDIR ($T/tmp)" ;;
    esac
    [ ! -e "$out" ] || fail "$out exists: expected nothing written there" ;;
fsize-limit)
    # The shim's rescue file is larger than the limit: writing it must not
    # get the application killed by SIGXFSZ. The timing cannot be saved
    # anywhere (the limit holds for every file), and stderr must say so.
    run o.base sh -c 'ulimit -f 1 && exec "$@"' sh "$SL_FAULT_APP" basic
    run o.shim sh -c 'ulimit -f 1 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" basic
    same_behaviour o.base o.shim
    expect_line o.shim 'File too large' "a warning naming the size limit" ;;
fsize-writer)
    # ulimit -f 4 (2 KiB in dash's 512-byte blocks): the rescue file fits,
    # the HDF5 file does not: the writer fails with EFBIG (it ignores
    # SIGXFSZ), removes its temporary file, and the rescue stays.
    run o.base sh -c 'ulimit -f 4 && exec "$@"' sh "$SL_FAULT_APP" basic
    run o.shim sh -c 'ulimit -f 4 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" basic
    same_behaviour o.base o.shim
    expect_line o.shim 'writer exited with status 1: .*File too large' "a warning naming the size limit"
    if ls -A "$T/o.shim" | grep -q 'tmp'; then
        fail "o.shim: the writer left a temporary file: $(ls -A "$T/o.shim" | tr '\n' ' ')"
    fi
    check_rescue o.shim --timing "work=1x3" --no-likwid ;;
exists)
    mkdir -p "$T/o"
    printf 'precious\n' >"$T/o/out.h5"
    SCOPE_LIKWID_OUTPUT=$T/o/out.h5
    export SCOPE_LIKWID_OUTPUT
    pair o real "$SL_FAULT_APP" basic
    [ "$(cat "$T/o/out.h5")" = precious ] || fail "$T/o/out.h5 was changed: expected it untouched"
    w=$(wrote_path o.shim)
    if [ -z "$w" ] || [ "$w" = "$T/o/out.h5" ] || [ ! -f "$w" ]; then
        fail "the shim wrote '$w': expected a new file next to $T/o/out.h5"
        shim_lines o.shim | sed 's/^/    /'
    else
        work_timing "$w" --no-likwid
    fi ;;
race)
    mkdir -p "$T/o" "$T/sync"
    SCOPE_LIKWID_OUTPUT=$T/o/out.h5
    export SCOPE_LIKWID_OUTPUT
    run o.base "$SL_FAULT_APP" race
    FAULT_SYNC_DIR=$T/sync
    export FAULT_SYNC_DIR
    run o.shim1 env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" race &
    run o.shim2 env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" race &
    wait
    same_behaviour o.base o.shim1
    same_behaviour o.base o.shim2
    w1=$(wrote_path o.shim1)
    w2=$(wrote_path o.shim2)
    if [ -z "$w1" ] || [ -z "$w2" ] || [ "$w1" = "$w2" ]; then
        fail "the two processes wrote '$w1' and '$w2': expected two distinct files"
        shim_lines o.shim1 | sed 's/^/    1: /'
        shim_lines o.shim2 | sed 's/^/    2: /'
    else
        work_timing "$w1" --no-likwid
        work_timing "$w2" --no-likwid
    fi
    n=$(ls "$T/o" | wc -l)
    [ "$n" = 2 ] || { fail "$n files in $T/o: expected the two results, nothing else"; ls -la "$T/o"; } ;;
symlinks)
    # A shared directory where someone planted symlinks at the names the
    # shim will use (the result and its rescue file) and at the writer's
    # first temporary name pattern: nothing may be written through them.
    mkdir -p "$T/o"
    printf 'victim\n' >"$T/victim"
    ln -s "$T/victim" "$T/o/out.h5"
    ln -s "$T/victim" "$T/o/out.h5.rescue"
    SCOPE_LIKWID_OUTPUT=$T/o/out.h5
    export SCOPE_LIKWID_OUTPUT
    pair o real "$SL_FAULT_APP" basic
    [ "$(cat "$T/victim")" = victim ] || fail "$T/victim was changed through a symlink"
    [ -L "$T/o/out.h5" ] && [ -L "$T/o/out.h5.rescue" ] || fail "a planted symlink was replaced: expected both left alone"
    w=$(wrote_path o.shim)
    if [ -z "$w" ] || [ "$w" = "$T/o/out.h5" ] || [ -L "$w" ] || [ ! -f "$w" ]; then
        fail "the shim wrote '$w': expected a new regular file next to $T/o/out.h5"
        shim_lines o.shim | sed 's/^/    /'
    else
        work_timing "$w" --no-likwid
    fi ;;
writer-timeout)
    # The writer gets SCOPE_LIKWID_TIMEOUT plus 1 s per MiB of rescue file.
    # A writer that needs 1.5 s: with a 1 s timeout a small run is left as
    # a rescue file (the timeout is enforced), a run with ~1.5 MiB of
    # per-call samples is written (the timeout grew with the data).
    printf '#!/bin/sh\nsleep 1.5\nexec "%s" "$@"\n' "$SL_WRITE" >"$T/slow-writer"
    chmod +x "$T/slow-writer"
    # OMP_WAIT_POLICY=PASSIVE: 20000 barriers spun by two threads on a
    # loaded 2-core machine took over a minute; sleeping waits take seconds.
    SCOPE_LIKWID_WRITER=$T/slow-writer SCOPE_LIKWID_TIMEOUT=1 SCOPE_LIKWID_MAX_CALLS=100000 OMP_NUM_THREADS=2
    OMP_WAIT_POLICY=PASSIVE
    export SCOPE_LIKWID_WRITER SCOPE_LIKWID_TIMEOUT SCOPE_LIKWID_MAX_CALLS OMP_NUM_THREADS OMP_WAIT_POLICY
    pair small real "$SL_SOLVER" --steps 5
    expect_line small.shim 'writer timed out after 1 s' "the small run's writer killed at the 1 s deadline"
    check_rescue small.shim --no-likwid
    pair big real "$SL_SOLVER" --steps 20000
    w=$(wrote_path big.shim)
    if [ -z "$w" ] || [ ! -f "$w" ]; then
        fail "big.shim: no result file written: expected the writer's deadline to grow with the data"
        shim_lines big.shim | sed 's/^/    /'
    fi ;;
*) echo "output.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
[ "$FAILED" = 0 ] || { show_run o.shim 2>/dev/null; }
finish
