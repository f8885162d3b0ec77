#!/bin/sh
# A site's install on a host with only the runtime dependencies: this source
# tree configured where pkg-config sees every package but Criterion (one
# configure line says the tests are not built), built, and installed with
# `meson install` into a fresh prefix. Then, on the installed tree:
#   - the advice for LD_PRELOAD reaches meson install's own output (a
#     stand-in ldconfig: the system's cache is not touched);
#   - `module load scope-likwid` under Lmod and under Environment Modules
#     puts the installed tool on PATH and man page on MANPATH, sets
#     SCOPE_LIKWID_SHIM and no LD_PRELOAD; the -preload module also sets
#     LD_PRELOAD; unload restores PATH;
#   - the installed bash completion completes `scope-likwid sh<TAB>`.
# Both module systems are among scripts/install-deps.sh's packages (Lmod
# installed, Environment Modules unpacked beside it: the two conflict).
#   SL_SRC  the source tree
. "$SL_SRC/tests/e2e/lib.sh"

# 1. The host view: pkg-config's search path as links, Criterion's left out.
mkdir "$T/pc" "$T/fakebin"
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
    for f in "$d"/*.pc; do
        [ -e "$f" ] || continue
        case ${f##*/} in criterion*) ;; *) ln -sf "$f" "$T/pc/" ;; esac
    done
done
export PKG_CONFIG_LIBDIR="$T/pc" PKG_CONFIG_PATH=
! pkg-config --exists criterion || fail "the host view still finds criterion: the test proves nothing"

timeout -k 5 300 meson setup "$T/b" "$SL_SRC" --prefix="$T/p" >"$T/setup.out" 2>&1
rc=$?
[ "$rc" = 0 ] || { fail "meson setup without Criterion exited $rc: expected 0"; sed 's/^/    /' "$T/setup.out"; finish; }
n=$(grep -c 'tests not built: Criterion not found' "$T/setup.out")
[ "$n" = 1 ] || fail "meson setup printed $n 'tests not built: Criterion not found' lines: expected 1"
grep -q 'criterion' "$T/b/build.ninja" && fail "build.ninja mentions criterion: expected no test built"

timeout -k 5 900 ninja -C "$T/b" >"$T/ninja.out" 2>&1 ||
    { fail "ninja without Criterion failed"; tail -20 "$T/ninja.out" | sed 's/^/    /'; finish; }

# 2. meson install into the prefix, root or not; ldconfig is a stand-in
# that knows no libscope_likwid.so, so the advice must come.
printf '#!/bin/sh\nexit 0\n' >"$T/fakebin/ldconfig"
chmod +x "$T/fakebin/ldconfig"
PATH="$T/fakebin:$PATH" timeout -k 5 300 meson install -C "$T/b" --no-rebuild >"$T/install.out" 2>&1 ||
    { fail "meson install into $T/p failed"; sed 's/^/    /' "$T/install.out"; finish; }
shim=$(find "$T/p" -name libscope_likwid.so)
[ -f "$shim" ] || { fail "no libscope_likwid.so under $T/p"; finish; }
grep -q "^scope-likwid: .*LD_PRELOAD=$shim\b" "$T/install.out" ||
    { fail "meson install's output lacks the advice naming LD_PRELOAD=$shim"; sed 's/^/    /' "$T/install.out"; }
MODS=$T/p/share/modulefiles

# 3. The module systems. module_env TOOL ARGS...: the shell code the module
# command prints, evaluated in a subshell that prints the variables checked.
lmod=/usr/share/lmod/lmod/libexec/lmod
envmod=
for c in /usr/lib/x86_64-linux-gnu/modulecmd.tcl \
         /opt/scope-likwid-test/environment-modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl; do
    [ -f "$c" ] && envmod=$c && break
done
check_modules() {  # NAME CMD...: CMD prints shell code for `load|unload MODULE`
    sys=$1
    shift
    out=$(env -u MANPATH -u LD_PRELOAD MODULEPATH="$MODS" bash -c '
        cmd() { "$@" 2>/dev/null; }
        eval "$(cmd "$@" load scope-likwid)"
        printf "path=%s\nshim=%s\npreload=%s\n" "$(command -v scope-likwid)" "$SCOPE_LIKWID_SHIM" "${LD_PRELOAD:-}"
        printf "version=%s\nman=%s\n" "$(scope-likwid --version 2>&1)" "$(man -w scope-likwid 2>/dev/null)"
        printf "sysman=%s\n" "$(man -w ls 2>/dev/null)"
        eval "$(cmd "$@" unload scope-likwid)"
        printf "after=%s\n" "$(command -v scope-likwid)"
        eval "$(cmd "$@" load scope-likwid/'"$SL_VERSION"'-preload)"
        printf "preload2=%s\n" "${LD_PRELOAD:-}"' sh "$@")
    get() { printf '%s\n' "$out" | sed -n "s/^$1=//p"; }
    [ "$(get path)" = "$T/p/bin/scope-likwid" ] ||
        fail "$sys: module load scope-likwid: scope-likwid is '$(get path)': expected $T/p/bin/scope-likwid"
    [ "$(get version)" = "scope-likwid $SL_VERSION" ] || fail "$sys: scope-likwid --version printed '$(get version)'"
    [ "$(get shim)" = "$shim" ] || fail "$sys: SCOPE_LIKWID_SHIM='$(get shim)': expected $shim"
    [ -z "$(get preload)" ] || fail "$sys: module load scope-likwid set LD_PRELOAD='$(get preload)': expected it unset"
    case $(get man) in "$T/p/share/man/"*) ;; *) fail "$sys: man -w scope-likwid gave '$(get man)': expected the installed page" ;; esac
    [ -n "$(get sysman)" ] || fail "$sys: after module load, man -w ls finds nothing: MANPATH hides the system's pages"
    [ "$(get after)" != "$T/p/bin/scope-likwid" ] || fail "$sys: module unload left $T/p/bin on PATH"
    [ "$(get preload2)" = "$shim" ] || fail "$sys: the -preload module set LD_PRELOAD='$(get preload2)': expected $shim"
}
if [ -f "$lmod" ]; then
    check_modules Lmod "$lmod" bash
else
    fail "Lmod not found ($lmod): scripts/install-deps.sh installs it"
fi
if [ -n "$envmod" ]; then
    check_modules "Environment Modules" tclsh "$envmod" bash
else
    fail "Environment Modules' modulecmd.tcl not found: scripts/install-deps.sh unpacks it"
fi

# 4. The installed completion, as bash-completion would load it.
comp=$T/p/share/bash-completion/completions/scope-likwid
[ -f "$comp" ] || fail "no bash completion at $comp"
got=$(PATH="$T/p/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(scope-likwid sh); COMP_CWORD=1
    _scope_likwid; printf "%s\n" "${COMPREPLY[@]}"' sh "$comp")
[ "$got" = show ] || fail "installed completion of 'scope-likwid sh<TAB>' gave '$got': expected show"
finish
