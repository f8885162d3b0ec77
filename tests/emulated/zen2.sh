# Sourced: the emulated PMU as one AMD Zen 2 node (emulpmu.c, set up as
# scripts/emulated-node-check.sh sets it up), for the scripts that need a
# counted run but not the check's matrix of architectures and groups:
# bench/bench_counting.sh and tests/emulated/collector_clock.sh.
#   emul_zen2 BUILD_DIR DIR
# checks what the emulation needs (else prints why on one line and returns
# 77), writes DIR/topo.cfg (the host's threads, caches and NUMA domains; the
# CPU a Zen 2 at 2 GHz) and exports EMULPMU_TOPO, EMULPMU_STATE (DIR/state,
# emptied) and EMUL, the library to preload into likwid-perfctr.
emul_zen2() {
    EMUL=$1/tests/emulated/libemulpmu.so
    emul_probe=$1/tests/emulated/rdpmc_probe
    if [ ! -e "$EMUL" ] || [ ! -e "$emul_probe" ]; then
        echo "$EMUL: not built (tests off, -Dtests=true; or a sanitizer build)"
        return 77
    fi
    EMUL=$(realpath "$EMUL")
    command -v likwid-perfctr >/dev/null 2>&1 || { echo "likwid-perfctr not found (Debian package likwid)"; return 77; }
    command -v likwid-genTopoCfg >/dev/null 2>&1 || { echo "likwid-genTopoCfg not found (Debian package likwid)"; return 77; }
    case $(likwid-perfctr -v 2>&1 | grep -o 'Version [0-9.]*' | head -n 1) in
    "Version 5.2."*) ;;
    *) echo "likwid-perfctr is not LIKWID 5.2: the emulation serves its direct MSR mode"; return 77 ;;
    esac
    [ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs, this node has $(nproc)"; return 77; }
    "$emul_probe" >/dev/null 2>&1 || { echo "$("$emul_probe" 2>&1): LIKWID would read the real counters with it"; return 77; }
    likwid-genTopoCfg -o "$2/host-topo.cfg" >"$2/gentopo.log" 2>&1 && [ -s "$2/host-topo.cfg" ] ||
        { echo "likwid-genTopoCfg cannot describe this host: $(tail -n 1 "$2/gentopo.log")"; return 77; }
    sed -e 's/^cpuid_info family = .*/cpuid_info family = 23/' \
        -e 's/^cpuid_info model = .*/cpuid_info model = 49/' \
        -e 's/^cpuid_info stepping = .*/cpuid_info stepping = 0/' \
        -e 's/^cpuid_info isIntel = .*/cpuid_info isIntel = 0/' \
        -e 's/^cpuid_info \(perf_version\|perf_num_ctr\|perf_width_ctr\|perf_num_fixed_ctr\) = .*/cpuid_info \1 = 0/' \
        -e 's/^cpuid_info osname = .*/cpuid_info osname = scope-likwid emulated zen2/' \
        -e 's/^cpuid_info clock = .*/cpuid_info clock = 2000000000/' \
        "$2/host-topo.cfg" >"$2/topo.cfg" || { echo "$2/topo.cfg: cannot write"; return 77; }
    : >"$2/state"
    EMULPMU_TOPO=$2/topo.cfg
    EMULPMU_STATE=$2/state
    export EMUL EMULPMU_TOPO EMULPMU_STATE
}
