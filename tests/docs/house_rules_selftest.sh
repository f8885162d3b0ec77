#!/bin/sh
# house_rules.sh must fail on a fixture tree that breaks each of its size,
# banner and circle rules and each rule of its allow-list, name each
# problem, and nothing else: a .c of 601 lines, a .h of 251, a function of
# 81, a banner, two files calling each other (a third only named in a
# comment stays out of the circle), a function over its allowed limit, an
# entry without a reason, and entries no longer needed (a file within the
# default, a function that is gone, a folder without a circle). What the
# allow-list allows (a long function, a circle, a banner) is not reported.
# The fixture is written here, in a temporary directory.
#   house_rules_selftest.sh HOUSE_RULES_SH
set -u
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/core/base" "$root/shim" "$root/docs" "$root/tests/docs"
cat >"$root/docs/ARCHITECTURE.md" <<'PAGE'
# Architecture
`core/base/` and `shim/`.
## The path of one marker call
None here.
## The path of one Close
None here.
PAGE
# lines N: N lines of plain statements
lines() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "    x++;" }'; }
b=$root/core/base
awk 'BEGIN { for (i = 0; i < 601; i++) print "int v" i ";" }' >"$b/big.c"
{ echo '#define W 1'; awk 'BEGIN { for (i = 1; i < 251; i++) print "/* a line */" }'; } >"$b/wide.h"
{ echo 'static int x;'; echo 'int long_fn(void)'; echo '{'; lines 78; echo '}'; } >"$b/long.c"
{ echo 'static int x;'; echo 'int allowed_fn(void)'; echo '{'; lines 87; echo '}'; } >"$b/allowed.c"
{ echo 'static int x;'; echo 'int over_fn(void)'; echo '{'; lines 87; echo '}'; } >"$b/over.c"
printf '/* ==== an old file ==== */\nint banner_fn(void);\n' >"$b/banner.c"
printf 'int small_fn(void)\n{\n    return 0;\n}\n' >"$b/small.c"
printf 'int pong_fn(void);\nint quiet_fn(void);\nint ping_fn(void)\n{\n    return pong_fn() + quiet_fn();\n}\n' >"$b/ping.c"
printf 'int ping_fn(void);\nint pong_fn(void)\n{\n    return ping_fn();\n}\n' >"$b/pong.c"
printf '/* not a call: ping_fn(), "ping_fn" */\nint quiet_fn(void)\n{\n    return 1; // ping_fn\n}\n' >"$b/quiet.c"
printf 'int y_fn(void);\nint x_fn(void)\n{\n    return y_fn();\n}\n' >"$root/shim/x.c"
printf 'int x_fn(void);\n/* ==== allowed ==== */\nint y_fn(void)\n{\n    return x_fn();\n}\n' >"$root/shim/y.c"
cat >"$root/tests/docs/house_limits.txt" <<'LIST'
# the fixture's allow-list
core/base/allowed.c:allowed_fn 95 a reason
core/base/over.c:over_fn 85 a reason
core/base/small.c 700 a reason
core/base/gone.c:nothing 100 a reason
core/base/long.c 700
shim/ circle a reason
shim/ banners a reason
helpers/ circle a reason
LIST

out=$(sh "$1" "$root" 2>&1)
rc=$?
fail=0
[ "$rc" = 1 ] || { echo "FAIL: exited $rc on the fixture: expected 1"; fail=1; }
while read -r want; do
    echo "$out" | grep -qxF -- "$want" ||
        { echo "FAIL: no line '$want'"; fail=1; }
done <<'WANT'
core/base/big.c: 601 lines: expected at most 600
core/base/wide.h: 251 lines: expected at most 250
core/base/long.c:long_fn (line 2): 81 lines: expected at most 80
core/base/banner.c:1: a banner: expected a plain comment
call circle: core/base/ping.c core/base/pong.c
core/base/over.c:over_fn (line 2): 90 lines: over its allowed 85 (tests/docs/house_limits.txt:3)
tests/docs/house_limits.txt:6: "core/base/long.c 700": expected PATH[:FUNCTION] LIMIT|banners|circle REASON
tests/docs/house_limits.txt:4: core/base/small.c has 4 lines, within 600: the entry is no longer needed
tests/docs/house_limits.txt:5: core/base/gone.c:nothing: no such file or function: the entry is no longer needed
tests/docs/house_limits.txt:9: no call circle within helpers/: the entry is no longer needed
house_rules: 10 problem(s)
WANT
if [ "$fail" = 1 ]; then
    echo "house_rules.sh said:"
    echo "$out" | sed 's/^/    /'
    exit 1
fi
echo "house_rules_selftest: each size, banner, circle and allow-list rule fails on its fixture"
