#!/bin/sh
# No call runs upward in the shim, checked on its objects (what the
# compiler links, including calls no header shows: a symbol of the shim's
# own, such as its exported execve or dlopen, reached by name): every
# symbol a member of the archive uses and another member defines must be
# defined in the same group or a group below (ORDER, top to bottom). The
# group of a member is its folder (meson names shim/face/api.c's object
# face_api.c.o).
# usage: house_calls.sh ARCHIVE 'face end ... os'
set -u
ar=$1
order=$2
[ -r "$ar" ] || { echo "house_calls: no archive $ar"; exit 1; }
problems=$(nm -A "$ar" 2>/dev/null | awk -v order="$order" '
function member(s,   p, m) { split(s, p, ":"); m = p[2]; sub(/^.*\//, "", m); sub(/\.c\.o$/, "", m); return m }
function group(m,   g) { g = m; sub(/_.*/, "", g); return g }
BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
{ m = member($1); sym = $NF; type = $(NF - 1)
  if (type == "U") { use[++nu] = m; usym[nu] = sym }
  else if (type ~ /^[TDBRVWC]$/) def[sym] = m }
END {
  for (i = 1; i <= nu; i++) {
    d = def[usym[i]]
    if (d == "" || d == use[i])
        continue
    if (!(group(d) in rank) || !(group(use[i]) in rank))
        print "house_calls: " use[i] " or " d ": not in a group of " order
    else if (rank[group(d)] < rank[group(use[i])])
        print "upward call: " use[i] " -> " d ": " usym[i]
  } }' | sort -u)
members=$(nm -A "$ar" 2>/dev/null | awk -F: '{ print $2 }' | sort -u | wc -l)
[ "$members" -gt 1 ] || { echo "house_calls: $ar has no members"; exit 1; }
if [ -n "$problems" ]; then
    echo "$problems"
    echo "house_calls: $(echo "$problems" | wc -l) problem(s)"
    exit 1
fi
echo "house_calls: $members objects, every call downward or within its group"
