#!/bin/sh
# house_shim.sh and house_calls.sh must fail on a tree that breaks their
# rules, naming each problem: a copy of the shim and docs/ARCHITECTURE.md
# passes, then each rule is broken once in the copy (an include of a group
# above, a file outside the groups, a second header, a header without the
# visibility pragma, a file and a function over their limits, a getenv
# outside ground/env.c, a second constructor, the Close path going up);
# and archives whose os/ object calls a face/ function, or whose two end/
# objects call each other.
#   house_shim_selftest.sh HOUSE_SHIM_SH HOUSE_CALLS_SH SOURCE_ROOT CC
set -u
shim_sh=$1 calls_sh=$2 root=$3 cc=$4
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs"
cp -r "$root/shim" "$tmp/shim"
cp "$root/docs/ARCHITECTURE.md" "$tmp/docs/"

out=$(sh "$shim_sh" "$tmp")
[ $? = 0 ] || { echo "FAIL: the unbroken copy does not pass:"; echo "$out"; fail=1; }

printf '#include "face.h"\n' >>"$tmp/shim/os/clock.c"
printf 'int stray;\n' >"$tmp/shim/stray.c"
printf '#pragma once\n' >"$tmp/shim/os/extra.h"
sed -i '/^#pragma GCC visibility/d' "$tmp/shim/say/say.h"
printf 'static const char *planted(void) { return getenv("HOME"); }\n' >>"$tmp/shim/os/proc.c"
printf '__attribute__((constructor)) static void second(void) {}\n' >>"$tmp/shim/os/budget.c"
# the Close path: a ground file before an end file
sed -i '/^## The path of one Close/a\
`shim/ground/state.c` first.' "$tmp/docs/ARCHITECTURE.md"

out=$(sh "$shim_sh" "$tmp")
rc=$?
[ "$rc" = 1 ] || { echo "FAIL: exited $rc on the broken copy: expected 1"; fail=1; }
for want in 'shim/os/clock.c: includes face.h of face/, a group above os/' \
            'shim/stray.c: not in a group folder' \
            'shim/os/extra.h: a second header in os/' \
            'shim/say/say.h: no #pragma GCC visibility' \
            "shim/os/proc.c:[0-9]*: '(secure_)?getenv" \
            "shim: '__attribute__\\\\(\\\\(constructor' 2 times" \
            'shim/os/budget.c:[0-9]*: .__attribute__' \
            '"The path of one Close" starts at shim/ground/state.c' \
            '"The path of one Close" goes up to shim/face/entry.c'; do
    echo "$out" | grep -q -- "$want" ||
        { echo "FAIL: no line matching '$want' in:"; echo "$out" | sed 's/^/    /'; fail=1; }
done

# house_calls.sh: os_low.c.o calls face_high.c.o's function
printf 'int sl_high(void) { return 1; }\n' >"$tmp/face_high.c"
printf 'int sl_high(void);\nint sl_low(void) { return sl_high(); }\n' >"$tmp/os_low.c"
printf 'int sl_low(void);\nint sl_top(void) { return sl_low(); }\n' >"$tmp/face_top.c"
for f in face_high os_low face_top; do
    "$cc" -c "$tmp/$f.c" -o "$tmp/$f.c.o" || { echo "FAIL: $cc cannot compile $f.c"; exit 1; }
done
ar rcs "$tmp/up.a" "$tmp/face_high.c.o" "$tmp/os_low.c.o" "$tmp/face_top.c.o"
ar rcs "$tmp/down.a" "$tmp/face_top.c.o" "$tmp/os_low.c.o"
out=$(sh "$calls_sh" "$tmp/up.a" 'face end signals spawn regions journal ground say objects os')
rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q 'upward call: os_low -> face_high: sl_high' ||
    { echo "FAIL: house_calls.sh on an upward call (exit $rc):"; echo "$out"; fail=1; }
echo "$out" | grep -q 'face_top' && { echo "FAIL: a downward call reported: $out"; fail=1; }
out=$(sh "$calls_sh" "$tmp/down.a" 'face end signals spawn regions journal ground say objects os')
[ $? = 0 ] || { echo "FAIL: house_calls.sh on downward calls only:"; echo "$out"; fail=1; }
# a circle inside a group other than the one allowed
printf 'int sl_b(void);\nint sl_a(void) { return sl_b(); }\n' >"$tmp/end_a.c"
printf 'int sl_a(void);\nint sl_b(void) { return sl_a(); }\n' >"$tmp/end_b.c"
"$cc" -c "$tmp/end_a.c" -o "$tmp/end_a.c.o" && "$cc" -c "$tmp/end_b.c" -o "$tmp/end_b.c.o" &&
    ar rcs "$tmp/circle.a" "$tmp/end_a.c.o" "$tmp/end_b.c.o" || { echo "FAIL: cannot build circle.a"; exit 1; }
out=$(sh "$calls_sh" "$tmp/circle.a" 'face end signals spawn regions journal ground say objects os')
rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q 'circle of calls: end_a end_b' ||
    { echo "FAIL: house_calls.sh on a circle (exit $rc):"; echo "$out"; fail=1; }

[ "$fail" = 0 ] && echo "house_shim_selftest: every rule fails on its break"
exit "$fail"
