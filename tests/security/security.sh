#!/bin/sh
# Site-wide safety (docs/SECURITY.md): two ordinary users made by the test
# itself (slsec<case>a the victim, slsec<case>b the other user), and root as
# a batch system's epilog, replay the ways one user could reach another's
# results, processes or files; each case shows it held.
#   security.sh squat     run's helper host name taken by the other user
#   security.sh planted   a directory the other user made first
#   security.sh modes     who may read results, journals, rescue files
#   security.sh group     a live journal and a member of the same group
#   security.sh journal   a planted journal, recovered by the victim and root
#   security.sh fifo      FIFOs, devices and links named *.journal
#   security.sh setuid    a setuid program with markers
#   security.sh user      %u with USER unset or naming someone else
# Needs root (to make the users), else SKIP.
. "$(dirname "$0")/../e2e/lib.sh"
need SL_SHIM SL_CLI SL_WRITE SL_COLLECT SL_SEC_APP SL_JRN_EDIT SL_CHECKER
pick_python
case=${1:?usage: security.sh CASE}
[ "$(id -u)" = 0 ] || skip "needs root to make the test's two users"
for c in useradd userdel groupadd groupdel setpriv timeout; do
    command -v "$c" >/dev/null 2>&1 || skip "$c not found (Debian packages passwd, util-linux, coreutils)"
done

# ---- the users, the programs, cleaning up -----------------------------------

A=slsec${case}a
B=slsec${case}b
USERS=""
GROUPS_MADE=""
PIDS=""
cleanup() {
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    for u in $USERS; do userdel -f "$u" >/dev/null 2>&1; done
    for g in $GROUPS_MADE; do groupdel "$g" >/dev/null 2>&1; done
    [ "$SL_KEEP" = 1 ] || rm -rf "$T"
}
trap cleanup EXIT

# retry CMD...: useradd and groupadd lock /etc/passwd; other cases run at once
retry() {
    i=0
    while ! "$@" 2>"$T/retry.err"; do
        i=$((i + 1))
        [ $i -lt 50 ] || return 1
        sleep 0.2
    done
}

# mkuser NAME [GROUP]: an ordinary user with a group of its own (and GROUP)
mkuser() {
    id "$1" >/dev/null 2>&1 && userdel -f "$1" >/dev/null 2>&1
    retry useradd -M -d /nonexistent -s /usr/sbin/nologin -U ${2:+-G "$2"} "$1" ||
        { fail "cannot make the user $1: $(cat "$T/retry.err")"; finish; }
    USERS="$USERS $1"
}

mkgroup() {
    getent group "$1" >/dev/null 2>&1 && groupdel "$1" >/dev/null 2>&1
    retry groupadd "$1" || { fail "cannot make the group $1: $(cat "$T/retry.err")"; finish; }
    GROUPS_MADE="$GROUPS_MADE $1"
}

# The pieces, where every user may run them (the build tree may be in a
# directory of root's): the shim finds its helpers beside it, run its shim.
chmod 755 "$T"
mkdir -p "$T/b/shim" "$T/b/helpers" "$T/b/tools" "$T/logs"
cp "$SL_SHIM" "$T/b/shim/"
cp "$SL_WRITE" "$SL_COLLECT" "$T/b/helpers/"
cp "$SL_CLI" "$T/b/tools/scope-likwid"
cp "$SL_SEC_APP" "$T/b/app"
cp "$SL_JRN_EDIT" "$T/b/jrn_edit"
cp "$SL_SRC/tests/security/slhost.py" "$T/b/"
chmod -R a+rX "$T/b"
SHIM=$T/b/shim/$(basename "$SL_SHIM")
CLI=$T/b/tools/scope-likwid
APP=$T/b/app
SCOPE_LIKWID_WRITER=$T/b/helpers/$(basename "$SL_WRITE")
SCOPE_LIKWID_COLLECTOR=$T/b/helpers/$(basename "$SL_COLLECT")
SCOPE_LIKWID_PERFCTR=none
export SCOPE_LIKWID_WRITER SCOPE_LIKWID_COLLECTOR SCOPE_LIKWID_PERFCTR
L=$T/logs

