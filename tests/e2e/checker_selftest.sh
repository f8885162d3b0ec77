#!/bin/sh
# Runs checker_selftest.py (which proves check_result.py rejects broken
# files) with a Python that has h5py.
. "$(dirname "$0")/lib.sh"
need SL_CHECKER
pick_python
"$PY" "$(dirname "$SL_CHECKER")/checker_selftest.py" "$SL_CHECKER" "$T"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || fail "checker self-test exited $rc"
[ "$rc" = 77 ] && exit 77
finish
