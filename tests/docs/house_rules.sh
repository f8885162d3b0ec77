#!/bin/sh
# The house plan (docs/ARCHITECTURE.md), checked so it stays true:
# - includes point only downward: a file may include headers of its own
#   room and of the rooms below it (table ALLOWED; a room is a top folder,
#   or tools/<x>, with its subfolders);
# - hdf5.h only in h5/ (the shim, core and the views never load HDF5 directly);
# - no include cycle between files (two headers that include each other, or
#   a longer circle): one line names the circle;
# - docs/ARCHITECTURE.md names every folder that holds C code, and has the
#   path of one marker call and of one Close, every file they name existing.
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

files=$(find core shim h5 helpers tools -name '*.[ch]' | sort)
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

if [ -s "$out" ]; then
    cat "$out"
    echo "house_rules: $(wc -l <"$out") problem(s)"
    exit 1
fi
echo "house_rules: $(echo "$files" | wc -l) files in $(echo "$folders" | wc -l) folders keep the house plan"