# home USER: a directory of the user's own (mode 0700), its TMPDIR inside
home() {
    mkdir -p "$T/$1/tmp"
    chown -R "$1:$1" "$T/$1"
    chmod 700 "$T/$1" "$T/$1/tmp"
}

# as TAG USER DIR CMD...: CMD as USER (its own ids and groups) in DIR, its
# TMPDIR its own; TAG.out, TAG.err, TAG.rc in $L; never hangs the suite.
as() {
    tag=$1 u=$2 d=$3
    shift 3
    (cd "$d" && exec timeout -k 5 60 setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
        env HOME=/nonexistent USER="$u" LOGNAME="$u" TMPDIR="$T/$u/tmp" "$@") \
        >"$L/$tag.out" 2>"$L/$tag.err"
    echo $? >"$L/$tag.rc"
    [ "$(cat "$L/$tag.rc")" != 124 ] || fail "$tag: timed out after 60 s: $*"
}

rc() { cat "$L/$1.rc"; }
lines() { grep '^scope-likwid' "$L/$1.err" || true; }
show() {
    say "--- $1: exit status $(rc "$1"); stdout:"
    sed 's/^/    /' "$L/$1.out"
    say "--- $1: stderr:"
    sed 's/^/    /' "$L/$1.err"
}

# mode_is PATH MODE WHAT: the file's permission bits
mode_is() {
    m=$(stat -c %a "$1" 2>/dev/null)
    [ "$m" = "$2" ] || fail "$3: $1 has mode ${m:-(missing)}: expected $2"
}

# owner_is PATH USER
owner_is() {
    o=$(stat -c %U "$1" 2>/dev/null)
    [ "$o" = "$2" ] || fail "$1 belongs to ${o:-(missing)}: expected $2"
}

# attr FILE PATH-IN-FILE NAME: an attribute, read with h5py
attr() {
    "$PY" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    v = f[sys.argv[2]].attrs[sys.argv[3]]
    print(v.decode() if isinstance(v, bytes) else v)' "$1" "$2" "$3"
}

# results DIR: the result files in DIR
results() { ls "$1"/scope-likwid-*.h5 2>/dev/null; }

