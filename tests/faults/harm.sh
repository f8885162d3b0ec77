#!/bin/sh
# What services, runtimes and libraries do around the markers (issue 27;
# harm_app.c says what each mode does): the same exit status, stdout and
# stderr (minus the shim's lines) with the shim as without it, and every
# call in the result, checked call by call with h5py.
#   harm.sh sigalrm   markers in a SIGALRM handler while main times new
#                     tags: no deadlock, no record lost or merged (3 of 3)
#   harm.sh fsize     no fallocate (a preloaded stand-in says EOPNOTSUPP, as
#                     NFSv3 and ext3 do) and RLIMIT_FSIZE lowered after
#                     Init: the journal's later pieces cannot be backed; no
#                     SIGXFSZ, every call kept (in the pool)
#   harm.sh fsize fallocate   the same with fallocate (the journal's file
#                     grows with its pieces): no SIGXFSZ either
#   harm.sh longtag   1000 pairs of a 1 MiB tag: under 1 s of CPU time (a
#                     strlen and a memcmp per call, not a byte-wise hash)
#   harm.sh churn     100 000 short-lived threads, one call each: RSS growth
#                     and the journal at most 64 MiB, every call kept
#   harm.sh plugin    a plugin linked with liblikwid loaded RTLD_GLOBAL by a
#                     host without LIKWID, dlclose()d, loaded again: no
#                     SIGSEGV, both runs in their files (10 calls each)
#   harm.sh deepbind  the plugin loaded with RTLD_DEEPBIND: its calls reach
#                     the shim all the same (its slots rewritten), all 10
#                     in the result (more such cases: rebind.sh)
#   harm.sh cycles    Init..Close around every call of a library routine:
#                     100 cycles back to back, and 30 cycles 50 ms apart;
#                     every call in exactly one result file (h5py), one
#                     file for cycle 1 and one per batch of later cycles
#                     (a batch: at least 1 s, or the rest at the end);
#                     10 cycles, then exec: the batch is written at exec;
#                     10 cycles, then a forked child times its own
#                     Init..Close: the parent's batch once, the child's call
#                     in the child's file only; 10 cycles, then SIGKILL
#                     between cycles: the batch's journal is left and
#                     recovers to cycles 2 to 10; 8 cycles, then a ninth without
#                     Close: the exit's result holds cycles 2 to 9, no
#                     batch file is left
#   harm.sh cycles-run  11 cycles, then SIGKILL between cycles, under
#                     scope-likwid run: run recovers the batch's journal,
#                     or without a journal turns the batch file into its
#                     result (cycles 2 to 11), nothing left
#   harm.sh cycles-killed  5 cycles, then SIGTERM or SIGKILL inside a sixth
#                     (the real LIKWID: one batch of cycles 2 to 6; the
#                     simulated one counting: a result per cycle): the last
#                     cycle's calls in the signal handler's or recover's
#                     result, nothing left
# The real LIKWID (no-count mode).
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_HARM_APP SL_HARM_HOST SL_HARM_PLUGIN SL_CHECKER SL_CLI
pick_python
case=${1:-}

case $case in
sigalrm)
    STEPS=1000
    SCOPE_LIKWID_MAX_CALLS=10000000
    export SCOPE_LIKWID_MAX_CALLS
    i=1
    while [ "$i" -le 3 ]; do
        pair "a$i" real "$SL_HARM_APP" sigalrm "$STEPS"
        f=$(result_file "a$i.shim") || { fail "a$i: no result file: $(shim_lines "a$i.shim")"; i=$((i + 1)); continue; }
        ticks=$(sed -n 's/^tick //p' "$T/a$i.shim/counts")
        [ "${ticks:-0}" -gt 0 ] || fail "a$i: the handler never ran: '$ticks'"
        check "$f" --timing "loop=1x$STEPS" >/dev/null
        calls_exact "$f" "loop=$STEPS" "inner=$((STEPS * 100))" "step-*=1" "tick=$ticks"
        say "run $i: $ticks handler calls"
        i=$((i + 1))
    done ;;
fsize)
    need SL_NO_FALLOCATE
    SCOPE_LIKWID_MAX_CALLS=10000000
    export SCOPE_LIKWID_MAX_CALLS
    pre=$SL_NO_FALLOCATE
    [ "${2:-}" = fallocate ] && pre=
    run a.base env LD_PRELOAD="$pre" "$SL_HARM_APP" fsize 200000
    run a.shim env LD_PRELOAD="${pre:+$pre }$SL_SHIM" "$SL_HARM_APP" fsize 200000
    same_behaviour a.base a.shim
    f=$(result_file a.shim) || { fail "no result file: $(shim_lines a.shim)"; finish; }
    check "$f" --timing "req=1x200000" --timing-tags req --no-likwid >/dev/null
    calls_exact "$f" "req=200000" ;;
