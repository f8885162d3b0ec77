#!/bin/sh
# The house plan (docs/ARCHITECTURE.md), checked so it stays true:
# - includes point only downward: a file may include headers of its own
#   room and of the rooms below it (table ALLOWED; a room is a top folder,
#   or tools/<x>, with its subfolders);
# - hdf5.h only in h5/ (the shim, core and the views never load HDF5 directly);
# - no source file outside tests/, bench/, examples/ over 500 lines;
# - no folder with more than 15 C files;
# - docs/ARCHITECTURE.md names every folder that holds C code.
# usage: house_rules.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# folder:the folders whose headers it may include (itself first)
ALLOWED='core:core
shim:shim core
h5:h5 core
helpers:helpers h5 core
tools/views:tools/views h5 core
tools/plot:tools/plot h5 core
tools/cli:tools/cli tools/views tools/plot h5 core'

files=$(find core shim h5 helpers tools -name '*.[ch]' | sort)
# the room of a path: its top folder, or tools/<x>
room() {
    case $1 in
        tools/*) echo "$1" | cut -d/ -f1-2 ;;
        *) echo "$1" | cut -d/ -f1 ;;
    esac
}
# header basename -> its room (project headers have unique names)
map=$(for h in $files; do case $h in *.h) echo "$(basename "$h") $(room "$h")" ;; esac; done)

echo "$ALLOWED" | while IFS=: read -r dir allowed; do
    for f in $files; do
        [ "$(room "$f")" = "$dir" ] || continue
        sed -n 's/^#include "\(.*\)".*/\1/p' "$f" | while read -r inc; do
            to=$(echo "$map" | awk -v h="$(basename "$inc")" '$1 == h {print $2; exit}')
            [ -n "$to" ] || continue   # not a project header
            case " $allowed " in
                *" $to "*) ;;
                *) echo "$f: includes $inc from $to/: $dir/ may include only from $allowed" >>"$out" ;;
            esac
        done
    done
done

for f in $files; do
    case $f in h5/*) continue ;; esac
    grep -q '^#include <hdf5' "$f" && echo "$f: includes hdf5.h: only h5/ may" >>"$out"
done

for f in $files; do
    n=$(wc -l <"$f")
    [ "$n" -le 500 ] || echo "$f: $n lines: expected at most 500 (one job per file)" >>"$out"
done

for d in $(echo "$files" | xargs -n1 dirname | sort -u); do
    n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
    [ "$n" -le 15 ] || echo "$d/: $n C files: expected at most 15" >>"$out"
    grep -q "\`$d/\`" docs/ARCHITECTURE.md || echo "docs/ARCHITECTURE.md: does not name \`$d/\`" >>"$out"
done

if [ -s "$out" ]; then
    cat "$out"
    echo "house_rules: $(wc -l <"$out") problem(s)"
    exit 1
fi
echo "house_rules: $(echo "$files" | wc -l) files in $(echo "$files" | xargs -n1 dirname | sort -u | wc -l) folders keep the house plan"
