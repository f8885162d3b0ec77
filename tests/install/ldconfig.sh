#!/bin/sh
# scripts/install-ldconfig.sh, the install step that makes a bare
# LD_PRELOAD=libscope_likwid.so work, with stand-ins for ldconfig and id
# first in PATH (the real cache is not touched): with DESTDIR it does
# nothing; as root it runs ldconfig and is silent when the cache then lists
# the installed shim; otherwise one line says why the bare name will not
# work and what does. Always exit 0 (it never fails an install).
#   ldconfig.sh SCRIPT
set -u
script=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
lib=/opt/sl-test/lib
fails=0
checks=0
mkdir "$T/bin"
cat >"$T/bin/ldconfig" <<EOS
#!/bin/sh
echo "ldconfig \$*" >>"$T/calls"
[ -z "\${FAKE_LDCONFIG_FAIL:-}" ] || exit 1
if [ "\${1:-}" = -p ] && [ -n "\${FAKE_LISTED:-}" ]; then
    printf '\tlibscope_likwid.so (libc6,x86-64) => %s/libscope_likwid.so\n' "\$FAKE_LISTED"
fi
exit 0
EOS
cat >"$T/bin/id" <<'EOS'
#!/bin/sh
echo "${FAKE_UID:-0}"
EOS
chmod +x "$T/bin/ldconfig" "$T/bin/id"

# case NAME EXPECTED_CALLS EXPECTED_STDERR_REGEX (empty: no output) [VAR=VALUE...]
case_() {
    name=$1 calls=$2 err=$3
    shift 3
    checks=$((checks + 1))
    rm -f "$T/calls"
    env -u DESTDIR "$@" PATH="$T/bin:$PATH" sh "$script" "$lib" >"$T/out" 2>"$T/err"
    rc=$?
    got=$(cat "$T/calls" 2>/dev/null | tr '\n' ';')
    if [ "$rc" != 0 ]; then
        echo "FAIL $name: exit $rc: expected 0"; fails=1
    fi
    if [ "$got" != "$calls" ]; then
        echo "FAIL $name: ldconfig calls '$got': expected '$calls'"; fails=1
    fi
    if [ -s "$T/out" ]; then
        echo "FAIL $name: wrote to stdout: $(cat "$T/out")"; fails=1
    fi
    if [ -z "$err" ]; then
        [ ! -s "$T/err" ] || { echo "FAIL $name: stderr '$(cat "$T/err")': expected nothing"; fails=1; }
    elif [ "$(wc -l <"$T/err")" != 1 ] || ! grep -Eq "$err" "$T/err"; then
        echo "FAIL $name: stderr '$(cat "$T/err")': expected one line matching $err"; fails=1
    fi
}
case_ destdir '' '' DESTDIR=/tmp/stage FAKE_LISTED=$lib
case_ root-listed 'ldconfig ;ldconfig -p;' '' FAKE_LISTED=$lib
case_ root-not-in-path 'ldconfig ;ldconfig -p;' \
    "^scope-likwid: $lib is not in the dynamic linker's search path .*use LD_PRELOAD=$lib/libscope_likwid.so" \
    FAKE_LISTED=/usr/lib
case_ ldconfig-fails 'ldconfig ;' "^scope-likwid: ldconfig failed: .*LD_PRELOAD=$lib/libscope_likwid.so does" \
    FAKE_LDCONFIG_FAIL=1
case_ not-root '' "^scope-likwid: not root, ldconfig not run: .*LD_PRELOAD=$lib/libscope_likwid.so works" \
    FAKE_UID=1000
[ "$fails" = 0 ] && echo "ok: $checks cases"
exit "$fails"
