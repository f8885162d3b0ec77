#!/bin/sh
# Where convert writes: default name, never overwriting (OUT.1.h5), and
# --into an existing HDF5 file. Third argument: the mk_other_h5 helper.
. "$(dirname "$0")/lib.sh"
MK=$3
case $MK in /*) ;; *) MK=$START/$MK ;; esac
if ! command -v h5dump >/dev/null 2>&1; then
    echo "h5dump not found (Debian package hdf5-tools)" >&2
    exit 77
fi
S=$SAMPLES/v52_one_group.txt

# default name: INPUT's base name without extension, .h5, in the current directory
mkdir "$TMP/cwd"
RC=0
(cd "$TMP/cwd" && "$SL" convert "$S") >"$TMP/def.out" 2>"$TMP/def.err" || RC=$?
_name=def
check_rc 0 "default output"
check_grep "$TMP/def.out" "wrote v52_one_group.h5" "default output name"
check_files "$TMP/cwd" "v52_one_group.h5" "default output"
cp "$TMP/cwd/v52_one_group.h5" "$TMP/orig.h5"

# existing output: never overwritten
RC=0
(cd "$TMP/cwd" && "$SL" convert "$SAMPLES/v52_two_groups.txt" -o v52_one_group.h5) \
    >"$TMP/again.out" 2>"$TMP/again.err" || RC=$?
_name=again
check_rc 0 "existing output"
check_grep "$TMP/again.out" "wrote v52_one_group.1.h5" "existing output: new name printed"
check_files "$TMP/cwd" "v52_one_group.1.h5 v52_one_group.h5" "existing output"
check_same "$TMP/orig.h5" "$TMP/cwd/v52_one_group.h5" "existing output untouched"
sl again2 convert "$S" -o "$TMP/cwd/v52_one_group.h5"
check_grep "$TMP/again2.out" "wrote $TMP/cwd/v52_one_group.2.h5" "second existing output"

# --into an HDF5 file that is not a result file: refused, left as it was
mkdir "$TMP/foreign"
"$MK" "$TMP/foreign/other.h5" || { fail "mk_other_h5 failed"; finish; }
cp "$TMP/foreign/other.h5" "$TMP/foreign.orig"
sl into_foreign convert "$S" --into "$TMP/foreign/other.h5"
check_rc 1 "--into a foreign HDF5 file"
check_grep "$TMP/into_foreign.err" \
    "scope-likwid: convert: $TMP/foreign/other.h5: an HDF5 file, but not a scope-likwid result file" \
    "--into a foreign HDF5 file: message"
check_same "$TMP/foreign.orig" "$TMP/foreign/other.h5" "--into a foreign HDF5 file: unchanged"
check_files "$TMP/foreign" "other.h5" "--into a foreign HDF5 file: nothing beside it"

# --into: adds rank0/likwid to a result file, leaves the rest of it alone
mkdir "$TMP/intodir"
"$MK" "$TMP/intodir/other.h5" ours || { fail "mk_other_h5 failed"; finish; }
dump_others() {
    h5dump -g /other "$1" | sed 1d
    h5dump -d /rank0/mine "$1" | sed 1d
    h5dump -a /owner "$1" | sed 1d
    h5dump -a /rank0/custom "$1" | sed 1d
}
dump_others "$TMP/intodir/other.h5" >"$TMP/others.before"
sl into convert "$S" --into "$TMP/intodir/other.h5"
check_rc 0 "--into"
check_grep "$TMP/into.out" "wrote $TMP/intodir/other.h5" "--into"
check_files "$TMP/intodir" "other.h5" "--into: no temporary left"
dump_others "$TMP/intodir/other.h5" >"$TMP/others.after"
check_same "$TMP/others.before" "$TMP/others.after" "--into leaves other objects alone"
h5dump -d /rank0/likwid/regions/solve-step/call_counts "$TMP/intodir/other.h5" >"$TMP/into.cc" 2>&1 || true
check_grep "$TMP/into.cc" "(0): 10, 10" "--into: counters"
h5dump -A "$TMP/intodir/other.h5" >"$TMP/into.dump" 2>&1 || true
check_grep "$TMP/into.dump" 'GROUP "likwid"' "--into: rank0/likwid"

# second run replaces rank0/likwid (two groups now), others still untouched
sl into2 convert "$SAMPLES/v52_two_groups.txt" --into "$TMP/intodir/other.h5"
check_rc 0 "--into again"
dump_others "$TMP/intodir/other.h5" >"$TMP/others.after2"
check_same "$TMP/others.before" "$TMP/others.after2" "--into again leaves other objects alone"
h5dump -d /rank0/likwid/regions/residual/call_counts "$TMP/intodir/other.h5" >"$TMP/into2.cc" 2>&1 || true
check_grep "$TMP/into2.cc" "(0): 5, 5" "--into again: replaced"
h5dump -A "$TMP/intodir/other.h5" >"$TMP/into2.dump" 2>&1 || true
CHECKS=$((CHECKS + 1))
if grep -q 'GROUP "io phase"' "$TMP/into2.dump"; then fail "--into again: old regions kept"; fi

# --into a file that is not HDF5: fails, file unchanged, nothing left beside it
mkdir "$TMP/nothdf"
printf 'not an HDF5 file\n' >"$TMP/nothdf/plain.h5"
cp "$TMP/nothdf/plain.h5" "$TMP/plain.orig"
sl into_bad convert "$S" --into "$TMP/nothdf/plain.h5"
check_rc 1 "--into a non-HDF5 file"
check_grep "$TMP/into_bad.err" "plain.h5" "--into a non-HDF5 file: message names it"
check_same "$TMP/plain.orig" "$TMP/nothdf/plain.h5" "--into a non-HDF5 file: unchanged"
check_files "$TMP/nothdf" "plain.h5" "--into a non-HDF5 file: no temporary left"
# --into a missing file: fails, creates nothing
sl into_missing convert "$S" --into "$TMP/nothdf/missing.h5"
check_rc 1 "--into a missing file"
check_files "$TMP/nothdf" "plain.h5" "--into a missing file: nothing created"

# --rank: group rank<R>, mpi_rank R
sl rank convert "$S" --rank 3 -o "$TMP/rank3.h5"
check_rc 0 "--rank"
sl rank_show show "$TMP/rank3.h5" --csv
check_grep "$TMP/rank_show.out" "3,run,,,,,,mpi_rank,3" "--rank: mpi_rank"
check_grep "$TMP/rank_show.out" "3,likwid,0,,init,0,0,call count,1" "--rank: rank"
h5dump -A "$TMP/rank3.h5" >"$TMP/rank3.dump" 2>&1 || true
check_grep "$TMP/rank3.dump" 'GROUP "rank3"' "--rank: group name"
finish
