#!/bin/sh
# /metadata as large as a Slurm job makes it (srun sets 40 to 60 SLURM_*
# variables; more than 32 attributes turned the writer's storage dense,
# which merge refused): two ranks, each with 70 SLURM_* variables, merged
# into one file; the same files rewritten with dense /metadata and rank
# groups (as an older writer, or h5py with libver "latest", makes them)
# merged too. Each merged file: every variable in /metadata (h5py), its
# attributes compact (no v2 B-tree of attribute names in its bytes), read
# by scope-profiler's loader (sp_load.py) and by every command (show, show
# --json, show --summary, export csv and json, diff, plot, merge again).
. "$SL_SRC/tests/e2e/lib.sh"
need SL_SHIM SL_SOLVER SL_CLI
pick_python
SP="$PY $SL_SRC/tests/scope_profiler/sp_load.py"
CALLS=42
NVARS=70

vars=
i=1
while [ $i -le $NVARS ]; do
    vars="$vars SLURM_TEST_VAR_$i=value-$i"
    i=$((i + 1))
done
for r in 0 1; do
    # shellcheck disable=SC2086 # $vars: a list of NAME=VALUE words
    run "rank$r" env $vars SLURM_JOB_ID=515 SLURM_STEP_ID=0 SLURM_PROCID=$r SLURM_NTASKS=2 \
        SCOPE_LIKWID_OUTPUT="$T/out/" LD_PRELOAD="$SL_SHIM" "$SL_SOLVER"
    [ "$(rc_of "rank$r")" = 0 ] || { fail "rank $r exited $(rc_of "rank$r")"; show_run "rank$r"; }
done
[ -f "$T/out/scope-likwid-515-rank0.h5" ] && [ -f "$T/out/scope-likwid-515-rank1.h5" ] ||
    { fail "no rank files: $(ls "$T/out")"; finish; }

# the same files as an older writer made them: dense attribute storage
mkdir "$T/dense"
"$PY" - "$T/out" "$T/dense" <<'PY' >"$T/dense.log" 2>&1 || fail "making dense copies: $(cat "$T/dense.log")"
import sys, h5py
for r in (0, 1):
    name = "scope-likwid-515-rank%d.h5" % r
    src = h5py.File(sys.argv[1] + "/" + name, "r")
    dst = h5py.File(sys.argv[2] + "/" + name, "w", libver="latest")
    for k, v in src.attrs.items():
        dst.attrs[k] = v
    src.copy(src["rank%d" % r], dst, "rank%d" % r)
    g = dst.create_group("metadata")
    for k, v in src["metadata"].attrs.items():
        g.attrs[k] = v
    # a rank group past the compact limit of h5py's default (8) too
    for i in range(40):
        dst["rank%d/timing" % r].attrs["extra_%d" % i] = "x" * i
PY

# meta_ok FILE: every variable, one value each, and no dense storage left
meta_ok() {
    "$PY" - "$1" "$NVARS" <<'PY' >"$T/meta.log" 2>&1 || fail "$1: $(cat "$T/meta.log")"
import sys, h5py
path, n = sys.argv[1], int(sys.argv[2])
m = h5py.File(path, "r")["metadata"].attrs
bad = ["SLURM_TEST_VAR_%d" % i for i in range(1, n + 1)
       if m.get("SLURM_TEST_VAR_%d" % i) != "value-%d" % i]
if bad:
    sys.exit("/metadata lacks or changed %d variables (%s ...)" % (len(bad), bad[0]))
if m.get("SLURM_JOB_ID") != "515":
    sys.exit("/metadata SLURM_JOB_ID %r: expected '515'" % m.get("SLURM_JOB_ID"))
# dense storage indexes attribute names in a v2 B-tree ("BTHD", version 0,
# type 8 or 9: HDF5 file format spec III.A.2)
data = open(path, "rb").read()
at = data.find(b"BTHD")
while at >= 0:
    if data[at + 4] == 0 and data[at + 5] in (8, 9):
        sys.exit("an attribute-name B-tree at byte %d: dense attribute storage" % at)
    at = data.find(b"BTHD", at + 1)
PY
}

# every_command FILE NAME: each reading command exits 0 on FILE
every_command() {
    for c in "show" "show --json" "show --summary" "export --format csv" "export --format json"; do
        # shellcheck disable=SC2086 # $c: a command and its options
        run "$2-$(echo "$c" | tr ' ' '_')" "$SL_CLI" $c "$1"
        [ "$(rc_of "$2-$(echo "$c" | tr ' ' '_')")" = 0 ] ||
            { fail "$2: $c exited $(rc_of "$2-$(echo "$c" | tr ' ' '_')")"; show_run "$2-$(echo "$c" | tr ' ' '_')"; }
    done
    run "$2-diff" "$SL_CLI" diff "$1" "$1"
    [ "$(rc_of "$2-diff")" = 0 ] || { fail "$2: diff exited $(rc_of "$2-diff")"; show_run "$2-diff"; }
    run "$2-plot" "$SL_CLI" plot "$1" -o "$T/$2.html"
    [ "$(rc_of "$2-plot")" = 0 ] || { fail "$2: plot exited $(rc_of "$2-plot")"; show_run "$2-plot"; }
    grep -q "SLURM_JOB_ID 515" "$T/$2-show.out" || fail "$2: show does not print SLURM_JOB_ID 515"
}

for kind in out dense; do
    run "merge-$kind" "$SL_CLI" merge -o "$T/$kind-job.h5" "$T/$kind"/scope-likwid-515-rank*.h5
    if [ "$(rc_of "merge-$kind")" != 0 ]; then
        fail "merge of the $kind files exited $(rc_of "merge-$kind")"
        show_run "merge-$kind"
        continue
    fi
    meta_ok "$T/$kind-job.h5"
    $SP "$T/$kind-job.h5" --ranks 2 --calls $((2 * CALLS)) --require-metadata --mpi-size 2 \
        >"$T/sp-$kind.log" 2>&1 || fail "scope-profiler's loader: $(cat "$T/sp-$kind.log")"
    every_command "$T/$kind-job.h5" "$kind"
    # and merged again (a merged file is an input like any other)
    run "remerge-$kind" "$SL_CLI" merge -o "$T/$kind-again.h5" "$T/$kind-job.h5"
    [ "$(rc_of "remerge-$kind")" = 0 ] || { fail "merging $kind-job.h5 again exited $(rc_of "remerge-$kind")"; show_run "remerge-$kind"; }
done
# the rank group's extra attributes came through the by-value copy
"$PY" -c 'import sys, h5py
a = h5py.File(sys.argv[1], "r")["rank1/timing"].attrs
sys.exit(0 if a.get("extra_39") == "x" * 39 else "rank1/timing extra_39 = %r" % a.get("extra_39"))' \
    "$T/dense-job.h5" >"$T/extra.log" 2>&1 || fail "dense rank group: $(cat "$T/extra.log")"
finish
