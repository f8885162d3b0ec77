#!/bin/sh
# The process ends inside a region without Close:
#   signals.sh term|TERM|INT|HUP|XCPU  a terminating signal left at its
#       default action: exit status, stdout and stderr as without the shim;
#       the shim's handler has the writer turn the journal into the result
#       (the regions completed before, the open one, the signal) before the
#       process dies of the signal; no journal is left.
#   signals.sh chain                  a library's SIGTERM handler, installed
#       after Init, calls the previous one (the shim's): the process ends of
#       SIGTERM once, as without the shim (no loop), with the result.
#   signals.sh run                    scope-likwid run and a plain
#       LD_PRELOAD give the same result for SIGTERM and SIGINT.
#   signals.sh writer-missing|writer-hang   the writer cannot run / hangs:
#       the process still ends of the signal (within SCOPE_LIKWID_TIMEOUT),
#       and one line names the journal and the recover command, which works.
#   signals.sh kill|segv|abort        SIGKILL, a segfault, abort(): the
#       journal is left; scope-likwid recover writes the result, removes the
#       journal, and a second recover does nothing.
#   signals.sh alive                  recover leaves the journal of a running
#       process alone; after SIGKILL it recovers it.
#   signals.sh handler-before|handler-after   the application's own SIGTERM
#       handler (installed before / after Init) runs; the application goes
#       on and closes: a normal result with the regions after the signal.
# The real LIKWID (no-count mode).
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_SIG_APP SL_CHECKER SL_CLI
pick_python
ulimit -c 0

