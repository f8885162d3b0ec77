#!/bin/sh
# Threads, memory and descriptors as real HPC codes use them (mem_app.c
# says what each mode does):
#   mem.sh small-close real|sim   Close from a thread with a 64 KiB stack
#   mem.sh small-exit real|sim    exit() from a thread with a 64 KiB stack
#   mem.sh mlockall on|off        mlockall(MCL_CURRENT | MCL_FUTURE), 64
#       threads: locked memory stays under 64 MiB (VmLck), journal on / off
#   mem.sh threads-kill           1024 threads alive, 15 calls each, SIGKILL:
#       recover gives every call
#   mem.sh threads-full           the same with a 4 MiB journal (ulimit -f):
#       every call counted; the status says exactly how many calls of how
#       many threads kept no per-call record
#   mem.sh fd-full-kill|fd-full-close   every descriptor taken after Init,
#       1200 calls: recover / Close's rescue file give every call
#   mem.sh fork-fds               a forked child holds no descriptor of the
#       shim's (the journal's kept one is closed in it)
#   mem.sh nofile3                RLIMIT_NOFILE 3 at Close: the message says
#       the journal holds the timing, and recover gives it
#   mem.sh umask 0777|0377        every file the shim and its helpers create
#       stays readable and writable by its owner (run as nobody when root):
#       a normal run, the writer missing (rescue file, convert), SIGKILL and
#       recover
# Same behaviour as without the shim, and the timing saved, in every case.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_MEM_APP SL_CHECKER SL_CLI
pick_python
ulimit -c 0
mode=${1:-}
kind=${2:-real}
[ "$kind" = sim ] && need SL_SIM_DIR SL_SIM_PERFCTR
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE

