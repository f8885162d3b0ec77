#!/bin/sh
# What services, sandboxes, containers and crash handlers do around the
# marker API (harmproc_app.c says what each mode does): harmproc.sh CASE. Each case
# runs the program without and with the shim (same exit status, stdout, and
# stderr apart from the shim's own lines) and checks the result call by
# call with the independent reader (check_result.py, h5py). Cases that
# depend on timing run several times and must pass every time.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_HARMPROC_APP SL_CHECKER SL_CLI
pick_python
ulimit -c 0

# one_result RUN: R is the one result file of RUN, named by the shim's
# 'wrote' line, and nothing else is left (no journal, no rescue file).
one_result() {
    R=$(result_file "$1") || { fail "$1: expected one result file, found: $(ls "$T/$1")"; return 1; }
    left=$(ls "$T/$1" | grep -v '^scope-likwid-[0-9]*\.h5$')
    [ -z "$left" ] || fail "$1: left behind: $left"
    [ "$(wrote_path "$1")" = "$R" ] || fail "$1: no 'wrote $R' line: $(shim_lines "$1")"
}

case ${1:-} in
pid1)
    # A container's entry point is PID 1 of its namespace: the SIGTERM it
    # sends itself (docker stop sends one from outside) is dropped by the
    # kernel, with or without the shim. The simulated LIKWID counts, so
    # the Start and Stop after the signal return LIKWID's 0 both ways.
    need SL_SIM_DIR SL_SIM_PERFCTR
    unshare -p -f --mount-proc true 2>/dev/null ||
        skip "unshare -p -f --mount-proc fails here (no PID namespaces for this user)"
    # The shim is preloaded into the application inside the namespace, not
    # into unshare (a sanitized unshare's leak check cannot start a thread
    # once its namespace's PID 1 has ended).
    sim a.base unshare -p -f --mount-proc "$SL_HARMPROC_APP" pid1
    sim a.shim unshare -p -f --mount-proc env LD_PRELOAD="$SL_SHIM" "$SL_HARMPROC_APP" pid1
    same_behaviour a.base a.shim
    grep -q 'returned 0, the last Stop 0' "$T/a.shim.out" ||
        fail "LIKWID's return values changed: $(cat "$T/a.shim.out")"
    one_result a.shim &&
        check "$R" --timing "work=1x20" --timing-tags work --source full_api \
            --status "used full_api" --status-not "signal" ;;
seccomp-close)
    # A sandbox entered after setup (seccomp: a new process kills the whole
    # process with SIGSYS) and then Close while LIKWID counts (simulated):
    # no helper is started; the shim reads the marker file itself and
    # saves the rescue file; one line says why and how to convert it.
    need SL_SIM_DIR SL_SIM_PERFCTR
    pair a sim "$SL_HARMPROC_APP" seccomp close
    [ "$(shim_lines a.shim | wc -l)" = 1 ] || fail "expected one scope-likwid: line: $(shim_lines a.shim)"
    expect_line a.shim "could not write .* \(writer not started: a seccomp filter was installed after likwid_markerInit" "the sandbox named"
    check_rescue a.shim --timing "work=1x5" --timing-tags work --source marker_file \
        --status "collector not started: a seccomp filter" --status "used marker_file"
    ls "$T/a.shim"/*.journal >/dev/null 2>&1 && fail "a.shim: the journal is left beside the rescue file" ;;
seccomp-exit)
    # The same sandbox, then the end of main without Close (the exit hook).
    pair a real "$SL_HARMPROC_APP" seccomp exit
    [ "$(shim_lines a.shim | wc -l)" = 1 ] || fail "expected one scope-likwid: line: $(shim_lines a.shim)"
    check_rescue a.shim --timing "work=1x5" --timing-tags work --no-likwid \
        --status "exited without likwid_markerClose" ;;
seccomp-term)
    # The same sandbox, then SIGTERM inside a region: the handler starts no
    # writer; the process dies of SIGTERM as without the shim (not of
    # SIGSYS), and the one line names the journal and the recover command.
    pair a real "$SL_HARMPROC_APP" seccomp term
    [ "$(shim_lines a.shim | wc -l)" = 1 ] || fail "expected one scope-likwid: line: $(shim_lines a.shim)"
    expect_line a.shim "could not write the result at signal 15 \(Terminated\) \(writer not started: a seccomp filter" "the sandbox named"
    j=$(shim_lines a.shim | sed -n "s/.*recover it with 'scope-likwid recover \([^']*\)'.*/\1/p")
    if [ -f "$j" ]; then
        "$SL_CLI" recover "$j" >"$T/rec.log" 2>&1 || fail "scope-likwid recover $j failed: $(cat "$T/rec.log")"
        f=$(result_file a.shim) && check "$f" --timing "work=1x5" --open "inside=1" --no-likwid \
            --status "ended by signal 15"
    else
        fail "the line names no journal that exists: '$j'"
    fi ;;