# one_result DIR WHAT [CALLS]: exactly one result in DIR, checked with h5py
# (CALLS calls of work, default 3)
one_result() {
    calls=${3:-3}
    set -- "$1" "$2" $(results "$1")
    if [ $# != 3 ]; then
        fail "$2: expected one result file in $1, found: $(ls "$1")"
        return 1
    fi
    R=$3
    check "$R" --timing "work=1x$calls" --timing-tags work --no-likwid
}

case $case in

squat)
    # The victim runs `scope-likwid run` with a process that goes on in the
    # background; run ends (its helper host with it), the other user takes
    # the host's name, the process reaches Close. Its shim must send the
    # squatter nothing (no environment, no descriptor), take no answer of
    # its, say so, and deliver the result itself.
    mkuser "$A"
    mkuser "$B"
    home "$A"
    home "$B"
    as run "$A" "$T/$A" env SECRET_TOKEN=s3cret-$$ "$CLI" run -- sh -c \
        "'$APP' wait '$T/$A/go' >'$T/$A/bg.out' 2>'$T/$A/bg.err' & exit 0"
    i=0
    while [ ! -s "$T/$A/go.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    bg=$(cat "$T/$A/go.pid" 2>/dev/null)
    [ -n "$bg" ] || { fail "the background process did not start"; show run; finish; }
    PIDS="$PIDS $bg"
    # the name run gave it (listed for everyone in /proc/net/unix while run ran)
    hname=$(tr '\0' '\n' <"/proc/$bg/environ" | sed -n 's/^SCOPE_LIKWID_RUN_HOST=@//p')
    [ -n "$hname" ] || { fail "the process has no SCOPE_LIKWID_RUN_HOST: run started no host"; finish; }
    grep -q "@$hname" /proc/net/unix && fail "run's host still listens after run ended"
    (cd "$T/$B" && exec setpriv --reuid="$B" --regid="$(id -g "$B")" --init-groups \
        "$PY" "$T/b/slhost.py" "$hname" squat "$T/$B/ready" "$T/$B/squat.log") \
        >"$L/squatter.out" 2>&1 &
    PIDS="$PIDS $!"
    i=0
    while [ ! -f "$T/$B/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -f "$T/$B/ready" ] || fail "the squatter could not take the name: $(cat "$L/squatter.out")"
    touch "$T/$A/go"
    i=0
    while kill -0 "$bg" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    cat "$T/$A/bg.err" >"$L/bg.err"
    grep -q '^done$' "$T/$A/bg.out" || fail "the background process did not finish: $(cat "$T/$A/bg.out")"
    log=$T/$B/squat.log
    if [ -f "$log" ]; then
        grep -q "s3cret-$$" "$log" && fail "the squatter got the victim's environment (SECRET_TOKEN)"
        grep -q "^FDS 0$" "$log" || fail "the squatter got descriptors: $(sed -n '/^FDS/,$p' "$log")"
        n=$(sed -n 's/^BYTES //p' "$log")
        [ "${n:-0}" -le 24 ] || fail "the squatter got $n bytes: expected at most the 24 of a hello"
    fi
    grep -q "failed its check (its listener belongs to another user)" "$L/bg.err" ||
        fail "no line says the host failed its check: $(cat "$L/bg.err")"
    grep -q "wrote /etc/hostname" "$L/bg.err" && fail "the shim took the squatter's answer"
    one_result "$T/$A" "the victim's result" && { owner_is "$R" "$A"; mode_is "$R" 600 "the result"; }
    left=$(ls "$T/$A" | grep -v '^scope-likwid-\(run-\)\{0,1\}[0-9]*\.h5$\|^go\|^bg\.\|^tmp$')
    [ -z "$left" ] || fail "left behind: $left"
    [ "$FAILED" = 0 ] || { show run; cat "$L/bg.err"; } ;;

planted)
    # The site's template puts results under a shared sticky directory, by
    # user and day. The other user made the victim's directories first
    # (mode 0777); the victim's result and journal must not go there.
    mkuser "$A"
    mkuser "$B"
    home "$A"
    mkdir -m 1777 "$T/scratch"
    day=$(date -u +%Y-%m-%d)
    for how in day user; do
        rm -rf "$T/scratch/$A" "$T/$A/tmp"/*
        if [ $how = day ]; then
            as mk.$how "$B" "$T" sh -c "umask 0; mkdir -p '$T/scratch/$A/$day'; chmod 0777 '$T/scratch/$A' '$T/scratch/$A/$day'"
        else
            as mk.$how "$B" "$T" sh -c "umask 0; mkdir -p '$T/scratch/$A'; chmod 0777 '$T/scratch/$A'"
        fi
        as $how "$A" "$T/$A" env SCOPE_LIKWID_OUTPUT="$T/scratch/%u/%d/" LD_PRELOAD="$SHIM" "$APP" plain
        [ "$(rc $how)" = 0 ] || fail "$how: exit status $(rc $how)"
        mine=$(find "$T/scratch" -user "$A")
        [ -z "$mine" ] || fail "$how: the victim's files in the other user's directory: $mine"
        lines $how | grep -q "is not safe for the result ($T/scratch/$A.*: another user could change what is in it); writing $T/$A/tmp/scope-likwid-[0-9]*\.h5 instead" ||
            fail "$how: no line names the unsafe directory and where the result goes: $(lines $how)"
        one_result "$T/$A/tmp" "$how: the result in the victim's TMPDIR" && mode_is "$R" 600 "$how: the result"
        [ "$FAILED" = 0 ] || { show $how; break; }
    done ;;

modes)
    # Under umask 022 and 002: the result 0600, every directory made 0700,
    # the live journal and a rescue file 0600, whatever the umask; the other
    # user can read none of them. SCOPE_LIKWID_SHARE=group: results 0640,
    # directories 0750, journals still 0600. SCOPE_LIKWID_ARGS=0: the
    # command line's arguments (a password) in no result.
    mkuser "$A"
    mkuser "$B"
    home "$A"
    for um in 022 002; do
        out=$T/$A/out$um
        rm -rf "$T/$A/go"*
        as hold$um "$A" "$T/$A" sh -c "umask $um; SCOPE_LIKWID_OUTPUT='$out/sub/' LD_PRELOAD='$SHIM' exec '$APP' hold '$T/$A/go' --password=hunter2" &
        PIDS="$PIDS $!"
        i=0
        while [ ! -f "$T/$A/go.held" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        j=$(ls "$out"/sub/*.journal 2>/dev/null)
        [ -n "$j" ] || fail "umask $um: no journal in $out/sub while the process runs"
        [ -n "$j" ] && mode_is "$j" 600 "umask $um: the live journal"
        mode_is "$out" 700 "umask $um: a directory made"
        mode_is "$out/sub" 700 "umask $um: a directory made"
        if [ -n "$j" ]; then
            as peek$um "$B" "$T" cat "$j"
            [ "$(rc peek$um)" = 0 ] && fail "umask $um: the other user read the live journal"
        fi
        touch "$T/$A/go"
        wait
        [ "$(rc hold$um)" = 0 ] || fail "umask $um: exit status $(rc hold$um)"
        one_result "$out/sub" "umask $um" 6 && mode_is "$R" 600 "umask $um: the result"
        # the writer missing: the rescue file
        as resc$um "$A" "$T/$A" sh -c "umask $um; SCOPE_LIKWID_WRITER=/nonexistent SCOPE_LIKWID_OUTPUT='$out/r/' LD_PRELOAD='$SHIM' exec '$APP' plain"
        r=$(ls "$out"/r/*.rescue 2>/dev/null)
        [ -n "$r" ] && mode_is "$r" 600 "umask $um: the rescue file" || fail "umask $um: no rescue file: $(lines resc$um)"
    done
    chmod 755 "$T/$A"   # the other user may now look into the directory itself
    chmod 755 "$T/$A/out022" "$T/$A/out022/sub" 2>/dev/null
    as read "$B" "$T" sh -c "cat '$T/$A'/out022/sub/*.h5 >/dev/null"
    [ "$(rc read)" = 0 ] && fail "the other user read the result"
    # the site shares with the group
    as share "$A" "$T/$A" sh -c "umask 077; SCOPE_LIKWID_SHARE=group SCOPE_LIKWID_OUTPUT='$T/$A/shared/' LD_PRELOAD='$SHIM' exec '$APP' hold '$T/$A/gs' &
        while [ ! -f '$T/$A/gs.held' ]; do sleep 0.1; done
        stat -c '%a %n' '$T/$A/shared'/*.journal; touch '$T/$A/gs'; wait"
    grep -q '^600 .*\.journal$' "$L/share.out" || fail "shared: the live journal: $(cat "$L/share.out"): expected 600"
    mode_is "$T/$A/shared" 750 "shared: the directory made"
    one_result "$T/$A/shared" "shared" 6 && mode_is "$R" 640 "shared: the result"
    # the arguments left out
    as args "$A" "$T/$A" env SCOPE_LIKWID_ARGS=0 SCOPE_LIKWID_OUTPUT="$T/$A/args/" LD_PRELOAD="$SHIM" \
        "$APP" plain --password=hunter2
    if one_result "$T/$A/args" "arguments left out"; then
        cl=$(attr "$R" rank0 command_line)
        [ "$cl" = "$APP" ] || fail "SCOPE_LIKWID_ARGS=0: command_line '$cl': expected the program alone ($APP)"
    fi
    as argsk "$A" "$T/$A" env SCOPE_LIKWID_ARGS=0 SCOPE_LIKWID_OUTPUT="$T/$A/argsk/" LD_PRELOAD="$SHIM" \
        "$APP" kill --password=hunter2
    j=$(ls "$T/$A/argsk"/*.journal 2>/dev/null)
    [ -n "$j" ] || fail "SCOPE_LIKWID_ARGS=0, killed: no journal left: $(lines argsk)"
    [ -n "$j" ] && grep -q hunter2 "$j" && fail "SCOPE_LIKWID_ARGS=0: the journal holds the arguments"
    R=$(results "$T/$A/out022/sub")
    [ -n "$R" ] && case $(attr "$R" rank0 command_line) in
        *hunter2*) ;;
        *) fail "by default the command line keeps its arguments: $(attr "$R" rank0 command_line)" ;;
    esac
    [ "$FAILED" = 0 ] || for t in hold022 hold002 share args; do show $t; done ;;

group)
    # Both users in one group. The victim works under umask 002 in a
    # directory of its own that the group may read (2750), then in a
    # project directory the group may write (2770, setgid): the other
    # member must not be able to write into the live journal (the process
    # maps it and follows its pointers), and the process must end as
    # without the shim.
    mkgroup "slsec${case}g"
    mkuser "$A" "slsec${case}g"
    mkuser "$B" "slsec${case}g"
    home "$A"
    chmod 711 "$T/$A"
    mkdir "$T/$A/proj" "$T/proj"
    chown "$A:slsec${case}g" "$T/$A/proj"
    chmod 2750 "$T/$A/proj"
    chown "root:slsec${case}g" "$T/proj"
    chmod 2770 "$T/proj"
    for where in "$T/$A/proj" "$T/proj"; do
        [ "$where" = "$T/proj" ] && vt=project || vt=own
        rm -f "$T/$A/go"*
        as hold.$vt "$A" "$where" sh -c "umask 002; LD_PRELOAD='$SHIM' exec '$APP' hold '$T/$A/go'" &
        PIDS="$PIDS $!"
        i=0
        while [ ! -f "$T/$A/go.held" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        j=$(find "$where" "$T/$A/tmp" -name '*.journal' 2>/dev/null | head -n 1)
        [ -n "$j" ] || fail "$vt: no journal while the process runs"
        as poke.$vt "$B" "$T" dd if=/dev/urandom of="$j" bs=4096 count=256 conv=notrunc
        [ "$(rc poke.$vt)" = 0 ] && fail "$vt: the other member of the group wrote into the live journal $j"
        touch "$T/$A/go"
        wait
        [ "$(rc hold.$vt)" = 0 ] || fail "$vt: the process ended with $(rc hold.$vt): expected 0"
        R=$(find "$where" "$T/$A/tmp" -name 'scope-likwid-*.h5' | head -n 1)
        if [ -n "$R" ]; then
            check "$R" --timing "work=1x6" --timing-tags work --no-likwid
        else
            fail "$vt: no result: $(lines hold.$vt)"
        fi
        find "$where" "$T/$A/tmp" -name 'scope-likwid-*' -delete
        [ "$FAILED" = 0 ] || { show hold.$vt; cat "$L/poke.$vt.err"; break; }
    done ;;

journal)
    # The other user leaves a real journal (SIGKILL) and edits its header:
    # the result named in the victim's home, a rescue file and a batch file
    # of the victim's named for removal, a root-only directory. recover run by the victim, and by root (an epilog), must
    # create nothing outside the journal's directory, nothing owned by
    # anyone but the journal's owner, and remove nothing of the victim's.
    mkuser "$A"
    mkuser "$B"
    home "$A"
    home "$B"
    mkdir -m 1777 "$T/shared"
    mkdir -m 700 "$T/rootonly"
    echo "victim's rescue" >"$T/$A/mine.h5.rescue"
    echo "victim's batch" >"$T/$A/keys.h5.batch.rescue"
    chown "$A:$A" "$T/$A/mine.h5.rescue" "$T/$A/keys.h5.batch.rescue"
    chmod 600 "$T/$A/mine.h5.rescue" "$T/$A/keys.h5.batch.rescue"
    as kill "$B" "$T/$B" env SCOPE_LIKWID_OUTPUT="$T/shared/" LD_PRELOAD="$SHIM" "$APP" kill
    j1=$(ls "$T/shared"/*.journal 2>/dev/null | head -n 1)
    [ -n "$j1" ] || { fail "the other user's process left no journal: $(lines kill)"; finish; }
    j2=$T/shared/second.h5.journal
    cp -p "$j1" "$j2"
    as edit1 "$B" "$T" "$T/b/jrn_edit" "$j1" output "$T/$A/keys.h5" batch 1
    as edit2 "$B" "$T" "$T/b/jrn_edit" "$j2" output "$T/rootonly/evil.h5" state 6 rescue "$T/$A/mine.h5.rescue"
    touch "$T/marker"
    sleep 1
    as victim "$A" "$T/$A" "$CLI" recover "$T/shared"
    [ "$(rc victim)" = 0 ] || fail "the victim's recover of a directory with others' journals: exit status $(rc victim)"
    [ "$(grep -c 'skipped: it belongs to uid' "$L/victim.err")" = 2 ] ||
        fail "the victim's recover: expected one 'skipped' line per journal: $(cat "$L/victim.err")"
    # (files: a directory's time also changes when a runtime's temporary
    # file comes and goes in it, as ThreadSanitizer's does in TMPDIR)
    [ -z "$(find "$T" -newer "$T/marker" -user "$A" ! -type d)" ] ||
        fail "the victim's recover made: $(find "$T" -newer "$T/marker" -user "$A" ! -type d)"
    # the epilog
    (timeout -k 5 60 "$CLI" recover "$T/shared") >"$L/root.out" 2>"$L/root.err"
    echo $? >"$L/root.rc"
    [ "$(rc root)" = 0 ] || fail "root's recover: exit status $(rc root)"
    made=$(find "$T" -newer "$T/marker" ! -type d ! -path "$L/*" ! -user "$B")
    [ -z "$made" ] || fail "root's recover made or changed files not the journal's owner's: $made"
    [ -z "$(ls -A "$T/rootonly")" ] || fail "root's recover wrote into the root-only directory: $(ls -A "$T/rootonly")"
    [ ! -e "$T/$A/keys.h5" ] || fail "a recover made $T/$A/keys.h5 in the victim's home"
    [ -f "$T/$A/mine.h5.rescue" ] || fail "root's recover removed the victim's rescue file"
    [ -f "$T/$A/keys.h5.batch.rescue" ] || fail "root's recover removed the victim's batch file"
    outside=$(find "$T" -newer "$T/marker" -type f ! -path "$L/*" ! -path "$T/shared/*")
    [ -z "$outside" ] || fail "root's recover made files outside the journal's directory: $outside"
    for j in "$j1" "$j2"; do
        out=${j%.journal}
        [ -f "$out" ] || { fail "no result beside $j: $(ls "$T/shared")"; continue; }
        owner_is "$out" "$B"
        check "$out" --timing "work=1x3" --timing-tags work --no-likwid --status "recovered"
    done
    grep -q "its header names $T/$A/keys.h5 as the result; the result goes beside the journal: $T/shared/" "$L/root.err" ||
        fail "no line reports the header that disagrees: $(cat "$L/root.err")"
    [ "$FAILED" = 0 ] || { cat "$L/victim.err" "$L/root.err"; } ;;

fifo)
    # FIFOs, a device and a link named *.journal in a shared directory:
    # recover (the victim's, root's) says one line for each and ends at
    # once; a FIFO named on the command line is an error, not a hang.
    mkuser "$A"
    mkuser "$B"
    home "$A"
    mkdir -m 1777 "$T/shared"
    as mk "$B" "$T/shared" sh -c "mkfifo a.journal b.journal; ln -s '$T/$A/victim.journal' c.journal"
    mknod "$T/shared/d.journal" c 1 3
    mkfifo "$T/$A/own.journal"
    chown "$A:$A" "$T/$A/own.journal"
    as victim "$A" "$T/$A" "$CLI" recover "$T/shared"
    [ "$(rc victim)" = 0 ] || fail "the victim's recover: exit status $(rc victim)"
    for x in "a.journal: skipped: it is a FIFO" "b.journal: skipped: it is a FIFO" \
             "c.journal: skipped: it is a symbolic link" "d.journal: skipped: it is a character device"; do
        [ "$(grep -c "$x" "$L/victim.err")" = 1 ] || fail "the victim's recover: no one line '$x': $(cat "$L/victim.err")"
    done
    (timeout -k 5 60 "$CLI" recover "$T/shared") >"$L/root.out" 2>"$L/root.err"
    echo $? >"$L/root.rc"
    [ "$(rc root)" = 0 ] || fail "root's recover: exit status $(rc root)"
    [ "$(grep -c 'skipped: it is' "$L/root.err")" = 4 ] || fail "root's recover: $(cat "$L/root.err")"
    as named "$A" "$T/$A" "$CLI" recover "$T/$A/own.journal"
    [ "$(rc named)" = 1 ] || fail "recover of a FIFO named on the command line: exit status $(rc named): expected 1"
    grep -q "own.journal: skipped: it is a FIFO" "$L/named.err" || fail "recover FIFO: $(cat "$L/named.err")"
    [ "$FAILED" = 0 ] || { cat "$L/victim.err" "$L/root.err"; } ;;

setuid)
    # A setuid-root program with markers (the shim built in: a setuid
    # program ignores LD_PRELOAD from outside the trusted directories), run
    # by the victim in a directory of its own with a secret argument:
    # nothing created, nothing said, the program as without the shim.
    case ${SL_SANITIZE:-none} in none) ;; *) skip "b_sanitize=$SL_SANITIZE: sanitizer runtimes do not run setuid programs as such" ;; esac
    need SL_SETUID_APP
    mkuser "$A"
    home "$A"
    cp "$SL_SETUID_APP" "$T/b/app-suid"
    chown 0:0 "$T/b/app-suid"
    chmod 4755 "$T/b/app-suid"
    touch "$T/marker"
    sleep 1
    as suid "$A" "$T/$A" env SCOPE_LIKWID_OUTPUT="$T/$A/" "$T/b/app-suid" --password=hunter2
    [ "$(rc suid)" = 0 ] || fail "exit status $(rc suid): expected 0"
    [ "$(cat "$L/suid.out")" = "setuid_app: done" ] || fail "stdout: $(cat "$L/suid.out")"
    [ -s "$L/suid.err" ] && fail "it printed: $(cat "$L/suid.err")"
    made=$(find "$T" -newer "$T/marker" ! -path "$L" ! -path "$L/*")
    [ -z "$made" ] || fail "files made: $made" ;;

user)
    # %u is the name of the user running the program, from the passwd
    # database: with USER and LOGNAME unset, with USER naming the other
    # user, and the uid's number for a uid without an entry; /metadata's
    # user likewise.
    mkuser "$A"
    mkuser "$B"
    home "$A"
    mkdir -m 1777 "$T/scratch"
    as unset "$A" "$T/$A" env -u USER -u LOGNAME SCOPE_LIKWID_OUTPUT="$T/scratch/%u/" \
        LD_PRELOAD="$SHIM" "$APP" plain
    as other "$A" "$T/$A" env USER="$B" LOGNAME="$B" SCOPE_LIKWID_OUTPUT="$T/scratch/%u/" \
        LD_PRELOAD="$SHIM" "$APP" plain
    [ ! -e "$T/scratch/nouser" ] || fail "USER unset: the result went to 'nouser'"
    [ ! -e "$T/scratch/$B" ] || fail "USER=$B: the result went to the other user's directory"
    n=$(results "$T/scratch/$A" | wc -l)
    [ "$n" = 2 ] || fail "expected both results in $T/scratch/$A: $(find "$T/scratch")"
    for R in $(results "$T/scratch/$A"); do
        u=$(attr "$R" metadata user)
        [ "$u" = "$A" ] || fail "$R: /metadata user '$u': expected $A"
    done
    uid=4000000123
    getent passwd $uid >/dev/null && skip "uid $uid has a passwd entry here"
    (cd "$T/scratch" && exec timeout -k 5 60 setpriv --reuid=$uid --regid=$uid --clear-groups \
        env -u USER -u LOGNAME TMPDIR="$T/scratch" SCOPE_LIKWID_OUTPUT="$T/scratch/%u/" \
        LD_PRELOAD="$SHIM" "$APP" plain) >"$L/nouid.out" 2>"$L/nouid.err"
    [ -n "$(results "$T/scratch/$uid")" ] ||
        fail "a uid without a passwd entry: no result in $T/scratch/$uid: $(find "$T/scratch") $(cat "$L/nouid.err")"
    [ "$FAILED" = 0 ] || { show unset; show other; } ;;

*) echo "security.sh: unknown case '$case'" >&2; exit 2 ;;
esac
finish
