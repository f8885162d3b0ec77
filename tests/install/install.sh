#!/bin/sh
# `meson install --destdir` of the build under test, then the installed tree
# on its own: exactly the expected files at the expected paths, the installed
# shim finds its installed helpers (no SCOPE_LIKWID_COLLECTOR/WRITER: full_api
# counters from the simulated LIKWID, written as HDF5, not rescued), the
# installed `scope-likwid run` finds the installed shim, and the man pages
# render without warnings. tests/install/meson.build passes the paths:
#   SL_SRC SL_BUILD SL_PREFIX SL_BINDIR SL_LIBDIR SL_LIBEXECDIR SL_DATADIR
#   SL_MANDIR SL_MODULEFILEDIR SL_VERSION SL_HELPER_REL SL_SOLVER SL_SIM_DIR SL_SIM_PERFCTR SL_CHECKER SL_PYTHON
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SOLVER SL_CHECKER SL_SIM_DIR SL_SIM_PERFCTR
pick_python
unset SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_WRITER

# --no-rebuild: meson test has built everything; this only copies files.
# A stand-in ldconfig first in PATH: a staged install must not run it
# (scripts/install-ldconfig.sh is for the real root only).
mkdir "$T/fakebin"
printf '#!/bin/sh\necho "ldconfig $*" >>"%s/ldconfig-calls"\n' "$T" >"$T/fakebin/ldconfig"
chmod +x "$T/fakebin/ldconfig"
run install env PATH="$T/fakebin:$PATH" meson install -C "$SL_BUILD" --destdir "$T/root" --no-rebuild --quiet
if [ "$(rc_of install)" != 0 ]; then
    fail "meson install --destdir exited $(rc_of install): expected 0"
    show_run install
    finish
fi
[ ! -e "$T/ldconfig-calls" ] || fail "meson install --destdir ran $(cat "$T/ldconfig-calls"): expected no ldconfig for a staged tree"

# A meson dir option is relative to the prefix, or absolute.
under_prefix() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$SL_PREFIX" "$1" ;; esac; }
R=$T/root
BIN=$R$(under_prefix "$SL_BINDIR")
LIB=$R$(under_prefix "$SL_LIBDIR")
LIBEXEC=$R$(under_prefix "$SL_LIBEXECDIR")
DOC=$R$(under_prefix "$SL_DATADIR")/doc/scope-likwid
MAN=$R$(under_prefix "$SL_MANDIR")
SHIM=$LIB/libscope_likwid.so
MODS=$R$(under_prefix "$SL_MODULEFILEDIR")/scope-likwid
CLI=$BIN/scope-likwid

