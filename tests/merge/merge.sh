#!/bin/sh
# scope-likwid merge: three rank files (two of them rank 0) into one; groups
# copied unchanged (h5diff against their sources), root attributes, clashes
# numbered after the highest rank and said, origin attributes, one
# /metadata, the regions link, inputs untouched, no overwrite, merged files
# merged again, format-1 files (tests/data/v1) merged and read, and bad
# inputs leave no file behind.
# usage: merge.sh SCOPE_LIKWID SAMPLES_DIR MK_RESULT MK_OTHER_H5
. "$(dirname "$0")/../cli/lib.sh"
MK=$3
OTHER=$4
case $MK in /*) ;; *) MK=$START/$MK ;; esac
case $OTHER in /*) ;; *) OTHER=$START/$OTHER ;; esac
H5DIFF=$(command -v h5diff || true)
[ -n "$H5DIFF" ] || { echo "h5diff missing (hdf5-tools): skipped"; exit 77; }

mk() { "$MK" "$1" >/dev/null || fail "mk_result $1"; }

# check_h5diff A OBJ_A B OBJ_B WANT WHAT: h5diff's exit code (0 same, 1 differ)
check_h5diff() {
    CHECKS=$((CHECKS + 1))
    _rc=0
    "$H5DIFF" "$1" "$3" "$2" "$4" >"$TMP/h5diff.out" 2>&1 || _rc=$?
    [ "$_rc" -eq "$5" ] || fail "$6: h5diff $1 $3 $2 $4 exited $_rc, expected $5: $(head -c 400 "$TMP/h5diff.out")"
}

mkdir in
mk in/a.h5 <<'SPEC'
rank 0
t solve 1000000 1100000
l solve 0 FLOPS_DP 1.0,2.0 MFLOP/s=1,2
SPEC
mk in/b.h5 <<'SPEC'
rank 0
t other 5 6 7
SPEC
mk in/c.h5 <<'SPEC'
rank 1
m solve 3 3000
SPEC
# distinct /metadata per input, to see which one a merge keeps
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    for x in a b c; do
        /usr/bin/python3 -c 'import sys, h5py
h5py.File(sys.argv[1], "a")["metadata"].attrs["hostname"] = sys.argv[2]' "in/$x.h5" "host-$x" ||
            fail "set /metadata/hostname of in/$x.h5"
    done
fi
(cd in && sha256sum a.h5 b.h5 c.h5) >sums.before

# 1. three files, two of them rank 0: b's rank 0 becomes rank2, after the
# highest rank (c's 1); given out of order, inputs are taken in natural order
sl m1 merge -o job.h5 in/c.h5 in/b.h5 in/a.h5
check_rc 0 "merge three"
check_grep m1.out "wrote job.h5" "merge three: says where"
check_grep m1.err "scope-likwid: merge: in/b.h5: /rank0 clashes with /rank0 of in/a.h5: written as /rank2" "clash said"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <"$TMP/m1.err")" -eq 1 ] || fail "merge three: one stderr line expected: $(cat "$TMP/m1.err")"
CHECKS=$((CHECKS + 1))
groups=$(h5ls job.h5 | awk '{print $1}' | tr '\n' ' ')
[ "$groups" = "metadata rank0 rank1 rank2 " ] || fail "merged groups: '$groups'"
# every group's data identical to its source (the rank group itself gains
# the origin attrs); and h5diff does see a difference
check_h5diff in/a.h5 /rank0/timing job.h5 /rank0/timing 0 "rank0 timing from a.h5"
check_h5diff in/a.h5 /rank0/likwid job.h5 /rank0/likwid 0 "rank0 likwid from a.h5"
check_h5diff in/b.h5 /rank0/timing job.h5 /rank2/timing 0 "rank2 timing from b.h5"
check_h5diff in/c.h5 /rank1/timing job.h5 /rank1/timing 0 "rank1 timing from c.h5"
check_h5diff in/a.h5 /rank0/timing job.h5 /rank2/timing 1 "h5diff sees different groups"
check_h5diff in/a.h5 /metadata job.h5 /metadata 0 "/metadata from rank 0's input"
# root attributes
CHECKS=$((CHECKS + 1))
h5dump -a /format job.h5 | grep -q '"scope-likwid"' || fail "root attr format"
h5dump -a /format_version job.h5 | grep -q '(0): 2$' || fail "root attr format_version"
h5dump -a /created_by job.h5 | grep -q '"scope-likwid ' || fail "root attr created_by"
# inputs untouched
CHECKS=$((CHECKS + 1))
(cd in && sha256sum a.h5 b.h5 c.h5) >sums.after
cmp -s sums.before sums.after || fail "inputs changed"
check_files in "a.h5 b.h5 c.h5" "nothing new next to the inputs"
CHECKS=$((CHECKS + 1))
leftover=$(ls -A | grep '^\.' || true)
[ -z "$leftover" ] && [ ! -e job.1.h5 ] || fail "temporary files left: $leftover"

# 2. the merged file reads back: show lists all three, diff matches rank2
sl show1 show job.h5
check_rc 0 "show merged"
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^Rank ' "$TMP/show1.out")" -eq 3 ] || fail "show merged: 3 ranks expected: $(grep '^Rank ' "$TMP/show1.out")"
check_grep show1.out "other" "show merged: rank2's region"
sl d1 diff job.h5 job.h5 --csv
check_rc 0 "diff merged with itself"
check_grep d1.out "rank2,other,timing," "diff: rank 2 matched"
have_h5py=0
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import h5py' 2>/dev/null && have_h5py=1
# origins: "file:group:mpi_rank" of every rank group, in order
origins() {
    /usr/bin/python3 - "$1" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
names = sorted((k for k in f if k != "metadata"), key=lambda k: int(k[4:]))
for k in names:
    g = f[k]
    assert g["regions"] == g["timing/regions"], k + "/regions is not timing/regions"
    print("%s=%s:%s:%d" % (k, g.attrs["merged_from"], g.attrs["merged_from_group"], g.attrs["mpi_rank"]), end=" ")
PY
}
if [ $have_h5py = 1 ]; then
    CHECKS=$((CHECKS + 1))
    /usr/bin/python3 - job.h5 <<'PY' || fail "h5py view of the merged file"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert sorted(f.keys()) == ["metadata", "rank0", "rank1", "rank2"], list(f.keys())
assert f.attrs["format"] == "scope-likwid" and f.attrs["format_version"] == 2
assert f.attrs["created_by"].startswith("scope-likwid ")
assert list(f["rank2/regions/other/end_times"][:] - f["rank2/regions/other/start_times"][:]) == [5, 6, 7]
assert f["rank0/likwid/regions/solve"].attrs["group_name"] == "FLOPS_DP"
PY
    CHECKS=$((CHECKS + 1))
    o=$(origins job.h5)
    [ "$o" = "rank0=in/a.h5:rank0:0 rank1=in/c.h5:rank1:1 rank2=in/b.h5:rank0:0 " ] || fail "origins: '$o'"
fi

# 3. an existing output is never overwritten
cp job.h5 job.copy
sl m2 merge -o job.h5 in/c.h5
check_rc 0 "merge onto existing name"
check_grep m2.out "wrote job.1.h5" "new name used"
check_same job.h5 job.copy "existing output untouched"
check_h5diff in/c.h5 /rank1/timing job.1.h5 /rank1/timing 0 "job.1.h5 content"

# 4. merged files merged again keep the first origin: a merged file's own
# groups are no clash among themselves; two copies of the job give every
# group a distinct number, and the second copy's origins are the first's
cp job.h5 job2.h5
sl m3 merge -o again.h5 job.h5 job2.h5
check_rc 0 "merge merged files"
check_grep m3.err "scope-likwid: merge: 3 rank groups clash with a rank of an earlier input: written as /rank3 to /rank5 (merged_from and merged_from_group say where each came from); the first: job2.h5: /rank0 clashes with /rank0 of job.h5" "clashes of merged files said"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <"$TMP/m3.err")" -eq 1 ] || fail "merge merged: one line for three clashes expected: $(cat "$TMP/m3.err")"
check_h5diff job.h5 /rank2/timing again.h5 /rank2/timing 0 "merged again: rank2 kept"
check_h5diff in/b.h5 /rank0/timing again.h5 /rank5/timing 0 "merged again: b's copy as rank5"
if [ $have_h5py = 1 ]; then
    CHECKS=$((CHECKS + 1))
    o=$(origins again.h5)
    [ "$o" = "rank0=in/a.h5:rank0:0 rank1=in/c.h5:rank1:1 rank2=in/b.h5:rank0:0 rank3=in/a.h5:rank0:0 rank4=in/c.h5:rank1:1 rank5=in/b.h5:rank0:0 " ] ||
        fail "origins after merging merged files: '$o'"
fi

# 4a. /metadata comes from the input holding rank 0, even when an input
# without rank 0 comes first
if [ $have_h5py = 1 ]; then
    mkdir z && cp in/a.h5 z/z.h5
    sl m5 merge -o meta.h5 in/c.h5 z/z.h5
    check_rc 0 "merge rank 1 before rank 0"
    CHECKS=$((CHECKS + 1))
    h=$(/usr/bin/python3 -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r")["metadata"].attrs["hostname"])' meta.h5)
    [ "$h" = host-a ] || fail "/metadata of the merge is $h's: expected host-a, from the input holding rank 0"
    CHECKS=$((CHECKS + 1))
    h=$(/usr/bin/python3 -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r")["metadata"].attrs["hostname"])' job.1.h5)
    [ "$h" = host-c ] || fail "/metadata of a merge without rank 0 is $h's: expected host-c, the first input's"
fi

# 4b. format-1 files (before scope-profiler's layout): v1/merged.h5 holds
# rank0, rank0.1 and rank1; merged with v1/single.h5 every group gets a
# number, its origin and the regions link, and the output reads
V1=$(dirname "$2")/v1
sl m4 merge -o fromv1.h5 "$V1/merged.h5" "$V1/single.h5"
check_rc 0 "merge format-1 files"
check_h5diff "$V1/merged.h5" /rank0.1/timing fromv1.h5 /rank2/timing 0 "v1 rank0.1 as rank2"
check_h5diff "$V1/single.h5" /rank0/timing fromv1.h5 /rank3/timing 0 "v1 single.h5 as rank3"
if [ $have_h5py = 1 ]; then
    CHECKS=$((CHECKS + 1))
    o=$(origins fromv1.h5)
    [ "$o" = "rank0=$V1/merged.h5:rank0:0 rank1=$V1/merged.h5:rank1:1 rank2=$V1/merged.h5:rank0.1:0 rank3=$V1/single.h5:rank0:0 " ] ||
        fail "origins of format-1 groups: '$o'"
fi
sl show4 show fromv1.h5
check_rc 0 "show the merge of format-1 files"
sl show5 show "$V1/merged.h5"
check_rc 0 "show a format-1 merged file"
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^Rank ' "$TMP/show5.out")" -eq 3 ] || fail "show format-1 merged: 3 ranks expected: $(grep '^Rank ' "$TMP/show5.out")"
sl d5 diff "$V1/merged.h5" fromv1.h5 --csv
check_rc 0 "diff format-1 with format-2"
check_grep d5.out "rank0.1/rank2,other,timing," "diff: format-1 rank0.1 paired with its copy (group names differ)"

# 5. bad inputs: exit 1, no output, no temporary file left
mkdir bad
echo "not hdf5" >bad/text.h5
"$OTHER" bad/other.h5 || fail "mk_other_h5"
for input in bad/text.h5 bad/other.h5 bad/missing.h5; do
    sl bad merge -o bad/out.h5 in/a.h5 "$input"
    check_rc 1 "bad input $input"
    check_grep bad.err "$input" "bad input $input: named"
    check_grep bad.err "scope-likwid: merge: bad/out.h5: nothing written" "bad input $input: nothing written"
    check_files bad "other.h5 text.h5" "bad input $input: no output left"
done
check_files in "a.h5 b.h5 c.h5" "inputs still alone"
# our root attributes but a rank group that is not ours
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 -c 'import sys, h5py
f = h5py.File(sys.argv[1], "w")
f.attrs["format"] = "scope-likwid"
f.attrs["format_version"] = 2
f.create_group("rank3")' notiming.h5
    sl bad2 merge -o bad/out.h5 in/a.h5 notiming.h5
    check_rc 1 "rank group without timing"
    check_grep bad2.err "notiming.h5: /rank3 has no timing group: expected a rank group" "no timing: said"
    check_files bad "other.h5 text.h5" "no timing: no output left"
fi

# 6. usage errors
sl u1 merge in/a.h5
check_rc 2 "no -o"
sl u2 merge -o x.h5
check_rc 2 "no inputs"
sl u3 merge -o x.h5 -o y.h5 in/a.h5
check_rc 2 "-o twice"
sl u4 merge --bogus -o x.h5 in/a.h5
check_rc 2 "unknown option"
sl help merge --help
check_rc 0 "--help"
check_grep help.out "usage: scope-likwid merge" "help text"
CHECKS=$((CHECKS + 1))
[ -e x.h5 ] && fail "usage error wrote a file"

finish
