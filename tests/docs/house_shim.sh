#!/bin/sh
# The shim's house plan (docs/ARCHITECTURE.md, "The shim"), checked so it
# stays true:
# - every file is in one of the ten group folders (shim/marker_fns.h, the
#   list of marker functions, is the one file beside them), each group with
#   one header of its own name; a second header only as named in SECOND;
# - a file includes shim headers only of its own group and the groups below
#   (GROUPS, top to bottom) or marker_fns.h; each group header includes the
#   header of the group right below it and wraps its declarations in
#   "#pragma GCC visibility push(hidden)" ... "pop" (the hot path reaches
#   the globals of other files with one load);
# (sizes, banners and call circles: house_rules.sh, for the whole tree)
# - written once: the environment only in ground/env.c, the clock read only
#   in os/os.h, a signal taken back only in os/sigguard.c, an exclusive
#   create and a small text file read only in os/files.c, the loader's walk
#   only in objects/loaded.c (and rebind.c's own), one constructor
#   and one destructor (face/load.c), SL_EXPORT defined once (face/face.h),
#   the result's name written only by ground/name.c (ONCE);
# - docs/ARCHITECTURE.md names every shim file, and its two paths (one
#   marker call, one Close) name each shim file once, top to bottom (no
#   group above the one before), starting at shim/face/entry.c; the Close
#   names shim/end/close.c and shim/end/ending.c.
# usage: house_shim.sh SOURCE_ROOT
set -u
cd "$1" || exit 1

GROUPS='face end signals spawn regions journal ground say objects os'
# a group's header (journal's is journal_map.h: core/journal has journal.h)
header() { [ "$1" = journal ] && echo journal_map.h || echo "$1.h"; }
# second headers of a group, each private to it
SECOND='shim/regions/hot_path.h'
# FILES;PATTERN: the only files where a pattern (extended grep) may appear
# on a code line (the clock: os.h's one read, and a file time of Init kept
# as a timespec to compare with the marker file's)
ONCE='shim/ground/env.c;(secure_)?getenv\(|\benviron\b|sl_job_from_env|sl_run_id_from_env|sl_share_setting
shim/os/os.h shim/end/source_markerfile.c;clock_gettime\(
shim/face/load.c;__attribute__\(\(constructor
shim/face/load.c;__attribute__\(\(destructor
shim/face/face.h;define SL_EXPORT
shim/os/sigguard.c;sigtimedwait\(
shim/os/files.c;O_EXCL
shim/objects/loaded.c shim/face/rebind.c;dl_iterate_phdr\(
shim/os/files.c;sl_read_file\(
shim/ground/name.c;sl_g\.(output|first_output) *=[^=]'

out=$(mktemp)
trap 'rm -f "$out"' EXIT
say() { printf '%s\n' "$*" >>"$out"; }

rank() {
    i=1
    for g in $GROUPS; do
        [ "$g" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo 0
}

files=$(find shim -name '*.[ch]' | sort)
for f in $files; do
    case $f in
        shim/marker_fns.h) continue ;;
        shim/*/*.[ch]) ;;
        *) say "$f: not in a group folder"; continue ;;
    esac
    g=${f#shim/}
    g=${g%%/*}
    r=$(rank "$g")
    [ "$r" = 0 ] && { say "$f: $g/ is not a group ($GROUPS)"; continue; }
    case $f in
        *.h) if [ "$f" != "shim/$g/$(header "$g")" ] && ! echo " $SECOND " | grep -q " $f "; then
                 say "$f: a second header in $g/ (one header a group: $(header "$g"))"
             fi ;;
    esac
    # includes of shim headers: own group or below
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        [ "$inc" = marker_fns.h ] && continue
        owner=
        for h in $files; do
            case $h in */"$inc") owner=$h ;; esac
        done
        [ -z "$owner" ] && continue          # a core header
        og=${owner#shim/}
        og=${og%%/*}
        [ "$og" = "$g" ] && continue
        if [ "$(rank "$og")" -lt "$r" ]; then
            say "$f: includes $inc of $og/, a group above $g/"
        elif [ "${f##*/}" != "$(header "$g")" ] && [ "${f##*/}" != "${SECOND##*/}" ]; then
            say "$f: includes $inc of $og/: a file includes its own group's header only"
        fi
    done
done

# each group: its header, the chain, the pragma
prev=
for g in $GROUPS; do
    h=shim/$g/$(header "$g")
    if [ ! -f "$h" ]; then
        say "shim/$g/: no header $(header "$g")"
        prev=$g
        continue
    fi
    grep -q '^#pragma GCC visibility push(hidden)' "$h" && grep -q '^#pragma GCC visibility pop' "$h" ||
        say "$h: no #pragma GCC visibility push(hidden) ... pop"
    if [ -n "$prev" ]; then
        ph=shim/$prev/$(header "$prev")
        grep -q "^#include \"$(header "$g")\"" "$ph" || say "$ph: does not include $(header "$g"), the group below"
    fi
    prev=$g
done

# written once (code lines: comment lines are skipped)
printf '%s\n' "$ONCE" | while IFS=';' read -r allowed pat; do
    for f in $(grep -rlE "$pat" shim --include='*.[ch]'); do
        echo " $allowed " | grep -q " $f " && continue
        line=$(sed 's|/\*.*||' "$f" | grep -nE "$pat" | grep -vE '^[0-9]+:[[:space:]]*\*' |
               head -1 | cut -d: -f1)
        [ -n "$line" ] && say "$f:$line: '$pat' outside $allowed"
    done
done
for pat in '__attribute__\(\(constructor' '__attribute__\(\(destructor' 'define SL_EXPORT'; do
    n=$(grep -rhE "$pat" shim --include='*.[ch]' | grep -vcE '^[[:space:]]*(/\*|\*)')
    [ "$n" = 1 ] || say "shim: '$pat' $n times (once)"
done

# docs/ARCHITECTURE.md
arch=docs/ARCHITECTURE.md
for f in $files; do
    grep -q "\`$f\`" "$arch" || say "$arch: does not name \`$f\`"
done
for section in "The path of one marker call" "The path of one Close"; do
    paths=$(awk -v s="## $section" '$0 == s {on = 1; next} /^## / {on = 0} on' "$arch" |
            grep -oE '`shim/[A-Za-z0-9_./-]*\.[ch]`' | tr -d '`')
    [ -n "$paths" ] || { say "$arch: \"$section\" names no shim file"; continue; }
    first=$(echo "$paths" | head -1)
    [ "$first" = shim/face/entry.c ] || say "$arch: \"$section\" starts at $first, not at shim/face/entry.c"
    echo "$paths" | sort | uniq -d | while read -r d; do
        say "$arch: \"$section\" names $d more than once"
    done
    last=1
    for p in $paths; do
        if [ "$p" = shim/marker_fns.h ]; then r=11; else
            g=${p#shim/}; g=${g%%/*}; r=$(rank "$g"); fi
        [ "$r" -lt "$last" ] && say "$arch: \"$section\" goes up to $p after a lower group"
        last=$r
    done
    if [ "$section" = "The path of one Close" ]; then
        for need in shim/end/close.c shim/end/ending.c; do
            echo "$paths" | grep -qx "$need" || say "$arch: \"$section\" does not name $need"
        done
    fi
done

if [ -s "$out" ]; then
    cat "$out"
    echo "house_shim: $(wc -l <"$out") problem(s)"
    exit 1
fi
echo "house_shim: $(echo "$files" | wc -l) files in ten groups keep the shim's plan"
