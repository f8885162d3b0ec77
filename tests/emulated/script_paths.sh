#!/bin/sh
# scripts/emulated-node-check.sh's own verdicts, with a stand-in
# likwid-perfctr first in PATH:
#   version55  it says "Version 5.5.1": SKIP (77), one line naming the version
#   fails      it says 5.2.2 but every run exits 1: FAIL (1), naming the run
# and with the real likwid-perfctr:
#   nonroot    Skylake-SP only, as uid 65534 (setpriv when root): SKIP (77),
#              one line saying it needs root
set -u
mode=${1:?usage: script_paths.sh version55|fails|nonroot}
T=$(mktemp -d "${TMPDIR:-/tmp}/emul-paths.XXXXXX") || exit 1
if [ "${SL_KEEP:-0}" = 1 ]; then trap 'echo "kept $T"' EXIT; else trap 'rm -rf "$T"' EXIT; fi
fail() { echo "script_paths: FAIL: $*"; exit 1; }

if [ "$mode" = nonroot ]; then
    chmod 777 "$T"
    set -- env
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null 2>&1 || { echo "script_paths: SKIP: no setpriv to run as uid 65534"; exit 77; }
        set -- setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T"
    fi
    "$@" TMPDIR="$T" SL_EMUL_ARCHS=skylakex sh "$SL_SRC/scripts/emulated-node-check.sh" "$SL_BUILD" "$T/art" >"$T/out" 2>&1
    rc=$?
    cat "$T/out"
    [ "$rc" = 77 ] || fail "exit status $rc: expected 77 (Skylake-SP needs root)"
    [ "$(wc -l <"$T/out")" = 1 ] || fail "expected one line"
    grep -q "^emulated-node-check: SKIP: skylakex left out: .* only as root (uid 65534)" "$T/out" ||
        fail "the line does not say that Skylake-SP needs root"
    echo "script_paths: $mode: PASS"
    exit 0
fi

mkdir "$T/bin"
case $mode in
version55) version=5.5.1 ;;
fails) version=5.2.2 ;;
*) echo "script_paths.sh: MODE '$mode': expected version55, fails or nonroot" >&2; exit 2 ;;
esac
cat >"$T/bin/likwid-perfctr" <<STANDIN
#!/bin/sh
if [ "\$1" = -v ]; then echo "likwid-perfctr -- Version $version (commit: none)"; exit 0; fi
echo "ERROR: stand-in likwid-perfctr of script_paths.sh" >&2
exit 1
STANDIN
chmod +x "$T/bin/likwid-perfctr"

PATH=$T/bin:$PATH SL_EMUL_ARCHS=zen2 SL_EMUL_GROUPS=CLOCK \
    sh "$SL_SRC/scripts/emulated-node-check.sh" "$SL_BUILD" "$T/art" >"$T/out" 2>&1
rc=$?
cat "$T/out"
case $mode in
version55)
    [ "$rc" = 77 ] || fail "exit status $rc: expected 77 (cannot emulate LIKWID 5.5)"
    [ "$(wc -l <"$T/out")" = 1 ] || fail "expected one line"
    grep -q "^emulated-node-check: SKIP: likwid-perfctr is 'Version 5.5.1'" "$T/out" || fail "the line does not name the version"
    ;;
fails)
    [ "$rc" = 1 ] || fail "exit status $rc: expected 1"
    grep -q "FAIL: zen2 CLOCK: likwid-perfctr -M 0 -m exited 1: expected 0" "$T/out" || fail "no line naming the failed run"
    grep -q "stand-in likwid-perfctr" "$T/out" || fail "likwid-perfctr's stderr is not shown"
    ;;
esac
echo "script_paths: $mode: PASS"