close2)
    # Two threads call Close at once (simulated LIKWID counting) and main
    # returns as soon as its own Close returned; 5 runs. Close is one at a
    # time: the second waits for the first one's delivery, so the result
    # is complete, named, and nothing is left whichever thread won.
    need SL_SIM_DIR SL_SIM_PERFCTR
    for i in 1 2 3 4 5; do
        pair "r$i" sim "$SL_HARMPROC_APP" close2
        one_result "r$i.shim" &&
            check "$R" --timing "work=1x5" --timing-tags work --source full_api \
                --status "used full_api" >/dev/null
        [ "$FAILED" = 0 ] || { show_run "r$i.shim"; break; }
    done ;;
forkclose)
    # A manager thread forks workers (which live on) while main Closes; 3
    # runs, SCOPE_LIKWID_TIMEOUT=10. A worker forked while a helper runs
    # holds the helper's pipes: the shim stops reading at the helper's end,
    # not at EOF, so Close takes its usual time (well under the timeout on
    # a loaded machine too), and its line is true.
    SCOPE_LIKWID_TIMEOUT=10
    export SCOPE_LIKWID_TIMEOUT
    for i in 1 2 3; do
        t0=$(date +%s%N)
        run "r$i.shim" env LD_PRELOAD="$SL_SHIM" "$SL_HARMPROC_APP" forkclose
        took=$(( ($(date +%s%N) - t0) / 1000000 ))
        run "r$i.base" "$SL_HARMPROC_APP" forkclose
        same_behaviour "r$i.base" "r$i.shim"
        [ "$took" -lt 8000 ] || fail "r$i.shim: took $took ms: Close waited for a pipe a worker held (timeout 10 s)"
        one_result "r$i.shim" &&
            check "$R" --timing "work=1x5" --timing-tags work --no-likwid --status "not counting" >/dev/null
        [ "$FAILED" = 0 ] || { show_run "r$i.shim"; break; }
    done ;;
forkafter)
    # A driver times its setup, Closes, then forks 3 workers that each do
    # their own Init..Close: every call in exactly one file, 1 + 3 x 4 = 13.
    pair a real "$SL_HARMPROC_APP" forkafter
    p=$(ls "$T/a.shim"/scope-likwid-*.h5 2>/dev/null | grep -v '\.pid[0-9]*\.h5$')
    kids=$(ls "$T/a.shim"/scope-likwid-*.pid*.h5 2>/dev/null)
    left=$(ls "$T/a.shim" | grep -v '^scope-likwid-[0-9.pid]*\.h5$')
    [ -z "$left" ] || fail "a.shim: left behind: $left"
    [ "$(shim_lines a.shim | grep -c '^scope-likwid: wrote ')" = 4 ] ||
        fail "expected 4 'wrote' lines: $(shim_lines a.shim)"
    if [ -f "$p" ] && [ "$(echo "$kids" | grep -c .)" = 3 ]; then
        check "$p" --timing "setup=1x1" --timing-tags setup --no-likwid --status "not counting" >/dev/null
        ppid=$("$PY" -c 'import h5py, sys; print(int(h5py.File(sys.argv[1], "r")["rank0"].attrs["pid"]))' "$p")
        for c in $kids; do
            check "$c" --timing "worker=1x4" --timing-tags worker --no-likwid --status "not counting" >/dev/null
            got=$("$PY" -c 'import h5py, sys
g = h5py.File(sys.argv[1], "r")["rank0"]
print(int(g.attrs["parent_pid"]) if "parent_pid" in g.attrs else "-")' "$c")
            [ "$got" = "$ppid" ] || fail "$c: parent_pid $got: expected $ppid"
        done
    else
        fail "expected the driver's result and 3 workers' (.pidN.h5), found: $(ls "$T/a.shim")"
    fi ;;
pool)
    # A multiprocessing pool (fork) of 2 workers after Init, markers
    # through ctypes, 40 tasks; 3 runs. Workers end with os._exit (no exit
    # hook) or by the pool's SIGTERM: the parent delivers at its Close the
    # journals its children left. Every call in exactly one result, no
    # journal left.
    for i in 1 2 3; do
        pair "r$i" real "$PY" "$(dirname "$0")/harm_pool.py"
        p=$(ls "$T/r$i.shim"/scope-likwid-*.h5 2>/dev/null | grep -v '\.pid[0-9]*\.h5$')
        left=$(ls "$T/r$i.shim" | grep -v '^scope-likwid-[0-9.pid]*\.h5$')
        [ -z "$left" ] || fail "r$i.shim: left behind: $left"
        [ -f "$p" ] && check "$p" --timing "main=1x2" --timing-tags main --no-likwid >/dev/null ||
            fail "r$i.shim: no parent's result with main=1x2: $(ls "$T/r$i.shim")"
        n=0
        for c in $(ls "$T/r$i.shim"/scope-likwid-*.pid*.h5 2>/dev/null); do
            check "$c" --timing-tags task --no-likwid >/dev/null
            k=$("$PY" -c 'import h5py, sys
print(int(h5py.File(sys.argv[1], "r")["rank0/regions/task/call_counts"][()].sum()))' "$c")
            n=$((n + k))
        done
        [ "$n" = 40 ] || fail "r$i.shim: the workers' results hold $n of 40 task calls"
        [ "$FAILED" = 0 ] || { show_run "r$i.shim"; break; }
    done ;;
bigenv)
    # A 200 KiB environment variable set after Init (more than execve takes
    # in one string); LIKWID counting (simulated): the helpers start with
    # it left out of their environment, and the result is complete.
    need SL_SIM_DIR SL_SIM_PERFCTR
    pair a sim "$SL_HARMPROC_APP" bigenv
    one_result a.shim &&
        check "$R" --timing "work=1x5" --timing-tags work --source full_api --status "used full_api" ;;
