#!/bin/sh
# LIKWID's own counting on an emulated PMU, checked value for value:
#   sh scripts/emulated-node-check.sh [BUILD_DIR] [ARTIFACT_DIR]
# (defaults: ./build and BUILD_DIR/emulated-node-check). Runs a marker-API
# application under
#   likwid-perfctr -M 0 -C 0-1 -g GROUP -m APP
# with the shim preloaded, on an emulated CPU: LIKWID 5.2's direct MSR mode
# reads and writes /dev/cpu/N/msr and takes the CPU from /etc/likwid_topo.cfg;
# BUILD_DIR/tests/emulated/libemulpmu.so (tests/emulated/emulpmu.c), preloaded
# into likwid-perfctr, the application and the collector, serves both from
# files of its own, so nothing on the host changes and no real counter is
# read. For each architecture and group it leaves
#   ARTIFACT_DIR/<arch>/<GROUP>/perfctr.txt   likwid-perfctr's stdout
#   ARTIFACT_DIR/<arch>/<GROUP>/perfctr.err   its stderr
#   ARTIFACT_DIR/<arch>/<GROUP>/result.h5     the shim's result file
#   ARTIFACT_DIR/<arch>/likwid_topo.cfg       the topology LIKWID was given
# and checks with tests/emulated/check_perfctr.py (h5py) that every event
# and metric likwid-perfctr printed for every region and HWThread is in
# result.h5, and with tests/e2e/check_result.py the file's structure.
# Environment:
#   SL_EMUL_APP    c (examples/solver, default), fortran (examples/solver_f)
#                  or python (tests/rtldlocal/app.py through the slmarker
#                  extension, a pylikwid-like caller)
#   SL_EMUL_ARCHS  architectures, default "zen2 skylakex"; any of zen, zen2,
#                  zen3 (AMD family 17h models 01h and 31h, 19h model 01h),
#                  skylake, skylakex, haswell (Intel family 6 models 5Eh,
#                  55h stepping 4 and 3Ch)
#   SL_EMUL_GROUPS groups, default each architecture's FLOPS_DP (FLOPS_AVX
#                  on haswell), CLOCK and memory group (MEM; MEM1 on zen3)
#   SL_EMUL_LIKWID a LIKWID 5.2 to 5.5 installed in this prefix (built with
#                  ACCESSMODE=direct: scripts/build-likwid-master.sh --direct)
#                  instead of the one in PATH (5.2 only); its likwid-perfctr,
#                  likwid-genTopoCfg and group files are used, and the
#                  program must be one built against it:
#   SL_EMUL_PROGRAM the program's command instead of the build's (words
#                  split at blanks), for SL_EMUL_APP's regions
#                  (scripts/likwid-version-check.sh builds them)
# Skylake-SP needs root (LIKWID opens PCI devices in direct mode only as
# root): other users get a line saying it was skipped.
# Exit status: 0 passed, 1 failed, 77 cannot emulate here (one line why).
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
say() { printf 'emulated-node-check: %s\n' "$*"; }
skip() { say "SKIP: $*"; exit 77; }
die() { say "FAIL: $*"; exit 1; }

build=${1:-build}
[ -d "$build" ] || die "$build: no such directory: expected the meson build dir (meson setup $build && ninja -C $build)"
build=$(cd "$build" && pwd)
art=${2:-$build/emulated-node-check}
mkdir -p "$art" || die "$art: cannot create the artifact directory"
art=$(cd "$art" && pwd)
app_kind=${SL_EMUL_APP:-c}
archs=${SL_EMUL_ARCHS:-zen2 skylakex}
lw=${SL_EMUL_LIKWID:-}
if [ -n "$lw" ]; then
    perfctr=$lw/bin/likwid-perfctr gentopo=$lw/bin/likwid-genTopoCfg
    groupdir=$lw/share/likwid/perfgroups
else
    perfctr=$(command -v likwid-perfctr) || perfctr=likwid-perfctr
    gentopo=likwid-genTopoCfg groupdir=/usr/share/likwid/perfgroups
fi

shim=$build/shim/libscope_likwid.so
collect=$build/helpers/scope-likwid-collect
write=$build/helpers/scope-likwid-write
emul=$build/tests/emulated/libemulpmu.so
probe=$build/tests/emulated/rdpmc_probe
check_perfctr=$here/tests/emulated/check_perfctr.py
checker=$here/tests/e2e/check_result.py
for f in "$shim" "$collect" "$write"; do
    [ -e "$f" ] || die "$f: missing: expected a finished build (ninja -C $build)"
done
[ -e "$emul" ] && [ -e "$probe" ] || skip "$emul: not built (tests off, -Dtests=true; or a sanitizer build, where it is left out)"

case $app_kind in
c)
    set -- "$build/examples/solver"
    [ -x "$1" ] || die "$1: missing: expected a finished build"
    regions="init=1x1 solve-step=2x20 io%phase=1x1" ;;
fortran)
    set -- "$build/examples/solver_f"
    [ -x "$1" ] || skip "$1: not built (needs gfortran)"
    regions="init=1x1 solve-step=2x20 io%phase=1x1" ;;
python)
    pymod=$build/tests/rtldlocal
    ls "$pymod"/slmarker*.so >/dev/null 2>&1 || skip "the slmarker extension is not built (needs Debian python3-dev; not in sanitizer builds)"
    set -- env PYTHONPATH="$pymod" /usr/bin/python3 "$here/tests/rtldlocal/app.py" 2
    regions="py-work=2x10" ;;
*) say "SL_EMUL_APP=$app_kind: expected c, fortran or python" >&2; exit 2 ;;
esac
if [ -n "${SL_EMUL_PROGRAM:-}" ]; then
    # shellcheck disable=SC2086
    set -- $SL_EMUL_PROGRAM
