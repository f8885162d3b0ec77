# Shared by the fault-injection scripts (sourced, POSIX sh): tests/e2e/lib.sh
# (clean environment, private directory $T, run/sim/same_behaviour/check)
# plus what the fault cases need. meson passes SL_FAULT_APP, SL_FD_PROBE,
# SL_GEN_MARKERFILE besides the e2e paths (tests/faults/meson.build).
. "$(dirname "$0")/../e2e/lib.sh"

# The simulated likwid-perfctr puts its marker file here, not in /tmp.
SIM_MARKER_DIR=$T
export SIM_MARKER_DIR

# pair NAME sim|real CMD...: runs CMD without the shim (NAME.base) and with
# it (NAME.shim), under the simulated likwid-perfctr -m or directly (the real
# LIKWID, which does not count here), and requires the same behaviour.
pair() {
    pname=$1
    pkind=$2
    shift 2
    if [ "$pkind" = sim ]; then
        sim "$pname.base" "$@"
        sim "$pname.shim" env LD_PRELOAD="$SL_SHIM" "$@"
    else
        run "$pname.base" "$@"
        run "$pname.shim" env LD_PRELOAD="$SL_SHIM" "$@"
    fi
    same_behaviour "$pname.base" "$pname.shim"
}

# shim_lines RUN: the shim's own stderr lines of a run.
shim_lines() { grep '^scope-likwid: ' "$T/$1.err" || true; }

# expect_line RUN REGEX WHAT: some scope-likwid: line must match (ERE, any case).
expect_line() {
    if ! shim_lines "$1" | grep -Eiq -- "$2"; then
        fail "$1: no scope-likwid: line matches /$2/: expected $3"
        shim_lines "$1" | sed 's/^/    /'
    fi
}

# wrote_path RUN: the file the shim says it wrote ("scope-likwid: wrote PATH").
wrote_path() { shim_lines "$1" | sed -n 's/^scope-likwid: wrote //p' | tail -n 1; }

# rescue_path RUN: the rescue file the shim's warning names.
rescue_path() { shim_lines "$1" | sed -n 's/.*timing data saved in \(.*\): convert it with.*/\1/p' | tail -n 1; }

# check_rescue RUN CHECKER-ARGS...: the warning names a rescue file that
# exists and that `scope-likwid convert` turns into a valid result file.
check_rescue() {
    crun=$1
    shift
    r=$(rescue_path "$crun")
    if [ -z "$r" ] || [ ! -f "$r" ]; then
        fail "$crun: no rescue file named on stderr (or it is missing: '$r'): expected 'timing data saved in FILE'"
        shim_lines "$crun" | sed 's/^/    /'
        return 1
    fi
    if ! "$SL_CLI" convert "$r" -o "$T/$crun.converted.h5" >"$T/$crun.convert.log" 2>&1; then
        fail "$crun: scope-likwid convert $r failed:"
        sed 's/^/    /' "$T/$crun.convert.log"
        return 1
    fi
    check "$T/$crun.converted.h5" "$@"
}

# The timing of fault_app's default regions ("work": main thread, 3 calls).
work_timing() { check "$@" --timing "work=1x3"; }

# calls_exact FILE SPEC... (after pick_python): every region's per-call
# records equal its call count (nothing dropped, nothing lost or merged), no
# negative time, and each SPEC "TAG=CALLS" (a tag ending in * covers every tag of that prefix,
# CALLS each) holds.
calls_exact() {
    "$PY" - "$@" <<'PY' >"$T/exact.log" 2>&1 || { fail "calls_exact: $(cat "$T/exact.log")"; return 1; }
import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = f[[k for k in f if k.startswith("rank")][0]]["timing/regions"]
got, bad = {}, []
for name, rg in g.items():
    tag = rg.attrs["tag"]
    tag = tag.decode() if isinstance(tag, bytes) else str(tag)
    calls = int(rg["call_counts"][()].sum())
    recs = len(rg["call_threads"][()])
    got[tag] = calls
    if recs != calls or int(rg.attrs["dropped_calls"]) != 0:
        bad.append("%s: %d calls, %d per-call records, %d dropped" % (tag, calls, recs, int(rg.attrs["dropped_calls"])))
    if (rg["total_ns"][()] < 0).any() or (rg["end_times"][()] < rg["start_times"][()]).any():
        bad.append("%s: a negative time" % tag)
for spec in sys.argv[2:]:
    tag, _, n = spec.rpartition("=")
    if tag.endswith("*"):
        some = [t for t in got if t.startswith(tag[:-1])]
        if len(some) == 0 or any(got[t] != int(n) for t in some):
            bad.append("%s: %d tags, counts %s" % (tag, len(some), sorted(set(got[t] for t in some))))
    elif got.get(tag) != int(n):
        bad.append("%s: %s calls, expected %s" % (tag, got.get(tag), n))
if bad:
    print("; ".join(bad[:10]))
    sys.exit(1)
PY
}

# plug_results RUN FILES CALLS: RUN left FILES result files (one per
# Init..Close of harm_plugin.c), each with CALLS calls of "plug" made by one
# thread (h5py).
plug_results() {
    n=0
    for f in "$T/$1"/scope-likwid-*.h5; do
        [ -f "$f" ] || continue
        check "$f" --timing "plug=1x$3" --timing-tags plug --no-likwid >/dev/null
        calls_exact "$f" "plug=$3"
        n=$((n + 1))
    done
    [ "$n" = "$2" ] || fail "$1: expected $2 result file(s), found $n: $(ls "$T/$1") $(shim_lines "$1")"
}
