#!/bin/sh
# No call runs upward in the shim, checked on its objects (what the
# compiler links, including calls no header shows: a symbol of the shim's
# own, such as its exported execve or dlopen, reached by name): every
# symbol a member of the archive uses and another member defines must be
# defined in the same group or a group below (ORDER, top to bottom). The
# group of a member is its folder (meson names shim/face/api.c's object
# face_api.c.o).
# Inside a group the calls may form one small circle, the one named in
# CIRCLE (its members, sorted): the face's entry points call the API, whose
# Init rebinds, and the rebinding reads the entry points' own addresses.
# usage: house_calls.sh ARCHIVE 'face end ... os'
set -u
ar=$1
order=$2
CIRCLE='face_api face_entry face_rebind'
[ -r "$ar" ] || { echo "house_calls: no archive $ar"; exit 1; }
problems=$(nm -A "$ar" 2>/dev/null | awk -v order="$order" -v circle="$CIRCLE" '
function member(s,   p, m) { split(s, p, ":"); m = p[2]; sub(/^.*\//, "", m); sub(/\.c\.o$/, "", m); return m }
function group(m,   g) { g = m; sub(/_.*/, "", g); return g }
BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
{ m = member($1); sym = $NF; type = $(NF - 1)
  if (type == "U") { use[++nu] = m; usym[nu] = sym }
  else if (type ~ /^[TDBRVWC]$/) def[sym] = m }
END {
  # circles: members that reach each other (reachability by depth-first search)
  for (i = 1; i <= nu; i++) {
    d = def[usym[i]]
    if (d != "" && d != use[i] && !((use[i], d) in edge)) { edge[use[i], d] = 1; out[use[i]] = out[use[i]] " " d; node[use[i]] = 1; node[d] = 1 }
  }
  for (m in node) {
    delete seen; top = 0; stack[++top] = m
    while (top > 0) {
      v = stack[top--]; k = split(out[v], nb, " ")
      for (j = 1; j <= k; j++) if (!(nb[j] in seen)) { seen[nb[j]] = 1; stack[++top] = nb[j] }
    }
    for (x in seen) reach[m, x] = 1
  }
  for (m in node) {
    if (m in done) continue
    members = m; done[m] = 1; n = 1
    for (x in node) if (x != m && ((m, x) in reach) && ((x, m) in reach)) { members = members " " x; done[x] = 1; n++ }
    if (n > 1) {
      k = split(members, ms, " "); for (a = 1; a <= k; a++) for (b = a + 1; b <= k; b++) if (ms[b] < ms[a]) { t = ms[a]; ms[a] = ms[b]; ms[b] = t }
      line = ms[1]; for (a = 2; a <= k; a++) line = line " " ms[a]
      if (line != circle) print "circle of calls: " line
    }
  }
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
