#!/bin/sh
# The collector (scope-likwid-collect) fails in ways the e2e collector tests
# (collector_fault.sh: faults inside the read-back) do not reach:
#   collector.sh sigkill   killed by a signal from outside (SIGKILL)
#   collector.sh half      prints only the first half of a good answer, exits 0
# Same behaviour; timing written; counters from the marker file; status
# names the fault.
. "$(dirname "$0")/flib.sh"
need SL_SHIM SL_FAULT_APP SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR SL_COLLECT
pick_python
SIMLIKWID_STYLE=552
export SIMLIKWID_STYLE
case ${1:-} in
sigkill)
    printf '#!/bin/sh\nkill -KILL $$\n' >"$T/collect-wrapper"
    why='killed by signal 9' ;;
half)
    # The real answer, cut in the middle (at an odd byte).
    cat >"$T/collect-wrapper" <<EOS
#!/bin/sh
"$SL_COLLECT" "\$@" >"$T/answer" || exit \$?
n=\$(wc -c <"$T/answer")
head -c \$(( n / 2 + 1 )) "$T/answer"
EOS
    why='full_api failed: garbage output' ;;
*) echo "collector.sh: expected sigkill or half" >&2; exit 2 ;;
esac
chmod 755 "$T/collect-wrapper"
SCOPE_LIKWID_COLLECTOR=$T/collect-wrapper
export SCOPE_LIKWID_COLLECTOR

pair c sim "$SL_FAULT_APP" basic
if f=$(result_file c.shim); then
    work_timing "$f" --source marker_file --no-names --likwid-region work=1x3 \
        --status "$why" --status "used marker_file"
else
    fail "no single scope-likwid-*.h5 in the application's cwd"
fi
[ "$FAILED" = 0 ] || show_run c.shim
finish
