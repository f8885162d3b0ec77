#!/bin/sh
# LIKWID's marker file is not what the shim expects when it reads it at Close:
#   markerfile.sh missing|empty|truncated|malformed|zeros|huge|directory|fifo|stale
# The simulated LIKWID counts and writes its file as usual; fault_app then
# points LIKWID_FILEPATH (which the shim reads at Close, LIKWID at Init) at a
# prepared path (FAULT_SWAP_MARKER), so the shim meets the fault exactly
# between LIKWID's Close and its own read. All three sources are on: the
# collector and the marker-file reader must fail (or cope) and say why, and
# the closing thread's marker_api snapshots must still give counters.
# "Unreadable" cannot be made with file modes here (the tests run as root,
# which ignores them): the FIFO and the directory are the unreadable cases.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR SL_CLI
pick_python
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE
mf=$T/prepared/likwid.txt
mkdir -p "$T/prepared"

# A good marker file of this very program, to damage.
good() {
    SIM_KEEP_MARKER=$T/good.txt sim good "$SL_FAULT_APP" basic
    [ -s "$T/good.txt" ] || { fail "the simulated LIKWID left no marker file"; finish; }
}

fallback=marker_api     # the source the result must end with
case ${1:-} in
missing) mf=$T/nowhere/likwid.txt; why='LIKWID wrote no marker file.*No such file' ;;
empty) : >"$mf"; why='marker_file failed' ;;
truncated) good; n=$(wc -c <"$T/good.txt"); head -c $(( n / 2 )) "$T/good.txt" >"$mf"
           why='marker_file failed' ;;
malformed) good; sed 's/ [0-9][0-9.e+-]* / x!y /' "$T/good.txt" >"$mf"
           why='marker_file failed|defective lines skipped' ;;
zeros) truncate -s 100M "$mf"; why='marker_file failed' ;;
huge) "$SL_GEN_MARKERFILE" 1000 10 800 "$mf" || { fail "gen_markerfile failed"; finish; }
      why='used (full_api|marker_file)'; fallback='' ;;
directory) mkdir "$mf"; why='not a regular file' ;;
fifo) mkfifo "$mf"; why='not a regular file' ;;
stale) good; cp "$T/good.txt" "$mf"; touch -d '2 hours ago' "$mf"; why='older than this run' ;;
*) echo "markerfile.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
# A prepared file stands for one LIKWID wrote at this run's Close: its
# mtime must not be older than the run's Init (the shim refuses that to
# the nanosecond), so it is set a minute ahead; 'stale' keeps its past.
case $1 in
empty|truncated|malformed|zeros|huge) touch -d "@$(( $(date +%s) + 60 ))" "$mf" ;;
esac
FAULT_SWAP_MARKER=$mf
export FAULT_SWAP_MARKER
ls -l "$mf" >/dev/null 2>&1 && [ "$1" = huge ] && say "prepared $(du -h --apparent-size "$mf" | cut -f1) marker file"

start=$(date +%s)
pair m sim "$SL_FAULT_APP" basic
took=$(( $(date +%s) - start ))
say "two runs took $took s"
if f=$(result_file m.shim); then
    if [ -n "$fallback" ]; then
        work_timing "$f" --source "$fallback" --likwid-region work=1x3 --status "$why" \
            --status "used $fallback"
    else
        work_timing "$f" --status "$why"
    fi
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run m.shim
finish