recover_ok() {  # recover_ok RUN STATUS-REGEX
    j=$(ls "$T/$1"/*.journal 2>/dev/null)
    [ -f "$j" ] || { fail "$1: no journal left in the application's cwd: $(ls "$T/$1")"; return 1; }
    # Under memcheck when there is valgrind (and no sanitizer): the reader
    # of a file a dead process left must be clean.
    vg=""
    if [ -n "${SL_VALGRIND:-}" ] && [ "${SL_SANITIZE:-none}" = none ]; then
        vg="$SL_VALGRIND -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
    fi
    $vg "$SL_CLI" recover "$T/$1" >"$T/rec.out" 2>"$T/rec.err" || fail "recover failed: $(cat "$T/rec.err")"
    [ -e "$j" ] && fail "recover left the journal $j"
    f=$(result_file "$1") || { fail "$1: no result file after recover: $(cat "$T/rec.err")"; return 1; }
    work_timing "$f" --timing-tags work inside --open "inside=1" --no-likwid \
        --status "partial: recovered from the journal" --status "$2" --status "1 region open: inside"
    provenance_ok "$f"
    # Idempotent: nothing left to do, nothing written.
    "$SL_CLI" recover "$T/$1" >"$T/rec2.out" 2>"$T/rec2.err" || fail "a second recover failed: $(cat "$T/rec2.err")"
    [ "$(ls "$T/$1" | wc -l)" = 1 ] || fail "a second recover changed $T/$1: $(ls "$T/$1")"
}

# provenance_ok FILE: a result recovered from a journal says where and in
# which launch the process ran, as a delivered one does: /metadata run_id
# from the batch job the run was given (SLURM_JOB_ID 4242, step 3, then the
# process: a serial run), the /metadata noted at Init (user, working
# directory, mpi_size, omp_num_threads, the SLURM_* variables, the run's
# start and end around its calls), and rank0's cpu_model and
# kernel_release as this host names them.
provenance_ok() {
    "$PY" - "$1" "$(uname -r)" <<'PY' >"$T/prov.log" 2>&1 || fail "provenance of $1: $(cat "$T/prov.log")"
import h5py, os, sys
def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)
f = h5py.File(sys.argv[1], "r")
cpu = ""
for line in open("/proc/cpuinfo"):
    if line.startswith("model name"):
        cpu = line.split(":", 1)[1].strip()
        break
g = f[[k for k in f if k.startswith("rank")][0]]
bad = []
m = f["metadata"].attrs
if not text(m.get("run_id", "")).startswith("slurm-4242.3/"):
    bad.append("run_id %r, expected 'slurm-4242.3/HOST:PID:START'" % text(m.get("run_id", "")))
want = {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "3", "SLURM_TEST_NOTE": "noted at Init",
        "user": __import__("pwd").getpwuid(os.getuid()).pw_name,   # never USER (sl-note-user)
        "mpi_size": 1, "omp_num_threads": int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or m.get("omp_num_threads")}
for k, v in want.items():
    if m.get(k) != v:
        bad.append("/metadata %s = %r, expected %r" % (k, m.get(k), v))
if not os.path.isdir(text(m.get("working_directory", ""))):
    bad.append("/metadata working_directory %r: expected the run's directory" % m.get("working_directory"))
t = g["timing/regions"]
starts = [int(t[r]["start_times"][:].min()) for r in t if len(t[r]["start_times"])]
ends = [int(t[r]["end_times"][:].max()) for r in t if len(t[r]["end_times"])]
if "start_time_ns" not in m or "timestamp" not in m or not (
        m["start_time_ns"] <= min(starts) and m["finalize_time_ns"] >= max(ends)):
    bad.append("start/finalize/timestamp %r %r %r: expected around the calls %d..%d"
               % (m.get("start_time_ns"), m.get("finalize_time_ns"), m.get("timestamp"), min(starts), max(ends)))
if cpu and " ".join(text(g.attrs.get("cpu_model", "")).split()) != " ".join(cpu.split()):
    bad.append("cpu_model %r, expected %r" % (text(g.attrs.get("cpu_model", "")), cpu))
if text(g.attrs.get("kernel_release", "")) != sys.argv[2]:
    bad.append("kernel_release %r, expected %r" % (text(g.attrs.get("kernel_release", "")), sys.argv[2]))
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
}

# at_signal RUN SIGNO: the handler wrote the result before the process died.
at_signal() {
    if ls "$T/$1"/*.journal >/dev/null 2>&1; then
        fail "$1: the journal is left: the result was not written at the signal"
    fi
    f=$(result_file "$1") || { fail "$1: no result file written at the signal: $(ls "$T/$1")"; return 1; }
    [ "$(wrote_path "$1")" = "$f" ] || fail "$1: the shim's line does not name $f: $(shim_lines "$1")"
    [ "$(shim_lines "$1" | wc -l)" = 1 ] || fail "$1: expected one scope-likwid: line: $(shim_lines "$1")"
    work_timing "$f" --timing-tags work inside --open "inside=1" --no-likwid \
        --status "^partial: recovered from the journal by the shim's signal handler: the process was ended by signal $2 " \
        --status "in flight: 1 region open: inside"
}

signo() { case $1 in HUP) echo 1 ;; INT) echo 2 ;; TERM) echo 15 ;; XCPU) echo 24 ;; esac; }

# status_of FILE: rank0's likwid_status with pids and thread ids as N.
status_of() {
    "$PY" -c 'import h5py, re, sys
f = h5py.File(sys.argv[1], "r")
g = [k for k in f if k.startswith("rank")][0]
s = f[g].attrs["likwid_status"]
s = s.decode() if isinstance(s, bytes) else str(s)
print(re.sub(r"\d{2,}", "N", s))' "$1"
}

# recover_hint RUN: runs the exact command of the shim's line; it must write the result.
recover_hint() {
    cmd=$(shim_lines "$1" | sed -n "s/.*recover it with '\(scope-likwid recover [^']*\)'.*/\1/p")
    [ -n "$cmd" ] || { fail "$1: no line names the recover command: $(shim_lines "$1")"; return 1; }
    j=${cmd#scope-likwid recover }
    [ -f "$j" ] || fail "$1: the line names $j, which does not exist"
    "$SL_CLI" recover "$j" >"$T/rec.out" 2>"$T/rec.err" || fail "$cmd failed: $(cat "$T/rec.err")"
    f=$(result_file "$1") || { fail "$1: no result after '$cmd'"; return 1; }
    work_timing "$f" --open "inside=1" --no-likwid --status "ended by signal 15"
}

if [ "${1:-}" = segv ] && [ "${SL_SANITIZE:-none}" != none ]; then
    skip "b_sanitize=$SL_SANITIZE: the sanitizer reports the crash itself, with addresses that differ per run"
fi

case ${1:-} in
term)
    pair a real "$SL_FAULT_APP" term-in-region
    at_signal a.shim 15 ;;
TERM|INT|HUP|XCPU)
    pair a real "$SL_SIG_APP" "raise-$1"
    at_signal a.shim "$(signo "$1")" ;;
chain)
    pair a real "$SL_SIG_APP" chain-term
    grep -q 'library handler AGAIN' "$T/a.shim.out" && fail "the library's handler ran again: the shim's handler looped"
    at_signal a.shim 15 ;;
kill|segv|abort)
    SLURM_JOB_ID=4242 SLURM_STEP_ID=3 SLURM_TEST_NOTE="noted at Init" USER=sl-note-user
    export SLURM_JOB_ID SLURM_STEP_ID SLURM_TEST_NOTE USER
    pair a real "$SL_FAULT_APP" "$1-in-region"
    recover_ok a.shim "ended without likwid_markerClose" ;;
