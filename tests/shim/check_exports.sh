#!/bin/sh
# The preloaded library exports exactly what its linker version script
# (shim/libscope_likwid.map) lists under global: — LIKWID's marker API, C and
# gfortran names, and the exec family it wraps — needs nothing beyond libc (no LIKWID, no HDF5, not even
# libdl or libpthread: glibc 2.34+ has them in libc), and calls none of
# exit/abort/fork/system/popen. Usage: check_exports.sh LIBRARY VERSION_SCRIPT
set -u
lib=$1
map=$2
command -v nm >/dev/null && command -v objdump >/dev/null || { echo "nm/objdump missing"; exit 77; }
rc=0
want=$(sed -n '/global:/,/local:/p' "$map" | sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' | sort | tr '\n' ' ')
[ -n "$want" ] || { echo "$map: no global: symbols found: expected the marker API"; exit 1; }
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
if [ "$have" != "$want" ]; then
    echo "exported symbols: $have"
    echo "the version script: $want"
    rc=1
fi
needed=$(objdump -p "$lib" | awk '/NEEDED/ {print $2}')
for n in $needed; do
    case $n in
        libc.so.*) ;;
        *) echo "NEEDED $n: expected only libc"; rc=1 ;;
    esac
done
for f in exit _exit abort fork vfork system popen; do
    if nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//' | grep -qx "$f"; then
        echo "the library calls $f: it must never"
        rc=1
    fi
done
[ $rc = 0 ] && echo "ok: exports equal the version script ($(echo $want | wc -w) symbols), NEEDED libc only, no forbidden calls"
exit $rc