ctor)
    # likwid_markerInit in a library's constructor (it may run before the
    # preloaded shim's own constructors), then SIGTERM inside a region:
    # the shim knows its own path at that Init, and the handler's writer
    # delivers the result before the process dies of the signal.
    # The helpers are found beside the shim, by the shim's own path.
    need SL_HARM_CTOR_APP
    unset SCOPE_LIKWID_WRITER SCOPE_LIKWID_COLLECTOR
    pair a real "$SL_HARM_CTOR_APP"
    [ "$(rc_of a.shim)" = 143 ] || fail "exit status $(rc_of a.shim): expected 143 (SIGTERM)"
    one_result a.shim &&
        check "$R" --timing "work=1x3" --timing-tags work inside --open "inside=1" --no-likwid \
            --status "by the shim's signal handler: the process was ended by signal 15" ;;
altstack|altstack-exit)
    # A crash handler on an 8 KiB alternate signal stack calls Close and
    # re-raises (exit status 139), or calls exit(3) (the exit hook); 3 runs.
    # Close and the exit hook run on a stack of their own there: no
    # overflow, the handler's own line is kept, the result is written.
    if [ "${SL_SANITIZE:-none}" != none ]; then
        skip "b_sanitize=$SL_SANITIZE: the sanitizer reports the crash itself"
    fi
    for i in 1 2 3; do
        pair "r$i" real "$SL_HARMPROC_APP" "$1"
        one_result "r$i.shim" &&
            if [ "$1" = altstack ]; then
                check "$R" --timing "work=1x3" --timing-tags work inside --open "inside=1" \
                    --no-likwid --status "not counting" >/dev/null
            else
                check "$R" --timing "work=1x3" --timing-tags work inside --open "inside=1" \
                    --no-likwid --status "exited without likwid_markerClose" >/dev/null
            fi
        [ "$FAILED" = 0 ] || { show_run "r$i.shim"; break; }
    done ;;
drop-nobody)
    # A root service in a root-owned 0755 working directory drops to nobody
    # (setgroups, setgid, setuid) after Init. Before the setuid, while the
    # process may, the shim makes the result file at its name (root's, as
    # the user of Init, mode 0600) and holds it; the writer, as nobody,
    # fills it through its stdin. The journal is handed to nobody (moved
    # to TMPDIR) and removed after delivery. One 'wrote' line, every call.
    # The same when SIGTERM ends it after the drop (the signal handler's
    # writer fills the result from the journal).
    [ "$(id -u)" = 0 ] || skip "needs root (setuid to 65534 after Init)"
    chmod 755 "$T"
    mkdir -m 1777 "$T/tmpdir"
    TMPDIR=$T/tmpdir
    export TMPDIR
    pair a real "$SL_HARMPROC_APP" drop nobody
    [ "$(stat -c %U:%a "$T/a.shim")" = root:755 ] || fail "a.shim: not a root-owned 0755 directory"
    if one_result a.shim; then
        check "$R" --timing "work=1x5" --timing-tags work --no-likwid --status "not counting"
        [ "$(stat -c %u:%g:%a "$R")" = 0:0:600 ] ||
            fail "$R: owner and mode $(stat -c %u:%g:%a "$R"): expected 0:0:600 (the user of Init, private)"
        user=$("$PY" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["metadata"].attrs["user"])' "$R")
        [ "$user" = "$(id -un)" ] || fail "$R: /metadata user '$user': expected '$(id -un)', the user of Init"
    fi
    [ "$(shim_lines a.shim | wc -l)" = 1 ] || fail "a.shim: expected only the 'wrote' line: $(shim_lines a.shim)"
    # nothing of it in TMPDIR or /tmp either (journal, rescue file)
    p=$(basename "${R:-none}" .h5)
    left=$(ls "$T/tmpdir" /tmp 2>/dev/null | grep -F "$p.")
    [ -z "$left" ] || fail "a.shim: left behind in TMPDIR or /tmp: $left"
    pair s real "$SL_HARMPROC_APP" drop nobody+term
    [ "$(rc_of s.shim)" = 143 ] || fail "s.shim: exit status $(rc_of s.shim): expected 143 (SIGTERM)"
    if one_result s.shim; then
        check "$R" --timing "work=1x3" --timing-tags work inside --open "inside=1" --no-likwid \
            --status "the process was ended by signal 15" >/dev/null
        [ "$(stat -c %u:%a "$R")" = 0:600 ] || fail "$R: owner and mode $(stat -c %u:%a "$R"): expected 0:600"
    fi
    p=$(basename "${R:-none}" .h5)
    left=$(ls "$T/tmpdir" /tmp 2>/dev/null | grep -F "$p.")
    [ -z "$left" ] || fail "s.shim: left behind in TMPDIR or /tmp: $left" ;;
