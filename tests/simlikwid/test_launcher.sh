#!/bin/sh
# The simulated library carries Debian's soname and exports LIKWID's symbols;
# sim-perfctr swaps it in and sets likwid-perfctr's environment.
. "$(dirname "$0")/common.sh"

lib="$SIMLIKWID_DIR/$SIM_SONAME"
objdump -p "$lib" | grep -q "SONAME *$SIM_SONAME\$" && ok "soname" || fail "soname"
objdump -p "$SIM_APP" | grep -q "NEEDED *$SIM_SONAME\$" && ok "app needs $SIM_SONAME" \
    || fail "app NEEDED"
# 5.5 only: the version getters and WriteFile
v55_syms=
[ "$SIM_VERSION" = 55 ] && v55_syms="likwid_getMajorVersion likwid_getMinorVersion
    likwid_getBugfixVersion likwid_markerWriteFile likwid_markerwritefile_"
syms=$(nm -D --defined-only "$lib")
for s in likwid_markerInit likwid_markerThreadInit likwid_markerRegisterRegion \
         likwid_markerStartRegion likwid_markerStopRegion likwid_markerResetRegion \
         likwid_markerGetRegion likwid_markerNextGroup likwid_markerClose \
         likwid_markerinit_ likwid_markerthreadinit_ likwid_markerregisterregion_ \
         likwid_markerstartregion_ likwid_markerstopregion_ likwid_markerresetregion_ \
         likwid_markergetregion_ likwid_markernextgroup_ likwid_markerclose_ \
         init_configuration HPMmode topology_init perfmon_init perfmon_addEventSet \
         perfmon_readMarkerFile perfmon_getNumberOfRegions perfmon_getTagOfRegion \
         perfmon_getGroupOfRegion perfmon_getEventsOfRegion perfmon_getThreadsOfRegion \
         perfmon_getCpulistOfRegion perfmon_getTimeOfRegion perfmon_getCountOfRegion \
         perfmon_getResultOfRegionThread perfmon_getNumberOfMetrics \
         perfmon_getMetricOfRegionThread perfmon_getEventName perfmon_getCounterName \
         perfmon_getMetricName perfmon_getGroupName perfmon_getNumberOfEvents perfmon_finalize \
         $v55_syms; do
    echo "$syms" | grep -q " T $s\$" || fail "symbol $s not exported"
done
ok "symbols"

out=$("$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- ldd "$SIM_APP" 2>/dev/null | grep 'liblikwid')
case "$out" in
    *"$SIMLIKWID_DIR/$SIM_SONAME"*) ok "ldd shows the simulation" ;;
    *) fail "ldd: $out" ;;
esac

env_of() { "$SIM_PERFCTR" "$@" -- sh -c 'for v in LIKWID_FILEPATH LIKWID_MODE LIKWID_EVENTS LIKWID_THREADS LIKWID_FORCE LIKWID_DEBUG LIKWID_PIN LIKWID_SKIP OMP_NUM_THREADS; do eval "echo $v=\${$v-unset}"; done' 2>/dev/null; }
got=$(env_of -C 0-3 -g FLOPS_DP -g MEM -m | sed "s|$T|DIR|")
want=$(printf '%s\n' "LIKWID_FILEPATH=DIR/likwid_PID.txt" LIKWID_MODE=1 "LIKWID_EVENTS=FLOPS_DP|MEM" \
    LIKWID_THREADS=0,1,2,3 LIKWID_FORCE=-1 LIKWID_DEBUG=0 LIKWID_PIN=1,2,3,0 LIKWID_SKIP=0x0 \
    OMP_NUM_THREADS=4)
expect_eq "environment of -C 0-3 -m" "$want" "$(echo "$got" | sed 's/likwid_[0-9]*\.txt/likwid_PID.txt/')"
got=$(env_of -c 2,5 -g BRANCH)
want=$(printf '%s\n' LIKWID_FILEPATH=unset LIKWID_MODE=unset LIKWID_EVENTS=unset \
    LIKWID_THREADS=unset LIKWID_FORCE=unset LIKWID_DEBUG=unset LIKWID_PIN=unset \
    LIKWID_SKIP=unset OMP_NUM_THREADS=unset)
expect_eq "environment of -c without -m" "$want" "$got"
"$SIM_PERFCTR" -C 0,1 -g FLOPS_DP -m -- sh -c 'exit 7' 2>/dev/null
expect_eq "exit status passed on" 7 $?
"$SIM_PERFCTR" -C x -g FLOPS_DP -m -- true 2>/dev/null
expect_eq "bad CPU list refused" 2 $?
finish