# recover_check RUN CHECKER-ARGS...: the run left a journal; recover turns
# it into the result file (every call), and removes the journal.
rf=""
recover_check() {
    rrun=$1
    shift
    j=$(ls "$T/$rrun"/*.journal 2>/dev/null)
    [ -f "$j" ] || { fail "$rrun: no journal left: $(ls "$T/$rrun")"; return 1; }
    "$SL_CLI" recover "$T/$rrun" >"$T/rec.out" 2>"$T/rec.err" || fail "recover failed: $(cat "$T/rec.err")"
    [ -e "$j" ] && fail "recover left the journal $j"
    rf=$(result_file "$rrun") || { fail "$rrun: no result file after recover: $(cat "$T/rec.err")"; return 1; }
    check "$rf" --no-likwid --status "partial: recovered from the journal" "$@"
}

case $mode in
fd-full-kill|fd-full-close|nofile3)
    # LeakSanitizer scans the threads at exit through /proc/PID/task, which
    # it cannot open with every descriptor taken: it fails the run, with or
    # without the shim, and by whether the shim's one descriptor is free.
    ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
    export ASAN_OPTIONS ;;
esac

case $mode in
small-close|small-exit)
    # Close (or the exit hook) runs on the 64 KiB stack: the collector and
    # the writer are started from there (sim: counting, full_api).
    pair a "$kind" "$SL_MEM_APP" "$mode"
    f=$(result_file a.shim) || fail "no result file: $(ls "$T/a.shim")"
    if [ -n "$f" ]; then
        if [ "$mode" = small-exit ]; then
            check "$f" --timing "work=1x3" --no-likwid --status "exited without likwid_markerClose"
        elif [ "$kind" = sim ]; then
            check "$f" --timing "work=1x3" --source full_api --names --status "used full_api"
        else
            check "$f" --timing "work=1x3" --no-likwid --status "not counting"
        fi
    fi ;;
mlockall)
    # A regression here would lock gigabytes: under ulimit -v (the
    # journal and the pool take at most a quarter of it) it stays bounded.
    case ${SL_SANITIZE:-none} in none) ;; *) skip "b_sanitize=$SL_SANITIZE: the sanitizer cannot run under ulimit -v" ;; esac
    [ "$kind" = off ] && { SCOPE_LIKWID_JOURNAL=0; export SCOPE_LIKWID_JOURNAL; }
    MEM_APP_LOCK_MIB=64
    export MEM_APP_LOCK_MIB
    run a.base sh -c 'ulimit -v 2097152 && exec "$@"' sh "$SL_MEM_APP" mlockall
    grep -q 'mem_app: mlockall:' "$T/a.base.out" && skip "mlockall not permitted here: $(cat "$T/a.base.out")"
    grep -q 'locked memory under' "$T/a.base.out" || fail "without the shim: $(cat "$T/a.base.out" "$T/a.base.err")"
    run a.shim sh -c 'ulimit -v 2097152 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_MEM_APP" mlockall
    same_behaviour a.base a.shim
    f=$(result_file a.shim) || fail "no result file: $(ls "$T/a.shim")"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --timing "thr=64x15" --no-likwid ;;
threads-kill)
    pair a real "$SL_MEM_APP" threads-kill
    [ "$(rc_of a.shim)" = 137 ] || fail "a.shim: exit status $(rc_of a.shim): expected 137 (SIGKILL)"
    recover_check a.shim --timing "work=1x3" --timing "thr=1024x15" --timing-tags work thr \
        --status "ended without likwid_markerClose" --status-not "journal was full" ;;
threads-full)
    # ulimit -f 8192 (blocks of 512 bytes): the journal is 4 MiB; the 1024
    # threads need about 6 MiB. The application writes no file.
    run a.base sh -c 'ulimit -f 8192 && exec "$@"' sh "$SL_MEM_APP" threads-kill
    run a.shim sh -c 'ulimit -f 8192 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_MEM_APP" threads-kill
    same_behaviour a.base a.shim
    recover_check a.shim --timing "work=1x3" --timing "thr=1024x15" \
        --status "the journal was full: [0-9]+ calls of [0-9]+ threads kept no per-call record" \
        --status-not "not in it"
    if [ -n "$rf" ]; then
        # The figures of the status are the file's: calls = 15 x threads =
        # the region's dropped_calls, and the per-call records the rest.
        v=$("$PY" -c 'import h5py, re, sys
g = h5py.File(sys.argv[1], "r")["rank0"]
st = g.attrs["likwid_status"]
st = st if isinstance(st, str) else st.decode()
m = re.search(r"full: (\d+) calls of (\d+) threads", st)
r = [g["timing/regions"][k] for k in g["timing/regions"] if g["timing/regions"][k].attrs["tag"] in ("thr", b"thr")][0]
calls, threads = int(m.group(1)), int(m.group(2))
ok = calls == 15 * threads == int(r.attrs["dropped_calls"]) and len(r["start_times"]) == 15360 - calls
print("ok" if ok else "status %d calls of %d threads, dropped_calls %d, %d records" % (calls, threads, r.attrs["dropped_calls"], len(r["start_times"])))' "$rf" 2>&1)
        [ "$v" = ok ] || fail "the status's figures are not the file's: $v"
    fi ;;
fd-full-kill|fd-full-close)
    run a.base sh -c 'ulimit -n 256 && exec "$@"' sh "$SL_MEM_APP" "$mode"
    run a.shim sh -c 'ulimit -n 256 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_MEM_APP" "$mode"
    same_behaviour a.base a.shim
    grep -q 'every descriptor taken (yes)' "$T/a.shim.out" || fail "the table was not full: $(cat "$T/a.shim.out")"
    if [ "$mode" = fd-full-kill ]; then
        recover_check a.shim --timing "work=1x3" --timing "many=400x3" --status-not "journal was full"
    else
        # One descriptor (the journal's, kept from Init) for the rescue
        # file; none for the writer's pipes: the rescue file says so.
        expect_line a.shim 'writer could not be started: Too many open files' "the reason the writer did not run"
        check_rescue a.shim --timing "work=1x3" --timing "many=400x3" --no-likwid
        ls "$T/a.shim"/*.journal >/dev/null 2>&1 && fail "the journal stayed next to the rescue file"
    fi ;;
fork-fds)
    pair a real "$SL_MEM_APP" fork-fds
    grep -q 'the child has 0 descriptors above 2' "$T/a.shim.out" || fail "a.shim: $(cat "$T/a.shim.out")"
    f=$(result_file a.shim) || fail "no result file: $(shim_lines a.shim)"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --no-likwid ;;
nofile3)
    pair a real "$SL_MEM_APP" nofile3-close
    expect_line a.shim 'could not save the rescue file .*Too many open files.*stays in the journal .*scope-likwid recover ' \
        "the journal named as what holds the timing"
    shim_lines a.shim | grep -q 'results lost' && fail "a.shim: says 'results lost' while the journal holds them: $(shim_lines a.shim)"
    recover_check a.shim --timing "work=1x3" --timing-tags work --status "could save nothing" ;;
umask)
    um=$kind
    as=""
    chmod 711 "$T"
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null 2>&1 || skip "root without setpriv: file modes would not matter"
        as="setpriv --reuid=65534 --regid=65534 --clear-groups"
    fi
    # each run's directory the user's own (a directory others may write in
    # is not used for results: docs/SECURITY.md)
    for r in n.base n.shim w.base w.shim k.base k.shim conv; do
        mkdir -p "$T/$r"
        [ -z "$as" ] || chown 65534:65534 "$T/$r"
    done
    # asu CMD...: CMD with the umask (as nobody when root); a command, for run.
    printf '#!/bin/sh\numask %s && exec %s "$@"\n' "$um" "$as" >"$T/asu"
    chmod 755 "$T/asu"
    asu=$T/asu
    # A normal run: the result file.
    run n.base "$asu" "$SL_MEM_APP" plain
    run n.shim "$asu" env LD_PRELOAD="$SL_SHIM" "$SL_MEM_APP" plain
    same_behaviour n.base n.shim
    f=$(result_file n.shim) || fail "normal run: no result file: $(shim_lines n.shim)"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --no-likwid
    # The writer missing: the rescue file, converted by its owner.
    SCOPE_LIKWID_WRITER=$T/no-such-writer
    export SCOPE_LIKWID_WRITER
    run w.base "$asu" "$SL_MEM_APP" plain
    run w.shim "$asu" env LD_PRELOAD="$SL_SHIM" "$SL_MEM_APP" plain
    same_behaviour w.base w.shim
    r=$(rescue_path w.shim)
    [ -f "$r" ] || fail "writer missing: no rescue file named: $(shim_lines w.shim)"
    (cd "$T/conv" && "$asu" "$SL_CLI" convert "$r" -o "$T/conv/out.h5") >"$T/conv.log" 2>&1 ||
        fail "convert of the rescue file as its owner failed: $(cat "$T/conv.log")"
    [ -f "$T/conv/out.h5" ] && check "$T/conv/out.h5" --timing "work=1x3" --no-likwid
    [ -n "$SL_WRITE" ] && SCOPE_LIKWID_WRITER=$SL_WRITE
    # SIGKILL: the journal, recovered by its owner.
    MEM_APP_THREADS=4
    export MEM_APP_THREADS
    run k.base "$asu" "$SL_MEM_APP" threads-kill
    run k.shim "$asu" env LD_PRELOAD="$SL_SHIM" "$SL_MEM_APP" threads-kill
    same_behaviour k.base k.shim
    ls -l "$T"/*/ >"$T/modes.log" 2>&1
    (cd "$T/k.shim" && "$asu" "$SL_CLI" recover .) >"$T/rec.log" 2>&1 || fail "recover as the owner failed: $(cat "$T/rec.log")"
    f=$(result_file k.shim) || fail "SIGKILL: no result after recover: $(cat "$T/rec.log")"
    [ -n "$f" ] && check "$f" --timing "work=1x3" --timing "thr=4x15" --status "ended without likwid_markerClose"
    # Every file made: its owner may read and write it.
    for p in "$f" "$T/n.shim"/*.h5 "$r" "$T/conv/out.h5"; do
        [ -e "$p" ] || continue
        m=$(stat -c %a "$p")
        case $m in 6??) ;; *) fail "$p: mode $m: expected the owner to read and write it (umask $um)" ;; esac
    done
    grep -E '^-' "$T/modes.log" | grep -v '^-rw' && fail "a file its owner cannot read and write (umask $um): $(cat "$T/modes.log")" ;;
*) echo "mem.sh: unknown case '$mode'" >&2; exit 2 ;;
esac
[ "$FAILED" = 0 ] || [ ! -f "$T/a.shim.rc" ] || show_run a.shim
finish