drop-nobody-raw)
    # The same drop by system calls, past libc: the shim does not see it.
    # Close falls back: the writer (nobody) cannot create the result in
    # the root-owned directory, the rescue file goes to TMPDIR and the
    # journal it may not remove is named, each line with the command that
    # works on its file.
    [ "$(id -u)" = 0 ] || skip "needs root (setuid to 65534 after Init)"
    mkdir -m 1777 "$T/tmpdir"
    TMPDIR=$T/tmpdir
    export TMPDIR
    pair a real "$SL_HARMPROC_APP" drop nobody-raw
    check_rescue a.shim --timing "work=1x5" --timing-tags work --no-likwid --status "not counting"
    expect_line a.shim "could not remove the journal .*\.journal \(Permission denied: the process changed its user or root" "the journal named"
    j=$(shim_lines a.shim | sed -n "s/.*'scope-likwid recover \([^']*\)' removes it.*/\1/p")
    if [ -f "$j" ]; then
        "$SL_CLI" recover "$j" >"$T/rec.log" 2>&1 || fail "scope-likwid recover $j failed: $(cat "$T/rec.log")"
        [ -e "$j" ] && fail "recover left $j"
    else
        fail "the line names no journal that exists: '$j'"
    fi ;;
drop-chroot)
    # A service chroots after Init into an empty directory (its jail), or
    # into its working directory. The names of Init are held (the root and
    # the result's directory as descriptors): the writer runs from the root
    # of Init, the result is where the 'wrote' line says, outside the jail;
    # nothing is left in the jail, no journal anywhere. The same under
    # `scope-likwid run`, whose host runs the writer outside the jail.
    [ "$(id -u)" = 0 ] || skip "needs root (chroot after Init)"
    # LeakSanitizer reads /proc/PID/task at exit, which the new root lacks
    # (with or without the shim): no leak check in this case.
    [ "${SL_SANITIZE:-none}" = none ] || { ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"; export ASAN_OPTIONS; }
    SCOPE_LIKWID_PERFCTR=none
    export SCOPE_LIKWID_PERFCTR
    mkdir -m 755 "$T/jail" "$T/jail2"
    for how in jail chroot run; do
        case $how in
        jail) pair j real "$SL_HARMPROC_APP" drop "jail=$T/jail" ;;
        chroot) pair j real "$SL_HARMPROC_APP" drop chroot ;;
        run)
            run j.base "$SL_HARMPROC_APP" drop "jail=$T/jail2"
            run j.shim "$SL_CLI" run -- "$SL_HARMPROC_APP" drop "jail=$T/jail2"
            same_behaviour j.base j.shim ;;
        esac
        w=$(shim_lines j.shim | sed -n 's/^scope-likwid: wrote //p')
        R=$(ls "$T/j.shim"/*.h5 2>/dev/null)
        if [ "$how" = run ]; then
            grep -q "result in $R\$" "$T/j.shim.err" || fail "$how: run names no 'result in $R': $(cat "$T/j.shim.err")"
        else
            [ -n "$R" ] && [ "$w" = "$R" ] || fail "$how: 'wrote $w' but the result in $T/j.shim is '$R'"
        fi
        [ -f "$R" ] && check "$R" --timing "work=1x5" --timing-tags work --no-likwid --status "not counting" >/dev/null
        left=$(ls "$T/j.shim" "$T/jail" "$T/jail2" | grep -v '\.h5$' | grep -v '^$' | grep -v ':$')
        [ -z "$left" ] || fail "$how: left behind (journal, rescue file, or in the jail): $left"
        [ "$(shim_lines j.shim | grep -v '^scope-likwid: run: ' | grep -vc '^scope-likwid: wrote ')" = 0 ] ||
            fail "$how: a line besides 'wrote': $(shim_lines j.shim)"
        [ "$FAILED" = 0 ] || { show_run j.shim; break; }
        rm -rf "$T/j.base" "$T/j.shim" "$T"/j.base.* "$T"/j.shim.*
    done ;;
drop-closefrom)
    # The application closes every descriptor from 3 up (closefrom) after
    # Init, which takes what the shim held. Alone: the root and the
    # result's directory are taken again by their paths; one result.
    # After a drop to nobody: the result made for it is out of reach
    # (root's, its descriptor gone), so the rescue file goes to TMPDIR and
    # the one line says so, naming the empty file; the journal (handed to
    # nobody before the drop) is removed. After a chroot: nothing can be
    # held or reached; the line names the journal outside the jail, where
    # recover makes the result.
    [ "$(id -u)" = 0 ] || skip "needs root (setuid and chroot after Init)"
    [ "${SL_SANITIZE:-none}" = none ] || { ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"; export ASAN_OPTIONS; }
    chmod 755 "$T"
    mkdir -m 1777 "$T/tmpdir"
    mkdir -m 755 "$T/jail"
    TMPDIR=$T/tmpdir
    export TMPDIR
    pair c real "$SL_HARMPROC_APP" drop closefrom
    one_result c.shim && check "$R" --timing "work=1x5" --timing-tags work --no-likwid >/dev/null
    pair d real "$SL_HARMPROC_APP" drop nobody+closefrom
    out=$(ls "$T/d.shim"/*.h5 2>/dev/null)
    expect_line d.shim "could not write $out \(.*; $out, made for the result when the process changed its user, could not be written: its descriptor was closed \(by the application\)" \
        "the file made for the result named, and why it is empty"
    [ -f "$out" ] && [ ! -s "$out" ] || fail "d.shim: '$out' is not the empty file the line names"
    check_rescue d.shim --timing "work=1x5" --timing-tags work --no-likwid >/dev/null
    left=$(ls "$T/d.shim" "$T/tmpdir" | grep '\.journal$')
    [ -z "$left" ] || fail "d.shim: a journal left: $left"
    pair e real "$SL_HARMPROC_APP" drop "jail=$T/jail+closefrom"
    expect_line e.shim "could not save the rescue file .*the process changed its root directory since likwid_markerInit\); the timing data stays in the journal $T/e.shim/" \
        "the journal by its path outside the jail"
    j=$(shim_lines e.shim | sed -n "s/.*recover it with 'scope-likwid recover \([^']*\)'.*/\1/p")
    if [ -f "$j" ]; then
        "$SL_CLI" recover "$j" >"$T/rec.log" 2>&1 || fail "scope-likwid recover $j failed: $(cat "$T/rec.log")"
        f=$(result_file e.shim) && check "$f" --timing "work=1x5" --timing-tags work --no-likwid \
            --status "could save nothing" >/dev/null
    else
        fail "the line names no journal that exists: '$j'"
    fi
    [ -z "$(ls "$T/jail")" ] || fail "e.shim: files in the jail: $(ls "$T/jail")"
    [ "$FAILED" = 0 ] || { show_run c.shim; show_run d.shim; show_run e.shim; } ;;
passwd)
    # The passwd lookup for the user's name (%u, /metadata's user) may load
    # the site's NSS modules (LDAP, SSSD): the application's process makes
    # it only for a %u in SCOPE_LIKWID_OUTPUT, once, at Init; otherwise the
    # writer names the uid. Every getpwuid_r/getpwuid is counted with the
    # program that made it (pw_count.c). /metadata's user is the passwd
    # name of the user either way.
    need SL_PW_COUNT
    me=$(id -un)
    for how in default template; do
        PW_COUNT_OUT=$T/$how.pw
        export PW_COUNT_OUT
        if [ "$how" = template ]; then
            SCOPE_LIKWID_OUTPUT=$T/$how.shim/%u/
            export SCOPE_LIKWID_OUTPUT
        fi
        run "$how.base" env LD_PRELOAD="$SL_PW_COUNT" "$SL_HARMPROC_APP" plain
        run "$how.shim" env LD_PRELOAD="$SL_SHIM:$SL_PW_COUNT" "$SL_HARMPROC_APP" plain
        same_behaviour "$how.base" "$how.shim"
        n=$(grep -cx "$SL_HARMPROC_APP" "$PW_COUNT_OUT" 2>/dev/null)
        want=0
        [ "$how" = template ] && want=1
        [ "${n:-0}" = "$want" ] ||
            fail "$how: $n passwd lookups in the application (expected $want): $(cat "$PW_COUNT_OUT" 2>/dev/null)"
        R=$(wrote_path "$how.shim")
        if [ -f "$R" ]; then
            check "$R" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null
            user=$("$PY" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["metadata"].attrs["user"])' "$R")
            [ "$user" = "$me" ] || fail "$how: $R: /metadata user '$user': expected '$me'"
        else
            fail "$how: no result named: $(shim_lines "$how.shim")"
        fi
        [ "$how" = default ] || case $R in "$T/$how.shim/$me/"*) ;; *) fail "$how: $R is not in %u=$me" ;; esac
        unset SCOPE_LIKWID_OUTPUT
    done ;;
