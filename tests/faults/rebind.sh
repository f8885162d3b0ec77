#!/bin/sh
# Objects bound past the global scope (RTLD_DEEPBIND): the plugin of
# harm_plugin.c, linked with liblikwid, whose marker calls find LIKWID
# before the preloaded shim. The shim rewrites its GOT slots to its own
# entry points (after the dlopen, or at Init for an object loaded where
# its dlopen does not see it); where it cannot, one line names the object
# at exit and says why. Every run behaves as without the shim (exit
# status, stdout, stderr); the calls are checked with h5py.
#   rebind.sh lazy         loaded RTLD_LAZY: slots not bound yet end at the shim
#   rebind.sh reload       loaded, run, unloaded, loaded again: both runs timed
#   rebind.sh relro        built -z now -fno-plt: every call through a GLOB_DAT
#                          slot on the RELRO pages (made writable for the store)
#   rebind.sh seen         loaded before the host's Init, regions after it
#   rebind.sh unseen       loaded with dlmopen(LM_ID_BASE) (not wrapped), RTLD_NOW:
#                          rewritten at Init
#   rebind.sh unseen-lazy  the same with RTLD_LAZY: nothing bound at Init, so
#                          nothing to go by: named at exit
#   rebind.sh threads      a thread calls the plugin's markers while Init rewrites
#                          its slots: no crash, every call of the shim's consistent
#   rebind.sh seccomp-errno  a seccomp filter refuses mprotect(PROT_WRITE): named
#   rebind.sh seccomp-kill   a filter installed after the first rewrite that
#                          would kill at mprotect(PROT_WRITE): not tried, named
#   rebind.sh off          SCOPE_LIKWID_REBIND=0: named, nothing rewritten
#   rebind.sh bare-name    names without '/': a host with RUNPATH loads the
#                          plugin by name and by $ORIGIN as without the shim
#                          (its RTLD_DEEPBIND loads are then named, not
#                          rewritten: the load depends on the caller); a
#                          host without RUNPATH, LD_LIBRARY_PATH: rewritten
# The real LIKWID (no-count mode).
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_HARM_HOST SL_HARM_PLUGIN SL_HARM_PLUGIN_NOW SL_REBIND_HOST SL_REBIND_HOST_RPATH SL_CHECKER
pick_python
case=${1:-}
if [ "${SL_SANITIZE:-none}" != none ]; then
    skip "b_sanitize=$SL_SANITIZE: the sanitizer runtime refuses RTLD_DEEPBIND (google/sanitizers#611)"
fi
plugin_dir=$(dirname "$SL_HARM_PLUGIN")

# timed RUN CALLS: RUN's one result file holds exactly CALLS calls of
# "plug" (h5py), and the shim said nothing but the wrote line.
timed() {
    plug_results "$1" 1 "$2"
    [ "$(shim_lines "$1" | grep -vc '^scope-likwid: wrote ')" = 0 ] ||
        fail "$1: expected only the wrote line: $(shim_lines "$1")"
}

# named RUN WHY: exactly one line names the plugin and says WHY (ERE).
named() {
    expect_line "$1" "libharm_plugin(_now|_copy)?\.so calls LIKWID's likwid_marker[A-Za-z]* directly, not through the shim \(bound past the global scope, as RTLD_DEEPBIND does; $2\)" \
        "one line naming the plugin and why it was not rewritten"
    [ "$(shim_lines "$1" | grep -c 'directly, not through the shim')" = 1 ] ||
        fail "$1: expected exactly one naming line: $(shim_lines "$1")"
}

# plug_calls FILE: the calls of "plug" in FILE (h5py).
plug_calls() {
    "$PY" - "$1" <<'PY'
import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = f[[k for k in f if k.startswith("rank")][0]]["timing/regions"]
tag = lambda r: r.attrs["tag"].decode() if isinstance(r.attrs["tag"], bytes) else str(r.attrs["tag"])
print(sum(int(r["call_counts"][()].sum()) for r in g.values() if tag(r) == "plug"))
PY
}

no_result() {
    ls "$T/$1"/scope-likwid-*.h5 >/dev/null 2>&1 && fail "$1: a result file without any timed call: $(ls "$T/$1")"
}

case $case in
lazy)
    pair a real "$SL_HARM_HOST" deepbind-lazy "$SL_HARM_PLUGIN"
    timed a.shim 10 ;;
reload)
    pair a real "$SL_HARM_HOST" deepbind-reload "$SL_HARM_PLUGIN"
    plug_results a.shim 2 10 ;;
