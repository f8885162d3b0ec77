#!/bin/sh
# The shim gives the application back its errno at every entry point:
#   errno.sh real|sim|pass
# errno_app calls each marker function (C and gfortran names, in two
# threads, Init to Close and after) with errno set to ENOTRECOVERABLE and
# fails when a call returns with another. real: Debian's LIKWID, not
# counting; sim: the simulated LIKWID counting (the shim's Close runs the
# collector and the writer); pass: SCOPE_LIKWID_DISABLE=1. Without the shim
# the program must pass too (else LIKWID itself changes errno: the test
# cannot tell).
. "$(dirname "$0")/lib.sh"
[ $# = 1 ] || { echo "usage: errno.sh real|sim|pass" >&2; exit 2; }
need SL_SHIM SL_ERRNO_APP
case $1 in
sim) need SL_SIM_DIR SL_SIM_PERFCTR
     SIMLIKWID_STYLE=552; export SIMLIKWID_STYLE
     sim base "$SL_ERRNO_APP"
     sim shim env LD_PRELOAD="$SL_SHIM" "$SL_ERRNO_APP" ;;
real) run base "$SL_ERRNO_APP"
      run shim env LD_PRELOAD="$SL_SHIM" "$SL_ERRNO_APP" ;;
pass) run base "$SL_ERRNO_APP"
      run shim env SCOPE_LIKWID_DISABLE=1 LD_PRELOAD="$SL_SHIM" "$SL_ERRNO_APP" ;;
*) echo "errno.sh: '$1': expected real, sim or pass" >&2; exit 2 ;;
esac
if [ "$(rc_of base)" != 0 ]; then
    show_run base
    skip "LIKWID itself changes errno here (without the shim): the shim cannot be judged"
fi
grep -q 'errno_app: [0-9]* calls, errno kept' "$T/base.out" || { fail "errno_app did not finish without the shim"; show_run base; }
if [ "$(rc_of shim)" != 0 ] || ! grep -q 'errno kept' "$T/shim.out"; then
    fail "under the shim a marker call changed errno (exit status $(rc_of shim))"
    show_run shim
fi
# the shim defines WriteFile for every LIKWID: at least as many calls
n_base=$(sed -n 's/^errno_app: \([0-9]*\) calls.*/\1/p' "$T/base.out")
n_shim=$(sed -n 's/^errno_app: \([0-9]*\) calls.*/\1/p' "$T/shim.out")
[ "${n_shim:-0}" -ge "${n_base:-1}" ] || fail "under the shim $n_shim calls were made: expected $n_base or more"
if [ "$1" = sim ]; then
    ls "$T/shim"/scope-likwid-*.h5 >/dev/null 2>&1 || fail "no result file: the shim's Close did not run its helpers"
fi
finish