longtag)
    pair a real "$SL_HARM_APP" longtag 1000
    f=$(result_file a.shim) || { fail "no result file: $(shim_lines a.shim)"; finish; }
    ms=$(sed -n 's/^cpu_ms //p' "$T/a.shim/counts")
    say "1000 pairs of a 1 MiB tag: $ms ms of CPU time (without the shim $(sed -n 's/^cpu_ms //p' "$T/a.base/counts") ms)"
    [ -n "$ms" ] && [ "$ms" -lt 1000 ] || fail "1000 pairs of a 1 MiB tag took $ms ms of CPU time: expected under 1 s"
    "$PY" - "$f" <<'PY' >"$T/long.log" 2>&1 || fail "the 1 MiB tag's region: $(cat "$T/long.log")"
import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = f[[k for k in f if k.startswith("rank")][0]]["timing/regions"]
rgs = list(g.values())
tag = rgs[0].attrs["tag"]
tag = tag.decode() if isinstance(tag, bytes) else str(tag)
assert len(rgs) == 1, "%d regions" % len(rgs)
assert tag == "t" * (1 << 20), "tag of %d chars" % len(tag)
assert int(rgs[0]["call_counts"][()].sum()) == 1000 and len(rgs[0]["call_threads"][()]) == 1000, "calls"
PY
    ;;
churn)
    # A sanitized build runs each thread start about 10 times slower and
    # keeps freed memory in quarantine: 10 000 threads, calls checked, RSS
    # not (the quarantine's growth is the sanitizer's, not the shim's).
    N=100000
    [ "${SL_SANITIZE:-none}" = none ] || N=10000
    pair a real "$SL_HARM_APP" churn "$N"
    f=$(result_file a.shim) || { fail "no result file: $(shim_lines a.shim)"; finish; }
    grow=$(sed -n 's/^rss_growth_kib //p' "$T/a.shim/counts")
    jkib=$(sed -n 's/^journal_kib //p' "$T/a.shim/counts")
    base=$(sed -n 's/^rss_growth_kib //p' "$T/a.base/counts")
    say "RSS growth $grow KiB (without the shim $base KiB), journal $jkib KiB"
    if [ "${SL_SANITIZE:-none}" = none ]; then
        [ -n "$grow" ] && [ "$grow" -le 65536 ] || fail "RSS grew by $grow KiB over $N threads: expected at most 64 MiB"
    else
        say "b_sanitize=$SL_SANITIZE: RSS growth not checked"
    fi
    [ -n "$jkib" ] && [ "$jkib" -gt 0 ] && [ "$jkib" -le 65536 ] || fail "journal $jkib KiB: expected a journal of at most 64 MiB"
    check "$f" --timing-tags req --no-likwid >/dev/null
    calls_exact "$f" "req=$N" ;;
plugin)
    pair a real "$SL_HARM_HOST" plugin "$SL_HARM_PLUGIN"
    [ "$(rc_of a.shim)" = 0 ] || show_run a.shim
    plug_results a.shim 2 10
    [ "$(shim_lines a.shim | grep -c '^scope-likwid: wrote ')" = 2 ] || fail "expected 2 wrote lines: $(shim_lines a.shim)" ;;
cycles-run)
    # 11 cycles, then SIGKILL between cycles, under scope-likwid run: run
    # recovers the journal that went on through the batch; without a
    # journal (SCOPE_LIKWID_JOURNAL=0) the shim named the batch file in
    # run's report, and run turns it into the result it is named after.
    SCOPE_LIKWID_PERFCTR=none
    export SCOPE_LIKWID_PERFCTR
    run c.base "$SL_HARM_APP" cycles 11 0 kill
    for how in journal nojournal; do
        if [ "$how" = journal ]; then
            run "$how.shim" "$SL_CLI" run -- "$SL_HARM_APP" cycles 11 0 kill
        else
            run "$how.shim" env SCOPE_LIKWID_JOURNAL=0 "$SL_CLI" run -- "$SL_HARM_APP" cycles 11 0 kill
        fi
        same_behaviour c.base "$how.shim"
        left=$(ls "$T/$how.shim" | grep -v '^scope-likwid-run-[0-9]*\(\.cycle2\)\?\.h5$' | grep -v '^counts$')
        [ -z "$left" ] || fail "$how.shim: left behind: $left"
        first=$(ls "$T/$how.shim"/scope-likwid-run-*.h5 2>/dev/null | grep -v cycle2)
        batch=$(ls "$T/$how.shim"/scope-likwid-run-*.cycle2.h5 2>/dev/null)
        if [ -f "$first" ] && [ -f "$batch" ]; then
            check "$first" --timing "lib=1x1" --no-likwid >/dev/null
            check "$batch" --timing "lib=1x10" --no-likwid --status "Init..Close cycles 2 to 11 of process" >/dev/null
            calls_exact "$batch" "lib=10"
            if [ "$how" = journal ]; then
                expect_line "$how.shim" "^scope-likwid: recover: recovered .*\.cycle2\.h5\.journal: wrote $batch\$" "run recovering the batch's journal"
            else
                expect_line "$how.shim" "^scope-likwid: run: result in $batch \(Init\.\.Close cycles of process [0-9]+, from the batch file it left" "run naming the batch's result"
            fi
        else
            fail "$how.shim: expected the first cycle's result and the batch's (.cycle2.h5): $(ls "$T/$how.shim")"
        fi
        [ "$FAILED" = 0 ] || { show_run "$how.shim"; break; }
    done ;;
