#!/bin/sh
# scripts/real-node-check.sh cannot pass on this machine with the real
# LIKWID; this runs it against a stand-in `likwid-perfctr` (first in PATH)
# built on the SIMULATED LIKWID, so its passing path is exercised too:
#   real_node_sim.sh ok     -> the check passes (exit 0)
#   real_node_sim.sh fail   -> the collector's read-back fails: the check
#                              must fail (exit 1), not pass on marker_file data
#   real_node_sim.sh nocount-> likwid-perfctr cannot count: exit 77
. "$(dirname "$0")/lib.sh"
need SL_SHIM SL_SOLVER SL_SIM_DIR SL_SIM_PERFCTR SL_SRC SL_BUILD
pick_python
mode=${1:-ok}
mkdir -p "$T/bin"
cat >"$T/bin/likwid-perfctr" <<EOS
#!/bin/sh
# stand-in for likwid-perfctr: groups for -a, counting through sim-perfctr
if [ "\$1" = -a ]; then
    printf ' Group name\tDescription\n%s\n  FLOPS_DP\tDouble Precision MFLOP/s\n' "--------"
    exit 0
fi
[ "$mode" = nocount ] && { echo "ERROR - Unsupported processor" >&2; exit 1; }
LD_LIBRARY_PATH="$SL_SIM_DIR" exec "$SL_SIM_PERFCTR" "\$@"
EOS
chmod +x "$T/bin/likwid-perfctr"
case $mode in
ok) SIMLIKWID_READBACK=ok; want=0 ;;
fail) SIMLIKWID_READBACK=fail; want=1 ;;
nocount) SIMLIKWID_READBACK=ok; want=77 ;;
*) echo "real_node_sim.sh: MODE '$mode': expected ok, fail or nocount" >&2; exit 2 ;;
esac
export SIMLIKWID_READBACK
unset SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_WRITER SCOPE_LIKWID_TIMEOUT
run check env PATH="$T/bin:$PATH" sh "$SL_SRC/scripts/real-node-check.sh" "$SL_BUILD"
[ "$(rc_of check)" = "$want" ] || fail "real-node-check.sh exited $(rc_of check): expected $want"
[ "$FAILED" = 0 ] || show_run check
finish
