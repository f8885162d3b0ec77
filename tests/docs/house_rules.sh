#!/bin/sh
# The house plan (docs/ARCHITECTURE.md), checked so it stays true:
# - includes point only downward: a file may include headers of its own
#   room and of the rooms below it (table ALLOWED; a room is a top folder,
#   or tools/<x>, with its subfolders);
# - hdf5.h only in h5/ (the shim, core and the views never load HDF5 directly);
# - no include cycle between files (two headers that include each other, or
#   a longer circle): one line names the circle;
# - docs/ARCHITECTURE.md names every folder that holds C code, and has the
#   path of one marker call and of one Close, every file they name existing;
# - sizes: a .c at most 600 lines, a .h at most 250, a function at most 80
#   (from its first line to its closing brace at column 0);
# - no banners (a comment of ==== around a title: a file's old name);
# - no call circle: the .c files that call each other's functions (a
#   function defined in one .c and named in another is an arrow) form no
#   circle; one line names each group of files that reach each other.
# The one allow-list, tests/docs/house_limits.txt, lines of
#   PATH LIMIT REASON            a file allowed up to LIMIT lines
#   PATH:FUNCTION LIMIT REASON   a function allowed up to LIMIT lines
#   FOLDER/ banners REASON       banners allowed below FOLDER/
#   FOLDER/ circle REASON        call circles allowed within FOLDER/
# ('#' starts a comment). An entry without a reason, or one no longer
# needed (its file or function gone or within the default, nothing of its
# kind below its folder), is a problem too: the list only shrinks.
# usage: house_rules.sh SOURCE_ROOT
set -u
cd "$1" || exit 1

# folder:the folders whose headers it may include (itself first)
CORE='core/journal core/markerfile core/wire core/likwid core/model core/trust core/base'
ALLOWED="core/base:core/base
core/model:core/model core/base
core/trust:core/trust core/base
core/likwid:core/likwid core/model core/base
core/journal:core/journal core/model core/base
core/markerfile:core/markerfile core/model core/base
core/wire:core/wire core/model core/base
shim:shim $CORE
h5:h5 $CORE
helpers:helpers h5 $CORE
tools/views:tools/views h5 $CORE
tools/plot:tools/plot h5 $CORE
tools/cli:tools/cli tools/views tools/plot h5 $CORE"

tops=$(for d in core shim h5 helpers tools; do [ -d "$d" ] && echo "$d"; done)
# shellcheck disable=SC2086
files=$(find $tops -name '*.[ch]' | sort)
folders=$(echo "$files" | xargs -n1 dirname | sort -u)
arch=docs/ARCHITECTURE.md