relro)
    # The fixture: bound at load, its marker calls through GLOB_DAT slots.
    readelf -dW "$SL_HARM_PLUGIN_NOW" | grep -Eq 'BIND_NOW|FLAGS.*NOW' ||
        fail "$SL_HARM_PLUGIN_NOW: not linked -z now"
    readelf -rW "$SL_HARM_PLUGIN_NOW" | grep -q 'GLOB_DAT.*likwid_markerStartRegion' ||
        fail "$SL_HARM_PLUGIN_NOW: no GLOB_DAT slot for likwid_markerStartRegion"
    pair a real "$SL_HARM_HOST" deepbind-lazy "$SL_HARM_PLUGIN_NOW"
    timed a.shim 10 ;;
seen|unseen)
    pair a real "$SL_REBIND_HOST" "$case" "$SL_HARM_PLUGIN"
    timed a.shim 10 ;;
unseen-lazy)
    pair a real "$SL_REBIND_HOST" unseen-lazy "$SL_HARM_PLUGIN"
    named a.shim "the shim did not find it bound to LIKWID at its dlopen nor at a likwid_markerInit"
    f=$(result_file a.shim) || fail "no result file of the host's Init..Close: $(shim_lines a.shim)"
    [ -n "$f" ] && [ "$(plug_calls "$f")" = 0 ] || fail "a.shim: calls of plug in the result: ${f:+$(plug_calls "$f")}" ;;
threads)
    SCOPE_LIKWID_MAX_CALLS=100000000    # every call kept: calls_exact counts them
    export SCOPE_LIKWID_MAX_CALLS
    pair a real "$SL_REBIND_HOST" threads "$SL_HARM_PLUGIN"
    f=$(result_file a.shim) || fail "no result file: $(shim_lines a.shim)"
    if [ -n "$f" ]; then
        # The calls after the rewrite: at least one, each one whole.
        calls_exact "$f"
        [ "$(plug_calls "$f")" -gt 0 ] || fail "no call of plug after the rewrite"
    fi ;;
seccomp-errno)
    [ "$(uname -m)" = x86_64 ] || skip "the seccomp filter is written for x86_64"
    pair a real "$SL_REBIND_HOST" seccomp-errno "$SL_HARM_PLUGIN_NOW"
    named a.shim "rewriting its slots failed: Operation not permitted"
    no_result a.shim ;;
seccomp-kill)
    [ "$(uname -m)" = x86_64 ] || skip "the seccomp filter is written for x86_64"
    cp "$SL_HARM_PLUGIN_NOW" "$T/libharm_plugin_copy.so"
    pair a real "$SL_REBIND_HOST" seccomp-kill "$SL_HARM_PLUGIN_NOW" "$T/libharm_plugin_copy.so"
    [ "$(rc_of a.shim)" = 0 ] || fail "a.shim: exit status $(rc_of a.shim)"
    f=$(result_file a.shim) || fail "no result file of the first load: $(shim_lines a.shim)"
    [ -n "$f" ] && calls_exact "$f" "plug=10"
    named a.shim "its slots were not made writable: a seccomp filter was installed since the shim first looked" ;;
off)
    SCOPE_LIKWID_REBIND=0
    export SCOPE_LIKWID_REBIND
    pair a real "$SL_HARM_HOST" deepbind "$SL_HARM_PLUGIN"
    named a.shim "rewriting its slots is off \(SCOPE_LIKWID_REBIND=0\)"
    no_result a.shim ;;
bare-name)
    # The load follows the caller's RUNPATH and $ORIGIN, not the shim's.
    pair a real "$SL_REBIND_HOST_RPATH" bare libharm_plugin.so plain
    grep -q 'dlopen ok' "$T/a.shim.out" || fail "a.shim: the plugin was not found along the host's RUNPATH"
    timed a.shim 10
    pair b real "$SL_REBIND_HOST_RPATH" bare libharm_plugin.so deep
    grep -q 'dlopen ok' "$T/b.shim.out" || fail "b.shim: the plugin was not found along the host's RUNPATH"
    named b.shim "the shim did not find it bound to LIKWID at its dlopen nor at a likwid_markerInit"
    pair c real "$SL_REBIND_HOST_RPATH" bare '$ORIGIN/libharm_plugin.so' deep
    grep -q 'dlopen ok' "$T/c.shim.out" || fail "c.shim: \$ORIGIN was not the host's directory"
    named c.shim "the shim did not find it bound to LIKWID at its dlopen nor at a likwid_markerInit"
    # A caller without RUNPATH searches as the shim does: rewritten.
    LD_LIBRARY_PATH=$plugin_dir
    export LD_LIBRARY_PATH
    pair d real "$SL_REBIND_HOST" bare libharm_plugin.so deep
    grep -q 'dlopen ok' "$T/d.shim.out" || fail "d.shim: the plugin was not found along LD_LIBRARY_PATH"
    timed d.shim 10 ;;
*)
    echo "usage: rebind.sh lazy|reload|relro|seen|unseen|unseen-lazy|threads|seccomp-errno|seccomp-kill|off|bare-name" >&2
    exit 2 ;;
esac
finish
