# Sourced by the export tests (POSIX sh). meson passes paths in the
# environment: SL_CLI SL_SAMPLES SL_SAMPLE_WRITER SL_SHIM SL_SOLVER SL_COLLECT
# SL_WRITE SL_SIM_DIR SL_SIM_PERFCTR SL_SRC (this folder). Gives $TMP (removed
# at exit), sl NAME ARGS (stdout NAME.out, stderr NAME.err, exit code $RC),
# fail, check_rc, check_grep, check_same, check_one_line, finish, pick_python.
# The common helpers are tests/cli/lib.sh's (one copy to keep right).
SL_FROM_ENV=export
. "$SL_SRC/../cli/lib.sh"

# check_one_line WHAT: the last sl call wrote exactly one line to stderr and nothing to stdout.
check_one_line() {
    CHECKS=$((CHECKS + 1))
    [ "$(wc -l <"$TMP/$_name.err")" -eq 1 ] || fail "$1: stderr is not one line: $(cat "$TMP/$_name.err")"
    [ ! -s "$TMP/$_name.out" ] || fail "$1: wrote to stdout: $(head -c 200 "$TMP/$_name.out")"
}

# Debian's python3 (the pyenv one first on PATH has no h5py/pandas); 77 =
# SKIP with one line naming the missing package (pandas is optional:
# scripts/install-deps.sh installs it only with --all).
pick_python() {
    for py in /usr/bin/python3 python3; do
        if "$py" -c 'import h5py, numpy' >/dev/null 2>&1; then
            if ! "$py" -c 'import pandas' >/dev/null 2>&1; then
                echo "SKIP: pandas missing (Debian package python3-pandas)"
                exit 77
            fi
            PY=$py
            return 0
        fi
    done
    echo "SKIP: h5py missing (Debian package python3-h5py)"
    exit 77
}

# The rescue file of tests/cli/show.sh: names, metrics, nan, a region lacking
# an event, a timing region with LIKWID data and one without.
make_rescue() {
    { cat "$SL_SRC/rescue.body"; echo "end $(wc -l <"$SL_SRC/rescue.body")"; } >"$TMP/rescue.wire"
    "$SL_CLI" convert "$TMP/rescue.wire" -o "$TMP/$1" >/dev/null
}
