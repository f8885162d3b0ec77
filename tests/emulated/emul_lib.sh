# Sourced by the emulated-PMU scripts: the CPUs emulpmu.c serves.
#   emul_arch ARCH      prints "vendor family model stepping perfgroups-dir
#                       group group group" (the groups: the FLOPS, clock
#                       and memory group checked by default), or fails
#   emul_topo ARCH HOST_TOPO OUT
#                       writes OUT: likwid-genTopoCfg's HOST_TOPO (the
#                       host's threads, caches and NUMA domains) with the
#                       CPU of ARCH at 2 GHz; the uncore and client-memory
#                       flags 0, as before LIKWID's own table of models
#                       sets them (it does for the file's CPU too)
emul_arch() {
    case $1 in
    zen) echo "amd 23 1 1 zen FLOPS_DP CLOCK MEM" ;;
    zen2) echo "amd 23 49 0 zen2 FLOPS_DP CLOCK MEM" ;;
    zen3) echo "amd 25 1 0 zen3 FLOPS_DP CLOCK MEM1" ;;
    skylake) echo "intel 6 94 3 skylake FLOPS_DP CLOCK MEM" ;;
    skylakex) echo "intel 6 85 4 skylakeX FLOPS_DP CLOCK MEM" ;;
    haswell) echo "intel 6 60 3 haswell FLOPS_AVX CLOCK MEM" ;;
    *) return 1 ;;
    esac
}

emul_topo() {
    _arch=$1
    _info=$(emul_arch "$1") || return 1
    set -- "$2" "$3" $_info
    # Intel: architectural PMU version 4, 4 counters of 48 bits, 3 fixed
    if [ "$3" = intel ]; then _perf="1 4 4 48 3"; else _perf="0 0 0 0 0"; fi
    set -- "$@" $_perf
    sed -e "s/^cpuid_info family = .*/cpuid_info family = $4/" \
        -e "s/^cpuid_info model = .*/cpuid_info model = $5/" \
        -e "s/^cpuid_info stepping = .*/cpuid_info stepping = $6/" \
        -e "s/^cpuid_info isIntel = .*/cpuid_info isIntel = ${11}/" \
        -e "s/^cpuid_info perf_version = .*/cpuid_info perf_version = ${12}/" \
        -e "s/^cpuid_info perf_num_ctr = .*/cpuid_info perf_num_ctr = ${13}/" \
        -e "s/^cpuid_info perf_width_ctr = .*/cpuid_info perf_width_ctr = ${14}/" \
        -e "s/^cpuid_info perf_num_fixed_ctr = .*/cpuid_info perf_num_fixed_ctr = ${15}/" \
        -e "s/^cpuid_info osname = .*/cpuid_info osname = scope-likwid emulated $_arch/" \
        -e "s/^cpuid_info clock = .*/cpuid_info clock = 2000000000/" \
        -e "s/^cpuid_info supportUncore = .*/cpuid_info supportUncore = 0/" \
        -e "s/^cpuid_info supportClientmem = .*/cpuid_info supportClientmem = 0/" \
        "$1" >"$2"
}

# emul_voice NAME: say, skip (exit 77) and fail (FAILED=1) for NAME.
emul_voice() {
    EMUL_NAME=$1
    FAILED=0
    say() { printf '%s: %s\n' "$EMUL_NAME" "$*"; }
    skip() { say "SKIP: $*"; exit 77; }
    fail() { say "FAIL: $*"; FAILED=1; }
}

# The emulated tests' common start (tests/emulated/*.sh), with src and build
# set, after emul_voice: emul, shim, py; every check of what the emulation
# needs, one line and exit 77 when something lacks; T, a temporary
# directory (kept with SL_KEEP=1), and T/topo.cfg, the emulated Skylake.
emul_begin() {
    emul=$build/tests/emulated/libemulpmu.so
    shim=$build/shim/libscope_likwid.so
    py=/usr/bin/python3
    [ -e "$emul" ] || skip "$emul: not built (a sanitizer build leaves it out)"
    "$py" -c 'import h5py' 2>/dev/null || skip "$py cannot import h5py (python3-h5py)"
    command -v likwid-perfctr >/dev/null 2>&1 || skip "likwid-perfctr not found (Debian package likwid)"
    likwid-perfctr -v 2>&1 | grep -q 'Version 5\.2\.' ||
        skip "likwid-perfctr is not LIKWID 5.2: the emulation serves 5.2's direct mode"
    [ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
    "$build/tests/emulated/rdpmc_probe" >/dev/null 2>&1 ||
        skip "rdpmc allowed in user space: LIKWID would read the real counters"
    T=$(mktemp -d "${TMPDIR:-/tmp}/emul-$EMUL_NAME.XXXXXX") || exit 1
    if [ "${SL_KEEP:-0}" = 1 ]; then trap 'say "kept $T"' EXIT; else trap 'rm -rf "$T"' EXIT; fi
    likwid-genTopoCfg -o "$T/host-topo.cfg" >/dev/null 2>&1 || skip "likwid-genTopoCfg cannot describe this host"
    emul_topo skylake "$T/host-topo.cfg" "$T/topo.cfg" || { say "FAIL: cannot write the topology"; exit 1; }
}
