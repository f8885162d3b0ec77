#!/bin/sh
# LIKWID 5.2's collector path with the application's clock and access
# daemon, on the emulated PMU (AMD Zen 2): the solver under likwid-perfctr -M 0
# -C 0-1 -g CLOCK -m with the shim. The collector is handed the clock LIKWID
# measured in the application (its third and fourth arguments) and the
# daemon LIKWID's configuration found (its fifth); LIKWID's own metrics in
# the result use the clock: "Runtime unhalted [s]" = PMC1*inverseClock and
# "Clock [MHz]" = 1.E-06*(FIXC1/FIXC2)/inverseClock (zen2's CLOCK group) with
# inverseClock = 1 / that clock, and the collector's LIKWID runs no shell
# for its daemon (a bash first in PATH logs who starts it). Then the
# collector alone on that marker file: given a clock it ends well within the
# second LIKWID's own measurement sleeps (2 x 500 ms), given 3 GHz its
# metrics are those of 3 GHz.
# Environment: SL_SRC, SL_BUILD. Exit 0 pass, 1 fail, 77 skip.
set -u
src=$SL_SRC build=$SL_BUILD
. "$src/tests/emulated/emul_lib.sh"
emul_voice emulated-collector-clock
emul_begin
emul_topo zen2 "$T/host-topo.cfg" "$T/topo.cfg" || { say "FAIL: cannot write the topology"; exit 1; }
: >"$T/state"
EMULPMU_TOPO=$T/topo.cfg EMULPMU_STATE=$T/state
export EMULPMU_TOPO EMULPMU_STATE
collect=$build/helpers/scope-likwid-collect

# LIKWID's look-up of its daemon runs "bash ... which likwid-accessD": this
# bash logs the process whose popen started it (popen runs sh -c)
mkdir "$T/bin"
real_bash=$(command -v bash) || skip "no bash"
printf '#!/bin/sh\nawk %s /proc/$PPID/status >>"%s"\nexec "%s" "$@"\n' \
    "'/^PPid:/ { print \$2 }'" "$T/bash.log" "$real_bash" >"$T/bin/bash"
chmod +x "$T/bin/bash"
: >"$T/bash.log"
# the collector, behind a wrapper that keeps its pid (exec keeps it), its
# arguments and the marker file
cat >"$T/collector" <<EOF
#!/bin/sh
echo \$\$ >>"$T/collector.pids"
printf '%s\n' "\$@" >"$T/args"
cp "\$1" "$T/marker.txt"
env | grep '^LIKWID_' >"$T/likwid.env"
exec "$collect" "\$@"
EOF
chmod +x "$T/collector"
mkdir "$T/run"
(cd "$T/run" && PATH=$T/bin:$PATH LD_PRELOAD="$emul:$shim" SCOPE_LIKWID_COLLECTOR="$T/collector" \
    SCOPE_LIKWID_WRITER="$build/helpers/scope-likwid-write" SCOPE_LIKWID_OUTPUT="$T/result.h5" \
    OMP_NUM_THREADS=2 timeout 120 likwid-perfctr -M 0 -C 0-1 -g CLOCK -m "$build/examples/solver" \
    >"$T/perfctr.txt" 2>"$T/perfctr.err") || { cat "$T/perfctr.err"; fail "likwid-perfctr -m exited $?"; }
hz=$(sed -n 3p "$T/args" 2>/dev/null)
[ "$(sed -n 4p "$T/args" 2>/dev/null)" = "$hz" ] && [ "${hz:-0}" -gt 0 ] 2>/dev/null ||
    fail "collector arguments: $(tr '\n' ' ' <"$T/args" 2>/dev/null): expected the application's clock twice after the library"
accessd=$(sed -n 5p "$T/args" 2>/dev/null)
[ -x "$accessd" ] || fail "collector arguments: the access daemon '$accessd' is not an executable file"
for pid in $(cat "$T/collector.pids" 2>/dev/null); do
    grep -qx "$pid" "$T/bash.log" && fail "the collector's LIKWID (pid $pid) ran its shell for the access daemon"