# One pass over every file: the include arrows, hdf5.h, the include graph
# of project headers (a header is known by its name: they are unique).
# shellcheck disable=SC2086
problems=$(awk -v allowed="$ALLOWED" '
function room(p,   a) {
    split(p, a, "/")
    return p ~ /^(tools|core)\// ? a[1] "/" a[2] : a[1]
}
# Depth-first search; a grey node met again closes a circle.
function visit(f,   i, g, k, s) {
    colour[f] = 1
    stack[++depth] = f
    for (i = 1; i <= nin[f]; i++) {
        g = hdr[inc[f, i]]
        if (g == "")
            continue
        if (colour[g] == 1) {
            for (k = depth; stack[k] != g; k--)
                ;
            s = g
            for (k++; k <= depth; k++)
                s = s " -> " stack[k]
            print "include cycle: " s " -> " g
        } else if (colour[g] == 0)
            visit(g)
    }
    depth--
    colour[f] = 2
}
BEGIN {
    n = split(allowed, lines, "\n")
    for (i = 1; i <= n; i++) {
        split(lines[i], kv, ":")
        may[kv[1]] = " " kv[2] " "
        list[kv[1]] = kv[2]
    }
}
FNR == 1 {
    f = FILENAME
    order[++nfiles] = f
    b = f; sub(/.*\//, "", b)
    if (f ~ /\.h$/)
        hdr[b] = f
}
/^#include "/ {
    x = $0; sub(/^#include "/, "", x); sub(/".*/, "", x)
    b = x; sub(/.*\//, "", b)
    inc[f, ++nin[f]] = b
    incname[f, nin[f]] = x
}
/^#include <hdf5/ && f !~ /^h5\// {
    print f ": includes hdf5.h: only h5/ may"
}
END {
    for (j = 1; j <= nfiles; j++) {
        f = order[j]
        r = room(f)
        for (i = 1; i <= nin[f]; i++) {
            g = hdr[inc[f, i]]
            if (g == "")
                continue            # not a project header
            to = room(g)
            if (!(r in may))
                continue
            if (index(may[r], " " to " ") == 0)
                print f ": includes " incname[f, i] " from " to "/: " r "/ may include only from " list[r]
        }
    }
    for (j = 1; j <= nfiles; j++)
        if (colour[order[j]] == 0)
            visit(order[j])
}' $files)

out=$(mktemp)
trap 'rm -f "$out"' EXIT
[ -n "$problems" ] && echo "$problems" >>"$out"

for d in $folders; do
    grep -q "\`$d/\`" "$arch" || echo "$arch: does not name \`$d/\`" >>"$out"
done

# The two paths: their sections exist, and every file they name exists
# (a path as written, or a bare name somewhere in the sources).
for section in "The path of one marker call" "The path of one Close"; do
    text=$(awk -v s="## $section" '$0 == s {on = 1; next} /^## / {on = 0} on' "$arch")
    if [ -z "$text" ]; then
        echo "$arch: no section \"## $section\"" >>"$out"
        continue
    fi
    for name in $(echo "$text" | grep -o '`[A-Za-z0-9_./-]*\.[ch]`' | tr -d '`' | sort -u); do
        case $name in
            */*) [ -e "$name" ] ;;
            *) echo "$files" | grep -q "/$name\$" ;;
        esac || echo "$arch: \"$section\" names $name, which does not exist" >>"$out"
    done
done

# Sizes, banners and call circles, against the allow-list.
limits=tests/docs/house_limits.txt
[ -f "$limits" ] || { echo "$limits: missing: expected the allow-list" >>"$out"; limits=/dev/null; }
# shellcheck disable=SC2086
awk -v limits="$limits" '
function lensort(a, n,   i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
}
function under(f, folder) { return substr(f, 1, length(folder)) == folder }
# Tarjan: each strongly connected group of more than one file is a circle.
function scc(v,   i, w, k, m, list, nl, s, allowed) {
    idx[v] = low[v] = ++counter
    stk[++sp] = v
    on[v] = 1
    for (i = 1; i <= nout[v]; i++) {
        w = out[v, i]
        if (!(w in idx)) {
            scc(w)
            if (low[w] < low[v])
                low[v] = low[w]
        } else if (on[w] && idx[w] < low[v])
            low[v] = idx[w]
    }
    if (low[v] != idx[v])
        return
    nl = 0
    do {
        w = stk[sp--]
        on[w] = 0
        list[++nl] = w
    } while (w != v)
    if (nl < 2)
        return
    lensort(list, nl)
    s = list[1]
    for (k = 2; k <= nl; k++)
        s = s " " list[k]
    for (m in circle_ok) {
        allowed = 1
        for (k = 1; k <= nl; k++)
            if (!under(list[k], m))
                allowed = 0
        if (allowed) {
            circle_used[m] = 1
            return
        }
    }
    print "call circle: " s
}
# The allow-list.
FILENAME == limits {
    sub(/#.*/, "")
    if (NF == 0)
        next
    where = limits ":" FNR
    if (NF < 3) {
        print where ": \"" $0 "\": expected PATH[:FUNCTION] LIMIT|banners|circle REASON"
        next
    }
    if ($2 == "banners") { banner_ok[$1] = where; next }
    if ($2 == "circle") { circle_ok[$1] = where; next }
    if ($2 !~ /^[0-9]+$/) {
        print where ": \"" $2 "\": expected a limit in lines, banners or circle"
        next
    }
    allow[$1] = $2 + 0
    allow_at[$1] = where
    next
}
FNR == 1 {
    f = FILENAME
    is_c = f ~ /\.c$/
    head = 0; in_fn = 0; cont = 0; incomment = 0
    cfiles[++ncfiles] = f
}
{ nlines[f] = FNR }
/^[[:space:]]*\/\*[[:space:]]*=+[[:space:]].*[[:space:]]=+[[:space:]]*\*\// {
    used = 0
    for (b in banner_ok)
        if (under(f, b)) { banner_used[b] = 1; used = 1 }
    if (!used)
        print f ":" FNR ": a banner: expected a plain comment"
}
# Function lengths: the brace style of the house ({ and } of a body at column 0).
in_fn && /^}/ {
    fnlen[f ":" fname] = FNR - start + 1
    fnline[f ":" fname] = start
    in_fn = 0
    next_ok = 1
}
!in_fn && /^\{/ && head {
    start = head; fname = hname; in_fn = 1
    # a name a file defines itself (static or not) is its own when it uses it
    if (is_c)
        localdef[f, fname] = 1
    if (is_c && hline !~ /^static/ && fname != "main") {
        if (fname in definer && definer[fname] != f)
            twice[fname] = 1
        definer[fname] = f
    }
}
!in_fn && !/^\{/ {
    if (/^[A-Za-z_]/ && !/^(typedef|struct|enum|union|static const|extern)[^(]*$/) {
        if (!cont) {
            head = FNR; hline = $0; hname = $0
            sub(/\(.*/, "", hname); n = split(hname, w, /[ *]+/); hname = w[n]
        }
        cont = ($0 !~ /[;{}]$/ && $0 !~ /\)$/)
    } else if (/^[ \t]/ && cont)
        cont = ($0 !~ /\)$/)
    else {
        head = 0; cont = 0
    }
}
# The names each .c uses, without its comments and literals.
is_c {
    line = $0
    gsub(/\\./, "", line)
    gsub(/"[^"]*"/, "\"\"", line)
    gsub(/'"'"'[^'"'"']*'"'"'/, "", line)
    text = ""
    while (line != "") {
        if (incomment) {
            k = index(line, "*/")
            if (!k) { line = ""; break }
            line = substr(line, k + 2)
            incomment = 0
        } else {
            k = index(line, "/*")
            d = index(line, "//")
            if (d && (!k || d < k)) { text = text " " substr(line, 1, d - 1); line = ""; break }
            if (!k) { text = text " " line; line = ""; break }
            text = text " " substr(line, 1, k - 1)
            line = substr(line, k + 2)
            incomment = 1
        }
    }
    # a member (x.name, p->name) is no use of a function of that name
    gsub(/(\.|->)[ \t]*[A-Za-z_][A-Za-z0-9_]*/, " ", text)
    gsub(/[^A-Za-z0-9_]+/, " ", text)
    n = split(text, tok, " ")
    for (i = 1; i <= n; i++)
        if (tok[i] ~ /^[A-Za-z_]/)
            uses[f, tok[i]] = 1
}
END {
    for (j = 1; j <= ncfiles; j++) {
        f = cfiles[j]
        max = f ~ /\.c$/ ? 600 : 250
        if (f in allow) {
            allow_seen[f] = 1
            if (nlines[f] <= max)
                print allow_at[f] ": " f " has " nlines[f] " lines, within " max ": the entry is no longer needed"
            else if (nlines[f] > allow[f])
                print f ": " nlines[f] " lines: over its allowed " allow[f] " (" allow_at[f] ")"
        } else if (nlines[f] > max)
            print f ": " nlines[f] " lines: expected at most " max
    }
    for (key in fnlen) {
        if (key in allow) {
            allow_seen[key] = 1
            if (fnlen[key] <= 80)
                print allow_at[key] ": " key " has " fnlen[key] " lines, within 80: the entry is no longer needed"
            else if (fnlen[key] > allow[key])
                print key " (line " fnline[key] "): " fnlen[key] " lines: over its allowed " allow[key] " (" allow_at[key] ")"
        } else if (fnlen[key] > 80)
            print key " (line " fnline[key] "): " fnlen[key] " lines: expected at most 80"
    }
    for (key in allow)
        if (!(key in allow_seen))
            print allow_at[key] ": " key ": no such file or function: the entry is no longer needed"
    for (b in banner_ok)
        if (!(b in banner_used))
            print banner_ok[b] ": no banner below " b ": the entry is no longer needed"
    # the call graph between .c files
    for (key in uses) {
        split(key, p, SUBSEP)
        name = p[2]
        if (!(name in definer) || (name in twice) || definer[name] == p[1] ||
            ((p[1], name) in localdef))
            continue
        if (!((p[1], definer[name]) in edge)) {
            edge[p[1], definer[name]] = 1
            out[p[1], ++nout[p[1]]] = definer[name]
        }
    }
    for (j = 1; j <= ncfiles; j++)
        if (cfiles[j] ~ /\.c$/ && !(cfiles[j] in idx))
            scc(cfiles[j])
    for (m in circle_ok)
        if (!(m in circle_used))
            print circle_ok[m] ": no call circle within " m ": the entry is no longer needed"
}' "$limits" $files >>"$out" || echo "house_rules: the size and circle check could not run" >>"$out"

if [ -s "$out" ]; then
    cat "$out"
    echo "house_rules: $(wc -l <"$out") problem(s)"
    exit 1
fi
echo "house_rules: $(echo "$files" | wc -l) files in $(echo "$folders" | wc -l) folders keep the house plan"
