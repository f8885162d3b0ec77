#!/bin/sh
# A real Slurm (Debian's slurm-wlm and munge): one node on loopback, its
# daemons started here as root with a private munge socket and ports, jobs
# submitted with sbatch by an ordinary user made for the test (slslurm*),
# all cases as jobs at once (the walltime's minute is the test's length):
#   recipe    README.md's batch-script block as written, two jobs at once
#             into one out/: each ends with job-JOB.h5 holding its two
#             ranks (every call), its /metadata of Slurm's 40-odd variables
#   steps     the block with its srun twice and two serial runs of the
#             script: one merged file per step, one per serial run (each
#             its own run_id, mpi_size 1)
#   walltime  --time=1, a marker loop in two ranks of two threads: at the
#             time limit each rank's result is written by the shim (no
#             journal left), with every completed call, and the job output
#             says so in one line per rank
#   scancel   the same for scancel
#   other     while the walltime job runs, recover from "another node" (a
#             host name and boot id of its own: UTS and mount namespaces)
#             leaves its journals alone, one line each (Slurm: the step runs)
#   killed    ranks killed by SIGKILL: recover from the other node, once
#             Slurm says the step ended, makes results with every call and
#             the /metadata noted at Init
#   killwait  a writer that starts later than half of KillWait (a wrapper
#             that sleeps first): it writes nothing, the job output says so
#             and names the journal, and recover makes the result from it
# KillWait is 10 s here (slurm.conf): the writer keeps to half of it.
# SKIP (77, one line) without root, without slurm-wlm and munge (scripts/
# install-deps.sh --all), or where the daemons cannot start.
# usage: slurm.sh (SL_* paths in the environment: tests/slurm/meson.build)
set -u
PY=/usr/bin/python3
SCRIPT=slurm
FAILED=0
fail() { printf '%s: FAIL: %s\n' "$SCRIPT" "$*"; FAILED=1; }
say() { printf '%s: %s\n' "$SCRIPT" "$*"; }
skip() { printf '%s: SKIP: %s\n' "$SCRIPT" "$*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root to start munged, slurmctld and slurmd"
for b in munged slurmctld slurmd; do
    [ -x "/usr/sbin/$b" ] || skip "/usr/sbin/$b missing (Debian packages slurm-wlm munge: scripts/install-deps.sh --all)"
done
for b in sbatch squeue scancel scontrol useradd runuser unshare; do
    command -v "$b" >/dev/null 2>&1 || skip "$b missing (Debian packages slurm-wlm, passwd, util-linux)"
done
"$PY" -c 'import h5py' 2>/dev/null || skip "no h5py for $PY (Debian package python3-h5py)"
for v in SL_SHIM SL_CLI SL_WRITE SL_COLLECT SL_SOLVER SL_LOOP_APP SL_SRC; do
    eval "p=\${$v:-}"
    [ -e "$p" ] || { echo "$SCRIPT: FAIL: $v='$p' does not exist"; exit 1; }
done
CHECK="$PY $SL_SRC/tests/slurm/slurm_check.py"

D=$(mktemp -d /tmp/sl-slurm.XXXXXX) || exit 1
chmod 755 "$D"
U=slslurm$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
cleanup() {
    if [ -f "$D/slurm.conf" ]; then
        SLURM_CONF=$D/slurm.conf scancel -u "$U" >/dev/null 2>&1
        for i in $(seq 30); do
            [ -z "$(SLURM_CONF=$D/slurm.conf squeue -h -u "$U" 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    for d in slurmd slurmctld munged; do
        [ -f "$D/$d.pid" ] && kill "$(cat "$D/$d.pid")" 2>/dev/null
    done
    for p in $(ps -o pid= -u "$U" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    id "$U" >/dev/null 2>&1 && userdel "$U" 2>/dev/null
    if [ "$FAILED" = 0 ] && [ "${SL_KEEP:-0}" != 1 ]; then rm -rf "$D"; else say "files in $D"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the cluster ----
useradd -M -s /bin/sh -U "$U" || skip "useradd $U failed"
mkdir -p "$D/b/shim" "$D/b/helpers" "$D/b/tools" "$D/ctld" "$D/spool" "$D/log" "$D/jobs"
# what the user runs, where the user can read it (the build tree may not be)
cp "$SL_SHIM" "$D/b/shim/" && cp "$SL_WRITE" "$SL_COLLECT" "$D/b/helpers/" &&
    cp "$SL_CLI" "$D/b/tools/scope-likwid" || { fail "copying the build"; exit 1; }
chmod -R a+rX "$D/b"
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$D/munge.key"
echo 00000000-1111-2222-3333-444444444444 >"$D/other-boot"
H=$(hostname)
port=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 30000))
cat >"$D/slurm.conf" <<EOF
ClusterName=sltest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/ctld
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=10
OverTimeLimit=0
MinJobAge=600
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=sl1 NodeHostname=$H NodeAddr=127.0.0.1 CPUs=16 Sockets=1 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=sl1 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
SLURM_CONF=$D/slurm.conf
export SLURM_CONF
/usr/sbin/munged --socket="$D/munge.sock" --key-file="$D/munge.key" --pid-file="$D/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munged.seed" --force >"$D/log/munged.out" 2>&1 ||
    skip "munged does not start: $(tail -n1 "$D/log/munged.out")"
/usr/sbin/slurmctld -f "$D/slurm.conf" >"$D/log/slurmctld.out" 2>&1 ||
    skip "slurmctld does not start: $(tail -n1 "$D/log/slurmctld.out")"
/usr/sbin/slurmd -f "$D/slurm.conf" -N sl1 >"$D/log/slurmd.out" 2>&1 ||
    skip "slurmd does not start: $(tail -n1 "$D/log/slurmd.out")"
for i in $(seq 60); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
    sleep 0.5
done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] ||
    skip "the node does not come up: $(sinfo -h 2>&1 | head -n1); $(tail -n1 "$D/log/slurmd.log" 2>/dev/null)"
say "Slurm $(sinfo -V | cut -d' ' -f2) up on port $port, user $U, KillWait $(scontrol show config | sed -n 's/^KillWait *= *//p')"

# as_user CMD...: CMD as the test user, in a clean environment
as_user() {
    runuser -u "$U" -- env -i PATH="$D/b/tools:/usr/bin:/bin" LD_LIBRARY_PATH="$D/b/shim" \
        SLURM_CONF="$SLURM_CONF" HOME="$D/jobs" USER="$U" LOGNAME="$U" OMP_NUM_THREADS=2 \
        ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
        ${TSAN_OPTIONS:+TSAN_OPTIONS=$TSAN_OPTIONS} "$@"
}
# case_dir NAME: a directory of the user's with the applications
case_dir() {
    mkdir -p "$D/jobs/$1"
    cp "$SL_SOLVER" "$D/jobs/$1/app"
    cp "$SL_LOOP_APP" "$D/jobs/$1/loop_app"
    chown -R "$U:" "$D/jobs/$1"
}
# submit NAME SCRIPT SBATCH-OPTIONS...: the job's id
submit() {
    dir=$D/jobs/$1 script=$2
    shift 2
    chown "$U:" "$dir/$script"
    (cd "$dir" && as_user sbatch --parsable -o slurm-%j.out "$@" "$script") 2>"$D/submit.err" |
        cut -d';' -f1
}
# wait_end JOB SECONDS: until the job left the queue
wait_end() {
    for i in $(seq $(($2 * 2))); do
        [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    fail "job $1 still in the queue after $2 s: $(squeue -h -j "$1")"
    return 1
}
state() { scontrol -o show job "$1" | tr ' ' '\n' | sed -n 's/^JobState=//p'; }
# wait_started JOB DIR: both loop_app ranks in their loop
wait_started() {
    for i in $(seq 120); do
        [ "$(grep -c 'loop_app: started' "$2/slurm-$1.out" 2>/dev/null)" = 2 ] && return 0
        sleep 0.25
    done
    fail "job $1: loop_app did not start: $(cat "$2/slurm-$1.out" 2>/dev/null)"
    return 1
}
# other_node CMD...: CMD as the test user, seen as another node: its own
# host name and boot id
other_node() {
    unshare -u -m sh -c 'hostname sl-other-node && mount --bind "$0" /proc/sys/kernel/random/boot_id && exec "$@"' \
        "$D/other-boot" runuser -u "$U" -- env -i PATH="$D/b/tools:/usr/bin:/bin" \
        SLURM_CONF="$SLURM_CONF" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} "$@"
}

# README.md's batch-script block, as written
awk '/^```sh$/ { inb = 1; buf = ""; next }
     /^```$/ { if (inb && buf ~ /srun /) { printf "%s", buf; exit } inb = 0; next }
     inb { buf = buf $0 "\n" }' "$SL_SRC/README.md" >"$D/recipe.body"
grep -q 'srun ' "$D/recipe.body" || { fail "no batch-script block with srun in README.md"; exit 1; }
srun_line=$(grep 'srun ' "$D/recipe.body")
loop_line=$(printf '%s\n' "$srun_line" | sed 's|\./app|sh -c '"'"'exec ./loop_app 0 counts.$SLURM_PROCID'"'"'|')

case_dir recipe
{ echo '#!/bin/sh'; cat "$D/recipe.body"; } >"$D/jobs/recipe/job.sh"
case_dir steps
{
    echo '#!/bin/sh'
    awk -v s="$srun_line" '{ print } $0 == s { print s; print "LD_PRELOAD=libscope_likwid.so ./app"; print "LD_PRELOAD=libscope_likwid.so ./app" }' "$D/recipe.body"
} >"$D/jobs/steps/job.sh"
for c in walltime scancel killed killwait; do
    case_dir $c
    { echo '#!/bin/sh'; echo 'export SCOPE_LIKWID_OUTPUT=out/'; echo "$loop_line"; } >"$D/jobs/$c/job.sh"
done
# a writer that starts 6 s after the signal: past half of KillWait (5 s)
printf '#!/bin/sh\nsleep 6\nexec %s "$@"\n' "$D/b/helpers/scope-likwid-write" >"$D/jobs/killwait/slow-writer"
chmod 755 "$D/jobs/killwait/slow-writer"
sed -i '2i export SCOPE_LIKWID_WRITER=$PWD/slow-writer' "$D/jobs/killwait/job.sh"

# ---- all jobs at once ----
R1=$(submit recipe job.sh -n 2)
R2=$(submit recipe job.sh -n 2)
ST=$(submit steps job.sh -n 2)
WT=$(submit walltime job.sh -n 2 --time=1)
SC=$(submit scancel job.sh -n 2)
KL=$(submit killed job.sh -n 2)
KW=$(submit killwait job.sh -n 2)
for j in "$R1" "$R2" "$ST" "$WT" "$SC" "$KL" "$KW"; do
    case $j in '' | *[!0-9]*) fail "sbatch failed: $(cat "$D/submit.err")"; exit 1 ;; esac
done
say "jobs: recipe $R1 $R2, steps $ST, walltime $WT, scancel $SC, killed $KL, killwait $KW"

# scancel, SIGKILL and the slow writer while they loop
J=$D/jobs
wait_started "$SC" "$J/scancel" && as_user scancel "$SC"
wait_started "$KL" "$J/killed" && as_user scancel -s KILL "$KL.0"
wait_started "$KW" "$J/killwait" && as_user scancel "$KW"

# ---- recipe: two jobs into one out/ ----
for j in "$R1" "$R2"; do
    wait_end "$j" 120 || continue
    [ "$(state "$j")" = COMPLETED ] || fail "recipe job $j: $(state "$j"): $(cat "$J/recipe/slurm-$j.out")"
    grep -qx "wrote job-$j.h5" "$J/recipe/slurm-$j.out" || fail "recipe job $j: no 'wrote job-$j.h5': $(cat "$J/recipe/slurm-$j.out")"
    [ -f "$J/recipe/job-$j.h5" ] && $CHECK merged "$J/recipe/job-$j.h5" "$j" 0 2 42 "$U" ||
        fail "recipe job $j: job-$j.h5"
done
ls "$J"/recipe/out/*.journal >/dev/null 2>&1 && fail "recipe: journals left: $(ls "$J/recipe/out")"

# ---- steps: one file per launch ----
if wait_end "$ST" 120; then
    [ "$(state "$ST")" = COMPLETED ] || fail "steps job $ST: $(state "$ST"): $(cat "$J/steps/slurm-$ST.out")"
    for s in 0 1; do
        f=$J/steps/job-$ST.slurm-$ST.$s.h5
        [ -f "$f" ] && $CHECK merged "$f" "$ST" "$s" 2 42 "$U" || fail "steps: $f: $(cat "$J/steps/slurm-$ST.out")"
    done
    n=0
    for f in "$J/steps/job-$ST.slurm-$ST"_*.h5; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        $CHECK serial "$f" "$ST" 42 || fail "steps: serial run $f"
    done
    [ "$n" = 2 ] || fail "steps: $n merged files of the script's serial runs: expected 2: $(ls "$J/steps")"
    [ "$(grep -c '^wrote ' "$J/steps/slurm-$ST.out")" = 4 ] || fail "steps: expected 4 'wrote' lines: $(cat "$J/steps/slurm-$ST.out")"
fi

# ---- other node: the walltime job's journals, while it runs ----
if wait_started "$WT" "$J/walltime"; then
    other_node scope-likwid recover "$J/walltime/out" >"$D/other.out" 2>"$D/other.err"
    rc=$?
    [ "$rc" = 0 ] || fail "recover from the other node: exit $rc: $(cat "$D/other.err")"
    [ "$(ls "$J"/walltime/out/*.journal 2>/dev/null | wc -l)" = 2 ] || fail "recover from the other node touched live journals: $(ls "$J/walltime/out")"
    ls "$J"/walltime/out/*.h5 >/dev/null 2>&1 && fail "recover from the other node wrote results of live processes"
    [ "$(grep -c "written on host $H, not this one (sl-other-node), by process [0-9]*; Slurm says step $WT.0 still runs: left alone\$" "$D/other.err")" = 2 ] &&
        [ "$(wc -l <"$D/other.err")" = 2 ] || fail "recover from the other node: expected one line per journal left: $(cat "$D/other.err")"
fi

# ---- killed: recovered from the other node once the step ended ----
if wait_end "$KL" 60; then
    other_node scope-likwid recover "$J/killed/out" >"$D/killed.out" 2>"$D/killed.err" ||
        fail "recover of the killed job: $(cat "$D/killed.err")"
    [ "$(grep -c "Slurm says step $KL.0 has ended): wrote" "$D/killed.err")" = 2 ] ||
        fail "recover of the killed job from the other node: $(cat "$D/killed.err")"
    for r in 0 1; do
        $CHECK killed "$J/killed/out/scope-likwid-$KL-rank$r.h5" "$J/killed/counts.$r" \
            "partial: recovered from the journal by scope-likwid recover" "$KL" "$U" ||
            fail "killed: rank $r"
    done
fi

# ---- the shim wrote them at the signal: scancel, then the walltime ----
for c in scancel walltime; do
    case $c in scancel) j=$SC want=CANCELLED ;; walltime) j=$WT want=TIMEOUT ;; esac
    wait_end "$j" 150 || continue
    [ "$(state "$j")" = "$want" ] || fail "$c job $j: $(state "$j"), expected $want"
    ls "$J/$c"/out/*.journal >/dev/null 2>&1 && fail "$c: journals left: $(ls "$J/$c/out")"
    for r in 0 1; do
        f=$J/$c/out/scope-likwid-$j-rank$r.h5
        [ "$(grep -c "^scope-likwid: wrote $f\$" "$J/$c/slurm-$j.out")" = 1 ] ||
            fail "$c: the job output does not say in one line that rank $r's result was written: $(cat "$J/$c/slurm-$j.out")"
        [ -f "$f" ] && $CHECK killed "$f" "$J/$c/counts.$r" \
            "partial: recovered from the journal by the shim's signal handler: the process was ended by signal 15 (Terminated)" "$j" "$U" ||
            fail "$c: rank $r"
    done
done

# ---- killwait: too late for KillWait, said so; recover makes it ----
if wait_end "$KW" 60; then
    out=$J/killwait/slurm-$KW.out
    [ "$(grep -c "^scope-likwid: could not write the result at signal 15 (Terminated) (writer exited with status 1: scope-likwid-write: no time left within the deadline (half of Slurm's KillWait of 10 s (slurm.conf $SLURM_CONF), 5 s after the signal): nothing written, the journal .*\.journal is kept); the timing is in .*\.journal: recover it with 'scope-likwid recover .*\.journal'\$" "$out")" = 2 ] ||
        fail "killwait: expected one line per rank saying nothing was written: $(cat "$out")"
    [ "$(ls "$J"/killwait/out/*.journal 2>/dev/null | wc -l)" = 2 ] || fail "killwait: expected the two journals kept: $(ls "$J/killwait/out")"
    ls "$J"/killwait/out/*.h5 >/dev/null 2>&1 && fail "killwait: a result was written after all"
    (cd "$J/killwait" && as_user scope-likwid recover out) >"$D/kw.out" 2>"$D/kw.err" || fail "killwait: recover: $(cat "$D/kw.err")"
    for r in 0 1; do
        $CHECK killed "$J/killwait/out/scope-likwid-$KW-rank$r.h5" "$J/killwait/counts.$r" \
            "partial: recovered from the journal by scope-likwid recover: the process was ended by signal 15 (Terminated)" "$KW" "$U" ||
            fail "killwait: rank $r"
    done
fi

[ "$FAILED" = 0 ] && say "ok" || say "failed"
exit "$FAILED"
