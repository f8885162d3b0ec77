#!/bin/sh
# The preloaded library exports exactly LIKWID's marker API (C and gfortran
# names), needs nothing beyond libc (no LIKWID, no HDF5), and calls none of
# exit/abort/fork/system/popen. Usage: check_exports.sh LIBRARY
set -u
lib=$1
command -v nm >/dev/null && command -v objdump >/dev/null || { echo "nm/objdump missing"; exit 77; }
rc=0
want="likwid_markerClose likwid_markerGetRegion likwid_markerInit likwid_markerNextGroup
likwid_markerRegisterRegion likwid_markerResetRegion likwid_markerStartRegion
likwid_markerStopRegion likwid_markerThreadInit likwid_markerclose_ likwid_markergetregion_
likwid_markerinit_ likwid_markernextgroup_ likwid_markerregisterregion_
likwid_markerresetregion_ likwid_markerstartregion_ likwid_markerstopregion_
likwid_markerthreadinit_"
have=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
exp=$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')
if [ "$have" != "$exp" ]; then
    echo "exported symbols: $have"
    echo "expected:         $exp"
    rc=1
fi
needed=$(objdump -p "$lib" | awk '/NEEDED/ {print $2}')
for n in $needed; do
    case $n in
        libc.so.*|libdl.so.*|libpthread.so.*|ld-linux*) ;;
        *) echo "NEEDED $n: expected only libc, libdl, libpthread"; rc=1 ;;
    esac
done
for f in exit _exit abort fork vfork system popen; do
    if nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//' | grep -qx "$f"; then
        echo "the library calls $f: it must never"
        rc=1
    fi
done
[ $rc = 0 ] && echo "ok: exports, NEEDED and forbidden calls"
exit $rc
