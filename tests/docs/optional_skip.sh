#!/bin/sh
# The quickstart installs neither chromium nor pandas (scripts/install-deps.sh
# without --all), so the tests that use them must skip without them: exit 77
# and exactly one line of output, naming the Debian package to install.
#   optional_skip.sh pandas|chromium COMMAND [ARGS...]
# The package is hidden from COMMAND: pandas by a module of that name that
# fails to import (first in PYTHONPATH), chromium by SL_CHROMIUM pointing
# nowhere. Exit 0 when COMMAND skipped as promised, 1 otherwise.
set -u
what=$1
shift
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
case $what in
pandas)
    mkdir "$T/pandas"
    echo 'raise ImportError("hidden by tests/docs/optional_skip.sh", name="pandas")' >"$T/pandas/__init__.py"
    PYTHONPATH=$T${PYTHONPATH:+:$PYTHONPATH}
    export PYTHONPATH
    package=python3-pandas ;;
chromium)
    SL_CHROMIUM=$T/no-chromium
    export SL_CHROMIUM
    package=chromium ;;
*) echo "optional_skip.sh: '$what': expected pandas or chromium" >&2; exit 2 ;;
esac
"$@" >"$T/out" 2>&1
rc=$?
lines=$(grep -c . "$T/out")
if [ "$rc" != 77 ]; then
    echo "FAIL: $* without $package exited $rc: expected 77 (skip)"; sed 's/^/    /' "$T/out"; exit 1
fi
if [ "$lines" != 1 ]; then
    echo "FAIL: $* without $package printed $lines lines: expected one"; sed 's/^/    /' "$T/out"; exit 1
fi
if ! grep -q "$package" "$T/out"; then
    echo "FAIL: $* without $package does not name the package: $(cat "$T/out")"; exit 1
fi
echo "ok: $(cat "$T/out")"