run)
    # scope-likwid run: likwid-perfctr cannot count here, so it runs the
    # application directly; its status is the application's. Its result
    # must be the plain LD_PRELOAD one's.
    for s in TERM INT; do
        n=$(signo "$s")
        run "p$s" env LD_PRELOAD="$SL_SHIM" "$SL_SIG_APP" "raise-$s"
        mkdir -p "$T/r$s"
        (cd "$T/r$s" && exec "$SL_CLI" run -- "$SL_SIG_APP" "raise-$s") >"$T/r$s.out" 2>"$T/r$s.err"
        rc=$?
        [ "$rc" = $((128 + n)) ] || fail "scope-likwid run: exit status $rc: expected $((128 + n)) (SIG$s) as the application's"
        [ "$(rc_of "p$s")" = $((128 + n)) ] || fail "LD_PRELOAD: exit status $(rc_of "p$s"): expected $((128 + n))"
        fp=$(result_file "p$s") || fail "LD_PRELOAD, SIG$s: no result file: $(cat "$T/p$s.err")"
        fr=$(result_file "r$s") || fail "scope-likwid run, SIG$s: no result file: $(cat "$T/r$s.err")"
        [ -n "$fp" ] && [ -n "$fr" ] || continue
        for f in "$fp" "$fr"; do
            work_timing "$f" --timing-tags work inside --open "inside=1" --no-likwid \
                --status "ended by signal $n "
        done
        a=$(status_of "$fp") b=$(status_of "$fr")
        [ "$a" = "$b" ] || fail "SIG$s: status differs: LD_PRELOAD '$a', scope-likwid run '$b'"
        ls "$T/r$s"/*.journal "$T/p$s"/*.journal >/dev/null 2>&1 && fail "SIG$s: a journal is left"
    done ;;
writer-missing)
    SCOPE_LIKWID_WRITER=$T/no-such-writer
    export SCOPE_LIKWID_WRITER
    pair a real "$SL_FAULT_APP" term-in-region
    expect_line a.shim "could not write the result at signal 15 \(Terminated\) \(writer not found: $T/no-such-writer\); the timing is in .*\.journal" "the reason and the journal"
    recover_hint a.shim ;;
writer-hang)
    # A writer that never ends (keeping no deadline of its own): the process
    # still dies of SIGTERM, after SCOPE_LIKWID_TIMEOUT and a second's
    # grace, and the writer is killed (no process left).
    printf '#!/bin/sh\necho $$ >>"%s/writer.pids"\nexec sleep 60\n' "$T" >"$T/hang-writer"
    chmod +x "$T/hang-writer"
    SCOPE_LIKWID_WRITER=$T/hang-writer SCOPE_LIKWID_TIMEOUT=2.5
    export SCOPE_LIKWID_WRITER SCOPE_LIKWID_TIMEOUT
    t0=$(date +%s)
    pair a real "$SL_FAULT_APP" term-in-region
    took=$(( $(date +%s) - t0 ))
    [ "$took" -lt 40 ] || fail "the runs took $took s: the writer's deadline did not hold"
    expect_line a.shim "could not write the result at signal 15 \(Terminated\) \(writer timed out after 3.5 s\)" "the deadline"
    for p in $(cat "$T/writer.pids" 2>/dev/null); do
        kill -0 "$p" 2>/dev/null && fail "the hanging writer (pid $p) was not killed"
    done
    [ -s "$T/writer.pids" ] || fail "the writer never ran"
    recover_hint a.shim ;;
writer-deadline)
    # The writer past its own deadline (SCOPE_LIKWID_TIMEOUT from the
    # signal), here stuck in fsync (a slow file system): it removes its
    # temporary file, writes nothing, and says so before the shim's grace
    # runs out; the journal stays for recover.
    SCOPE_LIKWID_TIMEOUT=1 SL_SLOW_FSYNC_S=5
    export SCOPE_LIKWID_TIMEOUT SL_SLOW_FSYNC_S
    run a.shim env LD_PRELOAD="$SL_SLOW_FSYNC $SL_SHIM" "$SL_FAULT_APP" term-in-region
    [ "$(rc_of a.shim)" = 143 ] || fail "exit status $(rc_of a.shim): expected 143 (SIGTERM)"
    expect_line a.shim "could not write the result at signal 15 \(Terminated\) \(writer exited with status 1: scope-likwid-write: stopped at its deadline \(SCOPE_LIKWID_TIMEOUT, 1 s after the signal\): nothing written, the journal .*\.journal is kept\); the timing is in .*\.journal" "the writer's deadline"
    ls -A "$T/a.shim" | grep -q '\.tmp' && fail "a temporary file is left: $(ls -A "$T/a.shim")"
    ls "$T/a.shim"/*.h5 >/dev/null 2>&1 && fail "a result was written after all"
    unset SL_SLOW_FSYNC_S
    recover_hint a.shim ;;
alive)
    mkdir -p "$T/w" "$T/sync"
    (cd "$T/w" && FAULT_SYNC_DIR=$T/sync SLURM_JOB_ID=4242 SLURM_STEP_ID=3 \
        SLURM_TEST_NOTE="noted at Init" USER=sl-note-user \
        exec env LD_PRELOAD="$SL_SHIM" "$SL_FAULT_APP" wait-in-region) \
        >"$T/w.out" 2>"$T/w.err" &
    pid=$!
    for i in $(seq 100); do [ -e "$T/sync/ready" ] && break; sleep 0.1; done
    [ -e "$T/sync/ready" ] || fail "the application did not reach its region"
    j=$(ls "$T/w"/*.journal 2>/dev/null)
    "$SL_CLI" recover "$T/w" >"$T/rec.out" 2>"$T/rec.err" || fail "recover of a live journal failed"
    grep -q "still runs: left alone" "$T/rec.err" || fail "recover did not say it left the live journal alone: $(cat "$T/rec.err")"
    [ -f "$j" ] || fail "recover touched the journal of a live process"
    ls "$T/w"/*.h5 >/dev/null 2>&1 && fail "recover wrote a result for a live process"
    # Seen from another host (its own host name: a UTS namespace) or another
    # boot (boot_id bound over in a mount namespace), the live journal is
    # left alone too, with one line saying why; Slurm cannot say the job
    # ended (no squeue, or no such cluster). Needs root for unshare.
    if unshare -u true 2>/dev/null && unshare -m true 2>/dev/null; then
        echo 00000000-1111-2222-3333-444444444444 >"$T/other-boot"
        for other in host boot; do
            case $other in
            host) unshare -u sh -c 'hostname sl-other-node && exec "$@"' sh \
                      env PATH=/nonexistent "$SL_CLI" recover "$T/w" >"$T/rec-$other.out" 2>"$T/rec-$other.err" ;;
            boot) unshare -m sh -c 'mount --bind "$0" /proc/sys/kernel/random/boot_id && exec "$@"' "$T/other-boot" \
                      env PATH=/nonexistent "$SL_CLI" recover "$T/w" >"$T/rec-$other.out" 2>"$T/rec-$other.err" ;;
            esac
            [ "$?" = 0 ] || fail "recover from another $other: exit $?: $(cat "$T/rec-$other.err")"
            [ -f "$j" ] || fail "recover from another $other touched the journal of a live process"
            ls "$T/w"/*.h5 >/dev/null 2>&1 && fail "recover from another $other wrote a result for a live process"
            [ "$(wc -l <"$T/rec-$other.err")" = 1 ] || fail "recover from another $other: expected one line: $(cat "$T/rec-$other.err")"
            case $other in
            host) want="written on host $(hostname), not this one \(sl-other-node\), by process $pid; Slurm cannot tell whether job 4242 ended \(no squeue in PATH\): left alone \(--finished 4242 once it has ended\)" ;;
            boot) want="written in another boot of host $(hostname) .*, by process $pid; Slurm cannot tell whether job 4242 ended \\(no squeue in PATH\\): left alone \\(--finished 4242 once it has ended\\)" ;;
            esac
            grep -Eq "^scope-likwid: recover: .*\.journal: $want\$" "$T/rec-$other.err" ||
                fail "recover from another $other: expected '$want', got: $(cat "$T/rec-$other.err")"
        done
    else
        echo "signals: unshare not permitted (not root): the other-host and other-boot checks did not run"
    fi
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    recover_ok w "ended without likwid_markerClose" ;;
handler-before|handler-after)
    pair a real "$SL_FAULT_APP" "term-$1"
    grep -q 'SIGTERM handled: 1' "$T/a.shim.out" || fail "the application's handler did not run: $(cat "$T/a.shim.out")"
    f=$(result_file a.shim) || fail "no result file"
    [ -n "$f" ] && work_timing "$f" --timing "inside=1x1" --timing "after=1x2" --no-likwid --status "not counting"
    ls "$T/a.shim"/*.journal >/dev/null 2>&1 && fail "Close left the journal" ;;
*) echo "signals.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
[ "$FAILED" = 0 ] || show_run a.shim 2>/dev/null
finish