elif [ -n "$lw" ]; then
    die "SL_EMUL_LIKWID=$lw: expected SL_EMUL_PROGRAM too (a program built against that LIKWID)"
fi

py=/usr/bin/python3
"$py" -c 'import h5py' >/dev/null 2>&1 || skip "$py cannot import h5py to check the result (Debian package python3-h5py)"
command -v "$perfctr" >/dev/null 2>&1 || skip "$perfctr not found (Debian package likwid)"
command -v "$gentopo" >/dev/null 2>&1 || skip "$gentopo not found (Debian package likwid)"
version=$("$perfctr" -v 2>&1 | grep -o 'Version [0-9.]*' | head -n 1)
case $version in
"Version 5.2."*) ;;
"Version 5."[345]"."*) [ -n "$lw" ] ||
    skip "likwid-perfctr is '$version': the emulation serves LIKWID 5.2's direct MSR mode (5.3 to 5.5: SL_EMUL_LIKWID, built with ACCESSMODE=direct)" ;;
*) skip "likwid-perfctr is '${version:-unknown}': the emulation serves LIKWID 5.2's direct MSR mode" ;;
esac
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs for -C 0-1, this node has $(nproc)"
# LIKWID 5.2 reads the core counters with RDPMC where user space may: those
# reads would bypass the emulation.
"$probe" >/dev/null 2>&1 || skip "$("$probe" 2>&1): LIKWID would read the real counters with it"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/emulated-node-check.XXXXXX") || die "mktemp failed"
if [ "${SL_KEEP:-0}" = 1 ]; then trap 'say "kept $tmp"' EXIT; else trap 'rm -rf "$tmp"' EXIT; fi
"$gentopo" -o "$tmp/host-topo.cfg" >"$tmp/gentopo.log" 2>&1 && [ -s "$tmp/host-topo.cfg" ] ||
    skip "likwid-genTopoCfg cannot describe this host: $(tail -n 1 "$tmp/gentopo.log")"

. "$here/tests/emulated/emul_lib.sh"

failed=0
ran= not_root=
for arch in $archs; do
    info=$(emul_arch "$arch") || { say "SL_EMUL_ARCHS: '$arch': expected zen, zen2, zen3, skylake, skylakex or haswell" >&2; exit 2; }
    if [ "$arch" = skylakex ] && [ "$(id -u)" != 0 ]; then
        not_root="$arch left out: LIKWID 5.2 opens the uncore's PCI devices in direct mode only as root"
        continue
    fi
    ran="$ran${ran:+ }$arch"
    read -r vendor family model stepping gdir groups <<EOF
$info
EOF
    groups=${SL_EMUL_GROUPS:-$groups}
    mkdir -p "$art/$arch" || die "$art/$arch: cannot create"
    topo=$art/$arch/likwid_topo.cfg
    # The host's threads, caches and NUMA domains; the CPU is the emulated one.
    emul_topo "$arch" "$tmp/host-topo.cfg" "$topo" || die "$topo: cannot write"
    for group in $groups; do
        out=$art/$arch/$group
        rm -rf "$out"
        mkdir -p "$out/run" || die "$out: cannot create"
        : >"$tmp/state"
        (
            cd "$out/run" &&
                EMULPMU_STATE=$tmp/state EMULPMU_TOPO=$topo \
                    LD_PRELOAD=$emul:$shim SCOPE_LIKWID_COLLECTOR=$collect SCOPE_LIKWID_WRITER=$write \
                    SCOPE_LIKWID_OUTPUT=$out/result.h5 OMP_NUM_THREADS=2 \
                    timeout 120 "$perfctr" -M 0 -C 0-1 -g "$group" -m "$@" >"$out/perfctr.txt" 2>"$out/perfctr.err"
        )
        rc=$?
        rmdir "$out/run" 2>/dev/null
        if [ "$rc" != 0 ]; then
            sed 's/^/  /' "$out/perfctr.txt" "$out/perfctr.err" | tail -n 20
            say "FAIL: $arch $group: likwid-perfctr -M 0 -m exited $rc: expected 0"
            failed=1
            continue
        fi
        [ -f "$out/result.h5" ] || { cat "$out/perfctr.err"; say "FAIL: $arch $group: no $out/result.h5"; failed=1; continue; }
        # regions: TAG=THREADSxCALLS, a space in TAG written as %
        tags= timing=
        for r in $regions; do
            t=$(echo "${r%=*}" | tr % ' ')
            tags="$tags${tags:+,}$t"
            timing="$timing --timing '$t=${r#*=}' --likwid-region '$t=${r#*=}'"
        done
        "$py" "$check_perfctr" "$out/perfctr.txt" "$out/result.h5" --group "$group" \
            --groupfile "$groupdir/$gdir/$group.txt" --regions "$tags" >"$tmp/check.out" 2>&1 ||
            failed=1
        eval "\"\$py\" \"\$checker\" \"\$out/result.h5\" --source full_api --names --metrics \
            --env LIKWID_EVENTS --env LIKWID_THREADS --status full_api $timing" >>"$tmp/check.out" 2>&1 ||
            failed=1
        sed "s/^/  $arch $group: /" "$tmp/check.out"
    done
done
[ -n "$ran" ] || skip "$not_root (uid $(id -u))"
[ -z "$not_root" ] || say "$not_root"
[ "$failed" = 0 ] || die "see above; artifacts in $art"
say "PASS: $app_kind under likwid-perfctr -M 0 on emulated $ran: every printed event and metric in result.h5 (artifacts in $art)"