cycles-killed)
    # Killed inside a later cycle: 5 cycles, then a sixth with 4 calls of
    # "inside" ended by SIGTERM (the signal handler writes its journal) or
    # SIGKILL (recover does). Where LIKWID does not count, cycles 2 to 6
    # are one batch, journaled from cycle 2 on; where it counts (the
    # simulated LIKWID), cycle 6 has a result and a journal of its own.
    # Every call in exactly one file, nothing left.
    need SL_SIM_DIR SL_SIM_PERFCTR
    for kind in real sim; do
        for then in termin killin; do
            n=$kind-$then
            pair "$n" "$kind" "$SL_HARM_APP" cycles 5 0 "$then"
            if [ "$then" = killin ]; then
                "$SL_CLI" recover "$T/$n.shim" >"$T/rec.log" 2>&1 || fail "$n: recover: $(cat "$T/rec.log")"
            else
                expect_line "$n.shim" "^scope-likwid: wrote .*\.cycle[26]\.h5\$" "the signal handler's result of the last cycle"
            fi
            left=$(ls "$T/$n.shim" | grep -v '^scope-likwid-[0-9]*\(\.cycle[0-9]\)\?\.h5$' | grep -v '^counts$')
            [ -z "$left" ] || fail "$n.shim: left behind: $left"
            sig=$([ "$then" = termin ] && echo "signal 15" || echo "without likwid_markerClose")
            if [ "$kind" = real ]; then
                last=$(ls "$T/$n.shim"/scope-likwid-*.cycle2.h5 2>/dev/null)
                [ -f "$last" ] && check "$last" --timing "lib=1x4" --timing "inside=1x4" --no-likwid \
                    --status "Init..Close cycles 2 to 6 of process" --status "$sig" >/dev/null ||
                    fail "$n.shim: no result of cycles 2 to 6: $(ls "$T/$n.shim")"
                [ "$(ls "$T/$n.shim" | grep -c '\.h5$')" = 2 ] || fail "$n.shim: expected 2 results: $(ls "$T/$n.shim")"
            else
                last=$(ls "$T/$n.shim"/scope-likwid-*.cycle6.h5 2>/dev/null)
                [ -f "$last" ] && check "$last" --timing "inside=1x4" --timing-tags inside \
                    --status "Init..Close cycle 6 of process" --status "$sig" >/dev/null ||
                    fail "$n.shim: no result of cycle 6: $(ls "$T/$n.shim")"
                [ "$(ls "$T/$n.shim" | grep -c '\.h5$')" = 6 ] || fail "$n.shim: expected 6 results: $(ls "$T/$n.shim")"
            fi
            [ "$FAILED" = 0 ] || { show_run "$n.shim"; break 2; }
        done
    done ;;