done
[ -s "$T/bash.log" ] || fail "no LIKWID ran its shell: the logging bash was not reached (the check would prove nothing)"

# the result file's clock metrics against the handed clock
"$py" - "$T/result.h5" "${hz:-1}" >"$T/check.out" 2>&1 <<'EOF' || { cat "$T/check.out"; fail "result.h5: the clock metrics are not those of the handed clock"; }
import sys, h5py
f = h5py.File(sys.argv[1], "r")
hz = float(sys.argv[2])
s = lambda x: x.decode() if isinstance(x, bytes) else x
rank = f["rank0"]
if s(rank["likwid"].attrs["source"]) != "full_api":
    sys.exit("counters from %s: %s" % (s(rank["likwid"].attrs["source"]), s(rank.attrs["likwid_status"])))
n, bad = 0, []
for tag, g in rank["likwid/regions"].items():
    ctr = [s(x) for x in g.attrs["counter_names"]]
    names = [s(x) for x in g.attrs["metric_names"]]
    ev, mv = g["events"][()], g["metrics"][()]
    for t in range(ev.shape[1]):
        c = {k: ev[i][t] for i, k in enumerate(ctr)}
        want = {"Runtime unhalted [s]": c["PMC1"] / hz, "Clock [MHz]": 1e-6 * (c["FIXC1"] / c["FIXC2"]) * hz}
        for name, w in want.items():
            got = mv[names.index(name)][t]
            n += 1
            if not abs(got - w) <= 1e-9 * abs(w):
                bad.append("%s thread %d %s: %r, expected %r" % (tag, t, name, got, w))
if bad or not n:
    sys.exit("\n".join(bad) or "no clock metric")
print("%d clock metrics with the handed %.0f Hz" % (n, hz))
EOF
cat "$T/check.out"

# the collector alone, given 3 GHz: its answer's clock metrics are 3 GHz's,
# and it never sleeps LIKWID's second
lib=$(sed -n 2p "$T/args" 2>/dev/null)
start=$(date +%s%N)
(set -a && . "$T/likwid.env" && LD_PRELOAD=$emul timeout 10 "$collect" "$T/marker.txt" "$lib" 3000000000 3000000000) \
    >"$T/answer" 2>"$T/collect.err" || fail "the collector alone exited $?: $(cat "$T/collect.err")"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 900 ] || fail "the collector with a given clock took $ms ms: LIKWID's own measurement sleeps 1000"
say "the collector alone with a given clock: $ms ms"
"$py" - "$T/answer" >"$T/check.out" 2>&1 <<'EOF' || { cat "$T/check.out"; fail "the answer's clock metrics are not those of 3 GHz"; }
import sys, struct, urllib.parse
dbl = lambda h: struct.unpack(">d", bytes.fromhex(h))[0]
ev, n, bad = {}, 0, []
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "region":
        ev = {}
    elif w and w[0] == "event":
        ev[urllib.parse.unquote(w[2][1:])] = [dbl(h) for h in w[3:]]
    elif w and w[0] == "metric":
        name = urllib.parse.unquote(w[1][1:])
        for t, h in enumerate(w[2:]):
            want = {"Runtime unhalted [s]": ev["PMC1"][t] / 3e9,
                    "Clock [MHz]": 1e-6 * ev["FIXC1"][t] / ev["FIXC2"][t] * 3e9}.get(name)
            if want is not None:
                n += 1
                if abs(dbl(h) - want) > 1e-9 * abs(want):
                    bad.append("%s thread %d: %r, expected %r" % (name, t, dbl(h), want))
if bad or not n:
    sys.exit("\n".join(bad) or "no clock metric in the answer")
print("%d clock metrics with 3 GHz" % n)
EOF
cat "$T/check.out"
[ "$FAILED" = 0 ] || { say "FAIL (files: SL_KEEP=1)"; exit 1; }
say "PASS"