vfull)
    # ulimit -v with the address space all but full at Close (0, 32, 64,
    # 256 KiB left): whatever the shim manages, every line is true. "wrote
    # X": X exists with the 3 calls; "could not write X": X does not exist,
    # and the rescue file it names exists and converts to the 3 calls.
    if [ "${SL_SANITIZE:-none}" != none ]; then
        skip "b_sanitize=$SL_SANITIZE: a sanitizer's shadow memory does not fit under ulimit -v"
    fi
    for k in 0 32 64 256; do
        pair "v$k" real sh -c 'ulimit -v 400000 && exec "$@"' sh "$SL_HARMPROC_APP" vfull "$k"
        out=$T/v$k.shim/scope-likwid-*.h5
        w=$(wrote_path "v$k.shim")
        if [ -n "$w" ]; then
            [ -f "$w" ] && check "$w" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null ||
                fail "v$k.shim: the line says 'wrote $w': no such result with 3 calls"
        elif shim_lines "v$k.shim" | grep -q "could not write "; then
            ls $out >/dev/null 2>&1 && fail "v$k.shim: 'could not write' while a result exists: $(ls $out)"
            check_rescue "v$k.shim" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null
        else
            fail "v$k.shim: neither 'wrote' nor 'could not write': $(shim_lines "v$k.shim")"
        fi
        [ "$FAILED" = 0 ] || { show_run "v$k.shim"; break; }
    done
    [ -n "$(wrote_path v256.shim)" ] || fail "v256.shim: 256 KiB left at Close: expected the result written" ;;