# 1. Exactly these files: nothing linkable (no headers, no .pc, no .a), no
# test or example program.
{
    printf '%s\n' "$CLI" "$SHIM" "$LIBEXEC/scope-likwid-collect" "$LIBEXEC/scope-likwid-write" \
        "$DOC/README.md" "$MAN/man1/scope-likwid.1" "$MAN/man7/libscope_likwid.7" \
        "$MODS/$SL_VERSION" "$MODS/$SL_VERSION-preload" "$MODS/.version" \
        "$R$(under_prefix "$SL_DATADIR")/bash-completion/completions/scope-likwid"
    for d in "$SL_SRC"/docs/*.md; do printf '%s\n' "$DOC/$(basename "$d")"; done
} | sort >"$T/expected"
find "$R" ! -type d | sort >"$T/installed"
if ! cmp -s "$T/expected" "$T/installed"; then
    fail "installed files differ from the expected layout (< expected, > installed):"
    diff "$T/expected" "$T/installed" | grep '^[<>]' | sed "s|$R||; s/^/    /"
fi
for x in "$CLI" "$LIBEXEC/scope-likwid-collect" "$LIBEXEC/scope-likwid-write"; do
    [ ! -e "$x" ] || [ -x "$x" ] || fail "${x#"$R"} is not executable: expected mode 755"
done
for d in README.md; do
    [ ! -f "$DOC/$d" ] || cmp -s "$SL_SRC/$d" "$DOC/$d" || fail "${DOC#"$R"}/$d differs from the source's"
done
[ -x "$SHIM" ] && [ -x "$LIBEXEC/scope-likwid-collect" ] && [ -x "$LIBEXEC/scope-likwid-write" ] &&
    [ -x "$CLI" ] || { ls -laR "$R"; finish; }

# The build tree must not be reachable from the installed shim's relative
# lookups, so a result below proves the installed helpers were used.
[ ! -e "$LIB/../helpers" ] || fail "${LIB#"$R"}/../helpers exists in the destdir: the test cannot tell the helpers apart"

# 2. The installed shim, its helpers found relative to itself, under the
# simulated LIKWID: full_api, written as HDF5.
SIMLIKWID_READBACK=ok
export SIMLIKWID_READBACK
SCOPE_LIKWID_VERBOSE=1 sim shim env LD_PRELOAD="$SHIM" "$SL_SOLVER"
[ "$(rc_of shim)" = 0 ] || fail "solver under the installed shim exited $(rc_of shim): expected 0"
if f=$(result_file shim); then
    solver_timing "$f" --source full_api --names --metrics --status "^used full_api$" \
        --likwid-region solve-step=2x20
else
    fail "no single scope-likwid-*.h5 from the installed shim: expected its installed writer to write it"
fi
set -- "$T/shim"/*.rescue
[ ! -e "$1" ] || fail "a rescue file was left ($*): expected the installed writer to succeed"
# the helpers it ran are the installed ones, by the relative path SL_HELPER_REL
for h in collect write; do
    p=$(sed -n "s/^scope-likwid: running \([^ ]*scope-likwid-$h\) .*/\1/p" "$T/shim.err" | head -n1)
    if [ -z "$p" ]; then
        fail "no 'running ...scope-likwid-$h' debug line: expected the installed shim to run it"
    elif [ "$p" != "$LIB/$SL_HELPER_REL/scope-likwid-$h" ] ||
         [ "$(realpath "$p")" != "$(realpath "$LIBEXEC/scope-likwid-$h")" ]; then
        fail "the shim ran $p: expected $LIB/$SL_HELPER_REL/scope-likwid-$h"
    fi
done
[ "$FAILED" = 0 ] || show_run shim

# The installed CLI names the shim it would preload: the installed one.
run shimpath "$CLI" --print-shim-path
[ "$(rc_of shimpath)" = 0 ] && [ "$(cat "$T/shimpath.out")" = "$(readlink -f "$SHIM")" ] ||
    fail "installed scope-likwid --print-shim-path printed '$(cat "$T/shimpath.out")' (exit $(rc_of shimpath)): expected $(readlink -f "$SHIM")"

# 3. The installed CLI: `run` finds the installed shim (bindir -> libdir),
# likwid-perfctr skipped; `show` reads the result.
SCOPE_LIKWID_PERFCTR=none run cli "$CLI" run -- "$SL_SOLVER"
[ "$(rc_of cli)" = 0 ] || fail "installed scope-likwid run exited $(rc_of cli): expected 0"
if f=$(result_file cli); then
    case $(basename "$f") in
    scope-likwid-run-*.h5) ;;
    *) fail "run wrote $(basename "$f"): expected scope-likwid-run-PID.h5" ;;
    esac
    grep -q "^scope-likwid: run: result in $f\$" "$T/cli.err" ||
        fail "installed scope-likwid run did not print 'scope-likwid: run: result in $f'"
    solver_timing "$f" --no-likwid --status "not counting"
    run show "$CLI" show "$f"
    [ "$(rc_of show)" = 0 ] && grep -q "solve-step" "$T/show.out" ||
        { fail "installed scope-likwid show $f failed or lacks solve-step"; show_run show; }
else
    fail "no result file from the installed scope-likwid run"
fi
[ "$FAILED" = 0 ] || show_run cli

# 4. The man pages render without warnings, and the paths in them are the installed ones.
for page in "$MAN/man1/scope-likwid.1" "$MAN/man7/libscope_likwid.7"; do
    [ -f "$page" ] || continue
    w=$(groff -man -ww -z "$page" 2>&1) || fail "groff -man -ww -z ${page#"$R"} failed: $w"
    [ -z "$w" ] || fail "groff warns about ${page#"$R"}: $w"
    if command -v man >/dev/null 2>&1; then
        w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
        [ -z "$w" ] || fail "man --warnings -l ${page#"$R"}: $w"
        MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q "SEE ALSO" ||
            fail "man -l ${page#"$R"} rendered no SEE ALSO section"
    fi
    ! grep -n '@[A-Z_]*@' "$page" || fail "${page#"$R"} has unsubstituted @WORD@s"
    grep -q "${SHIM#"$R"}" "$page" || fail "${page#"$R"} does not name the installed shim ${SHIM#"$R"}"
done

# 5. Without its helpers the installed shim cannot write HDF5: it must keep
# the data in a rescue file and name the installed path it looked for (the
# check above could not pass by accident).
mv "$LIBEXEC" "$LIBEXEC.away"
sim gone env LD_PRELOAD="$SHIM" "$SL_SOLVER"
mv "$LIBEXEC.away" "$LIBEXEC"
[ "$(rc_of gone)" = 0 ] || fail "solver without installed helpers exited $(rc_of gone): expected 0"
set -- "$T/gone"/*.rescue
[ -f "$1" ] || fail "no rescue file without the installed helpers: expected one"
grep -q "$LIB/$SL_HELPER_REL/scope-likwid-write" "$T/gone.err" ||
    { fail "without helpers the shim did not name $LIB/$SL_HELPER_REL/scope-likwid-write"; show_run gone; }
finish
