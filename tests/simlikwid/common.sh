# Sourced by the simlikwid shell tests. meson sets SIM_PERFCTR, SIMLIKWID_DIR,
# SIM_APP, CHECK_MARKER, CHECK_ANSWER, COLLECT, SAMPLES.
set -u
fails=0
# the simulated LIKWID's version (meson: SIM_VERSION 52 or 55) and soname
SIM_VERSION=${SIM_VERSION:-52}
SIM_SONAME=liblikwid.so.${SIM_VERSION%?}.${SIM_VERSION#?}
T=$(mktemp -d "${TMPDIR:-/tmp}/simlikwid-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export SIM_MARKER_DIR="$T"
unset LIKWID_FILEPATH LIKWID_MODE LIKWID_EVENTS LIKWID_THREADS SIMLIKWID_STYLE \
      SIMLIKWID_READBACK SIMLIKWID_READBACK_AT SIMLIKWID_STRICT_HAZARDS SIM_KEEP_MARKER LD_PRELOAD

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
    if [ "$2" = "$3" ]; then ok "$1"; else
        fail "$1"; echo "--- expected"; echo "$2"; echo "--- got"; echo "$3"; fi
}

# expect_grep WHAT PATTERN FILE
expect_grep() {
    if grep -q -- "$2" "$3"; then ok "$1"; else fail "$1: '$2' not in $3:"; cat "$3"; fi
}

finish() {
    [ "$fails" = 0 ] && { echo "all passed"; exit 0; }
    echo "$fails failed"; exit 1
}