vroom)
    # ulimit -v near what the application needs: after Init and 3 timed
    # calls the shim has taken less than 1 MiB of its address space (its
    # library, the fork table, the journal's and the pool's first 64 KiB),
    # where the journal's first piece alone used to take 1 MiB.
    if [ "${SL_SANITIZE:-none}" != none ]; then
        skip "b_sanitize=$SL_SANITIZE: a sanitizer's shadow memory does not fit under ulimit -v"
    fi
    run v.base sh -c 'ulimit -v 400000 && exec "$@"' sh "$SL_HARMPROC_APP" vroom
    run v.shim sh -c 'ulimit -v 400000 && exec "$@"' sh env LD_PRELOAD="$SL_SHIM" "$SL_HARMPROC_APP" vroom
    [ "$(rc_of v.base)" = 0 ] && [ "$(rc_of v.shim)" = 0 ] || fail "exit status $(rc_of v.base) without the shim, $(rc_of v.shim) with it: expected 0 both"
    base=$(sed -n 's/^room //p' "$T/v.base.out")
    with=$(sed -n 's/^room //p' "$T/v.shim.out")
    say "address space left: $base KiB without the shim, $with KiB with it"
    [ -n "$base" ] && [ -n "$with" ] && [ $((base - with)) -lt 1024 ] ||
        fail "the shim took $((${base:-0} - ${with:-0})) KiB of address space: expected under 1024 KiB"
    one_result v.shim && check "$R" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null ;;
rusage)
    # The application's getrusage(RUSAGE_CHILDREN) after Close: it started
    # no process, so every field is 0 without the shim. Under `scope-likwid
    # run` the shim's helpers are run's children, never the application's:
    # the same zeros, for the writer alone (the real LIKWID, not counting)
    # and for the collector and the writer (the simulated LIKWID counting,
    # run under the simulated likwid-perfctr).
    need SL_SIM_DIR SL_SIM_PERFCTR
    SCOPE_LIKWID_PERFCTR=none
    export SCOPE_LIKWID_PERFCTR
    run a.base "$SL_HARMPROC_APP" rusage
    run a.shim "$SL_CLI" run -- "$SL_HARMPROC_APP" rusage
    same_behaviour a.base a.shim
    grep -q '^children: utime 0.000000 stime 0.000000 maxrss 0 minflt 0 ' "$T/a.base.out" ||
        fail "a.base: the application's children are not all zero: $(cat "$T/a.base.out")"
    R=$(ls "$T/a.shim"/scope-likwid-run-*.h5 2>/dev/null)
    [ -f "$R" ] && check "$R" --timing "work=1x5" --timing-tags work --no-likwid >/dev/null ||
        fail "a.shim: expected one result, found: $(ls "$T/a.shim")"
    sim c.base "$SL_HARMPROC_APP" rusage
    sim c.shim "$SL_CLI" run -- "$SL_HARMPROC_APP" rusage
    same_behaviour c.base c.shim
    R=$(ls "$T/c.shim"/scope-likwid-run-*.h5 2>/dev/null)
    [ -f "$R" ] && check "$R" --timing "work=1x5" --timing-tags work --source full_api >/dev/null ||
        fail "c.shim: expected one result with counters, found: $(ls "$T/c.shim")"
    [ "$FAILED" = 0 ] || { show_run c.base; show_run c.shim; } ;;