cycles)
    for spec in "100 0" "30 50" "10 0 exec" "12 0 fork" "11 0 kill" "8 0 open"; do
        set -- $spec
        n=$1 gap=$2 then=${3:-}
        pair "c$n" real "$SL_HARM_APP" cycles "$n" "$gap" $then
        calls=$n
        [ "$then" = open ] && calls=$((n + 1))     # and the cycle without Close
        if [ "$then" = kill ]; then
            # the batch's calls are in its first cycle's journal, which
            # went on through the batch: recover makes the batch's result
            j=$(ls "$T/c$n.shim"/scope-likwid-*.cycle2.h5.journal 2>/dev/null)
            if [ -f "$j" ]; then
                "$SL_CLI" recover "$T/c$n.shim" >"$T/rec.log" 2>&1 || fail "recover: $(cat "$T/rec.log")"
                out=${j%.journal}
                [ -f "$out" ] && check "$out" --timing "lib=1x$((n - 1))" --no-likwid \
                    --status "Init..Close cycles 2 to $n of process" >/dev/null ||
                    fail "c$n.shim: recover made no batch result: $(cat "$T/rec.log")"
            else
                fail "c$n.shim: killed between cycles: no journal of the batch: $(ls "$T/c$n.shim")"
            fi
        fi
        if [ "$then" = fork ]; then
            child=$(ls "$T/c$n.shim"/scope-likwid-*.pid*.h5 2>/dev/null)
            [ -f "$child" ] && check "$child" --timing "child=1x1" --timing-tags child --no-likwid >/dev/null ||
                fail "c$n.shim: no result of the forked child with its one call: $(ls "$T/c$n.shim")"
            [ -f "$child" ] && mv "$child" "$T/c$n.child.h5"
        fi
        ms=$(sed -n 's/^wall_ms //p' "$T/c$n.shim/counts")
        base_ms=$(sed -n 's/^wall_ms //p' "$T/c$n.base/counts")
        say "$n cycles, $gap ms apart: $ms ms (without the shim $base_ms ms), files: $(ls "$T/c$n.shim" | grep -c '\.h5$')"
        # Every call once, in the file of cycle 1 or of its batch; at most
        # one batch per second begun, and one for the rest at the end.
        "$PY" - "$T/c$n.shim" "$calls" "$ms" <<'PY' >"$T/cyc.log" 2>&1 || fail "$n cycles: $(cat "$T/cyc.log")"
import glob, h5py, os, re, sys
d, n, ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
files = sorted(glob.glob(os.path.join(d, "scope-likwid-*.h5")))
total, bad, covered = 0, [], []
for p in files:
    f = h5py.File(p, "r")
    g = f[[k for k in f if k.startswith("rank")][0]]
    st = g.attrs["likwid_status"]
    st = st.decode() if isinstance(st, bytes) else str(st)
    calls = sum(int(r["call_counts"][()].sum()) for r in g["timing/regions"].values())
    total += calls
    m = re.match(r"Init\.\.Close cycles? (\d+)(?: to (\d+))? of process", st)
    if m:
        a = int(m.group(1)); b = int(m.group(2) or a)
    elif ".cycle" in os.path.basename(p):
        bad.append("%s: status does not name its cycles: %s" % (p, st)); continue
    else:
        a = b = 1
    if calls != b - a + 1:
        bad.append("%s: %d calls for cycles %d to %d" % (p, calls, a, b))
    covered += list(range(a, b + 1))
if total != n:
    bad.append("%d calls in %d files, expected %d" % (total, len(files), n))
if sorted(covered) != list(range(1, n + 1)):
    bad.append("cycles covered: %s" % sorted(covered))
if len(files) > 2 + ms // 1000 + 1:
    bad.append("%d files for %d ms of cycles: expected one for cycle 1 and one per batch" % (len(files), ms))
if bad:
    print("; ".join(bad)); sys.exit(1)
PY
        [ "$(ls "$T/c$n.shim" | grep -c 'journal\|rescue')" = 0 ] || fail "c$n.shim: left behind: $(ls "$T/c$n.shim")"
        if [ "$then" = exec ]; then
            f=$(ls "$T/c$n.shim"/scope-likwid-*.cycle2.h5 2>/dev/null)
            [ -f "$f" ] && check "$f" --timing "lib=1x$((n - 1))" --no-likwid \
                --status "Init..Close cycles 2 to $n of process" --status "delivered at exec" >/dev/null ||
                fail "c$n.shim: no batch of cycles 2 to $n written at exec: $(ls "$T/c$n.shim")"
        fi
    done ;;
deepbind)
    if [ "${SL_SANITIZE:-none}" != none ]; then
        skip "b_sanitize=$SL_SANITIZE: the sanitizer runtime refuses RTLD_DEEPBIND (google/sanitizers#611)"
    fi
    # Its slots are rewritten to the shim's entry points after the dlopen.
    pair a real "$SL_HARM_HOST" deepbind "$SL_HARM_PLUGIN"
    plug_results a.shim 1 10
    [ "$(shim_lines a.shim | grep -vc '^scope-likwid: wrote ')" = 0 ] ||
        fail "expected only the wrote line: $(shim_lines a.shim)" ;;
*)
    echo "usage: harm.sh sigalrm|fsize|longtag|churn|plugin|deepbind|cycles" >&2
    exit 2 ;;
esac
finish
