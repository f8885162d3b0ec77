#!/bin/sh
# Runs check_h5py.py on a file written by the sample writer, with the first
# python3 that has h5py; exit 77 (skip) when none has.
# usage: check_h5py.sh SAMPLE_WRITER CHECK_SCRIPT
PY=
for py in python3 /usr/bin/python3; do
    if "$py" -c 'import h5py' >/dev/null 2>&1; then PY=$py; break; fi
done
if [ -z "$PY" ]; then echo "h5py not importable: skipped"; exit 77; fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$1" "$dir/out.h5" >/dev/null || { echo "sample writer failed"; exit 1; }
"$PY" "$2" "$dir/out.h5"