subreaper)
    # A supervisor (PR_SET_CHILD_SUBREAPER) runs the application, which is
    # killed (SIGKILL) while its Close waits for a slow writer; 3 runs. The
    # writer goes on and delivers, as without a supervisor. Under
    # `scope-likwid run` the writer is run's, not the application's: the
    # supervisor reaps only the process it started, and run waits for the
    # writer, so there is one result with every call and no journal left.
    SCOPE_LIKWID_PERFCTR=none
    export SCOPE_LIKWID_PERFCTR
    printf '#!/bin/sh\nsleep 1\nexec "%s" "$@"\n' "$SL_WRITE" >"$T/slow-writer"
    chmod +x "$T/slow-writer"
    for i in 1 2 3; do
        run "r$i.base" "$SL_HARMPROC_APP" supervise "$SL_HARMPROC_APP" killclose
        run "r$i.shim" env SCOPE_LIKWID_WRITER="$T/slow-writer" \
            "$SL_HARMPROC_APP" supervise "$SL_CLI" run -- "$SL_HARMPROC_APP" killclose
        same_behaviour "r$i.base" "r$i.shim"
        grep -q 'the command ended with 137' "$T/r$i.base.out" ||
            fail "r$i.base: the application was not killed: $(cat "$T/r$i.base.out")"
        R=$(ls "$T/r$i.shim"/scope-likwid-run-*.h5 2>/dev/null)
        [ -f "$R" ] && check "$R" --timing "work=1x5" --timing-tags work --no-likwid >/dev/null ||
            fail "r$i.shim: expected one result, found: $(ls "$T/r$i.shim")"
        left=$(ls "$T/r$i.shim" | grep -v '^scope-likwid-run-[0-9]*\.h5$')
        [ -z "$left" ] || fail "r$i.shim: left behind: $left"
        [ "$FAILED" = 0 ] || { show_run "r$i.base"; show_run "r$i.shim"; break; }
    done ;;
host-fallback)
    # SCOPE_LIKWID_RUN_HOST names a host that is not there, one that hangs
    # up, one that refuses after the handshake: the shim starts its helpers
    # itself (one result, no line but 'wrote'). One that answers the hello
    # with junk, or not at all: it failed its check, one line says so, and
    # the shim starts its helpers itself (one result). One that passes the
    # handshake, takes the request and never answers: Close ends within
    # seconds, the timing saved in the rescue file, and the line says why.
    # The stand-in host: tests/security/slhost.py.
    key=000102030405060708090a0b0c0d0e0f
    SCOPE_LIKWID_TIMEOUT=10
    export SCOPE_LIKWID_TIMEOUT
    run a.base "$SL_HARMPROC_APP" plain
    for how in absent hangup refuse garbage mute silent; do
        hname=scope-likwid-test-$$-$how
        pid=
        if [ "$how" != absent ]; then
            "$PY" "$SL_SRC/tests/security/slhost.py" "$hname" "$how" "$T/$how.ready" "$T/$how.log" "$key" &
            pid=$!
            n=0
            while [ ! -f "$T/$how.ready" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
        fi
        t0=$(date +%s)
        run "$how.shim" env SCOPE_LIKWID_RUN_HOST="@$hname" SCOPE_LIKWID_RUN_HOST_KEY=$key \
            LD_PRELOAD="$SL_SHIM" "$SL_HARMPROC_APP" plain
        took=$(($(date +%s) - t0))
        [ -n "$pid" ] && kill "$pid" 2>/dev/null
        same_behaviour a.base "$how.shim"
        case $how in
        silent)
            [ "$took" -lt 9 ] || fail "$how.shim: took $took s: expected Close within the 5 s start deadline"
            expect_line "$how.shim" "could not write .*writer could not be started" "why the writer did not run"
            check_rescue "$how.shim" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null ;;
        garbage|mute)
            [ "$how" = garbage ] && want="it did not prove it is the run that started this process" ||
                want="it did not answer"
            expect_line "$how.shim" "run's helper host SCOPE_LIKWID_RUN_HOST=@$hname failed its check \\($want\\): the shim starts its helpers itself" \
                "the host named as failing its check"
            [ "$(shim_lines "$how.shim" | grep -vc "^scope-likwid: wrote \|failed its check")" = 0 ] ||
                fail "$how.shim: another line: $(shim_lines "$how.shim")"
            # nothing but the hello (a nonce) went to a host that failed its check
            [ "$how" != garbage ] || [ "$(cat "$T/$how.log" 2>/dev/null)" = "BYTES 24" ] ||
                fail "$how.shim: the host that failed its check got $(cat "$T/$how.log" 2>/dev/null): expected BYTES 24 (the hello)"
            one_result "$how.shim" && check "$R" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null ;;
        *)
            [ "$(shim_lines "$how.shim" | grep -vc '^scope-likwid: wrote ')" = 0 ] ||
                fail "$how.shim: a line besides 'wrote': $(shim_lines "$how.shim")"
            one_result "$how.shim" && check "$R" --timing "work=1x3" --timing-tags work --no-likwid >/dev/null ;;
        esac
        [ "$FAILED" = 0 ] || { show_run "$how.shim"; break; }
    done ;;
