#!/bin/sh
# A setuid-root program run by an ordinary user (AT_SECURE): the shim leaves
# it alone, every call passed through, no file made anywhere (not in the
# directory the user names, not in the working directory), no helper run,
# no line. The same program without the setuid bit, run the same way, does
# use the user's variables (so the test can tell).
# Needs root (to make the setuid copy; the user is uid 65534, nobody),
# else SKIP.
. "$(dirname "$0")/flib.sh"
need SL_SETUID_APP
case ${SL_SANITIZE:-none} in none) ;; *) skip "b_sanitize=$SL_SANITIZE: sanitizer runtimes do not run setuid programs as such" ;; esac
[ "$(id -u)" = 0 ] || skip "needs root to make a setuid-root copy"
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) not found"
U=65534
chmod 755 "$T"
mkdir -p "$T/bin" "$T/rootonly" "$T/user"
chown "$U:$U" "$T/user"
cp "$SL_SETUID_APP" "$T/bin/app"
chmod 755 "$T/bin/app"
cp "$SL_SETUID_APP" "$T/bin/app-suid"
chown 0:0 "$T/bin/app-suid"
chmod 4755 "$T/bin/app-suid"
# The user's "writer": records who ran it.
printf '#!/bin/sh\nid -u >"%s/user/writer-ran.$(id -u)"\nexit 1\n' "$T" >"$T/user/evil-writer"
chmod 755 "$T/user/evil-writer"
chown "$U:$U" "$T/user/evil-writer"

as_user() {     # as_user NAME PROGRAM: run PROGRAM as the user, with the user's variables
    n=$1
    shift
    (cd "$T/user" && exec setpriv --reuid="$U" --regid="$U" --clear-groups \
        env SCOPE_LIKWID_WRITER="$T/user/evil-writer" SCOPE_LIKWID_COLLECTOR="$T/user/evil-writer" \
            SCOPE_LIKWID_OUTPUT="$T/rootonly/planted.h5" TMPDIR="$T/rootonly" "$@") \
        >"$T/$n.out" 2>"$T/$n.err"
    echo $? >"$T/$n.rc"
}

# The control: no setuid bit, so the user's variables apply.
as_user plain "$T/bin/app"
[ -f "$T/user/writer-ran.$U" ] || fail "control: the user's writer did not run without the setuid bit: the test could not tell"

rm -f "$T/user"/scope-likwid-* "$T/rootonly"/*
as_user suid "$T/bin/app-suid"
[ "$(rc_of suid)" = 0 ] || fail "suid: exit status $(rc_of suid): expected 0"
[ "$(cat "$T/suid.out")" = "setuid_app: done" ] || fail "suid: stdout '$(cat "$T/suid.out")'"
[ -e "$T/user/writer-ran.0" ] && fail "suid: the user's writer ran as root"
ls "$T/rootonly" | grep -q . && fail "suid: files created in the directory the user named: $(ls "$T/rootonly")"
left=$(ls "$T/user" | grep -v '^evil-writer$\|^writer-ran\.')
[ -z "$left" ] || fail "suid: files created in the working directory: $left"
[ -s "$T/suid.err" ] && fail "suid: it printed: $(cat "$T/suid.err")"
[ "$FAILED" = 0 ] || { show_run plain; show_run suid; }
finish