run-drop-nobody)
    # drop-nobody under `scope-likwid run`: run's helper host refuses a
    # process that is no longer its user (a helper started by run would
    # write as root what the application's user asks), so the shim starts
    # its writer itself, as nobody; it fills the result the shim made
    # before the setuid (root's, as the user of Init), and run, whose
    # report the shim held open, names it. Nothing else is left.
    [ "$(id -u)" = 0 ] || skip "needs root (setuid to 65534 after Init)"
    mkdir -m 1777 "$T/tmpdir"
    TMPDIR=$T/tmpdir
    SCOPE_LIKWID_PERFCTR=none
    export TMPDIR SCOPE_LIKWID_PERFCTR
    run a.base "$SL_HARMPROC_APP" drop nobody
    run a.shim "$SL_CLI" run -- "$SL_HARMPROC_APP" drop nobody
    same_behaviour a.base a.shim
    R=$(ls "$T/a.shim"/scope-likwid-run-*.h5 2>/dev/null)
    if [ -f "$R" ]; then
        check "$R" --timing "work=1x5" --timing-tags work --no-likwid >/dev/null
        [ "$(stat -c %u:%a "$R")" = 0:600 ] || fail "$R: owner and mode $(stat -c %u:%a "$R"): expected 0:600"
        grep -q "^scope-likwid: run: result in $R\$" "$T/a.shim.err" || fail "a.shim: run does not name $R"
    else
        fail "a.shim: expected one result, found: $(ls "$T/a.shim")"
    fi
    p=$(basename "${R:-none}" .h5)
    left=$(ls "$T/a.shim" "$T/tmpdir" /tmp | grep -F "$p." | grep -v '\.h5$')
    [ -z "$left" ] || fail "a.shim: left behind: $left" ;;
run-other-mntns)
    # scope-likwid run -- unshare -m APP: the application lives in a mount
    # namespace of its own, where its paths need not mean what they mean to
    # run. The host refuses it (a writer run started would resolve the
    # output path in run's namespace); the shim starts its helpers itself,
    # which its children's resource usage shows, and the result is written.
    [ "$(id -u)" = 0 ] || skip "needs root (unshare -m)"
    unshare -m true 2>/dev/null || skip "unshare -m fails here"
    SCOPE_LIKWID_PERFCTR=none
    export SCOPE_LIKWID_PERFCTR
    run a.shim "$SL_CLI" run -- unshare -m "$SL_HARMPROC_APP" rusage
    [ "$(rc_of a.shim)" = 0 ] || fail "a.shim: exit status $(rc_of a.shim): expected 0"
    grep -q '^children: utime 0.000000 stime 0.000000 maxrss 0 ' "$T/a.shim.out" &&
        fail "a.shim: the application's children are all zero: the host started a helper for another mount namespace"
    R=$(ls "$T/a.shim"/scope-likwid-run-*.h5 2>/dev/null)
    [ -f "$R" ] && check "$R" --timing "work=1x5" --timing-tags work --no-likwid >/dev/null ||
        fail "a.shim: expected one result, found: $(ls "$T/a.shim")"
    [ "$FAILED" = 0 ] || show_run a.shim ;;
*)
    fail "unknown case '${1:-}'" ;;
esac
[ "$FAILED" = 0 ] || [ ! -f "$T/a.shim.rc" ] || { show_run a.base; show_run a.shim; }
finish
