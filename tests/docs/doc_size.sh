#!/bin/sh
# How much there is to read: README.md, docs/*.md and the man pages
# (docs/man/*.in, roff requests not counted) hold at most MAX_WORDS words in
# all, no page more than MAX_PAGE; no prose line of a .md page (README.md,
# docs/*.md, bench/README.md) is longer than MAX_LINE characters (code
# blocks, indented code, tables and HTML comments not counted).
# One line per problem, "FILE[:LINE]: what: expected what"; exit 1 if any.
# usage: doc_size.sh SOURCE_ROOT [MAX_WORDS MAX_PAGE MAX_LINE]
#        (default 24000 6000 100)
set -u
cd "$1" || exit 1
max_words=${2:-24000} max_page=${3:-6000} max_line=${4:-100}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
total=0
for f in README.md docs/*.md docs/man/*.in; do
    [ -f "$f" ] || continue
    # a roff request's name (.TP, .B) is no word; comments (.\") none at all
    n=$(sed -e '/^\.\\"/d' -e 's/^\.[A-Za-z]*//' "$f" | wc -w)
    total=$((total + n))
    [ "$n" -le "$max_page" ] || echo "$f: $n words: expected at most $max_page on one page" >>"$out"
done
[ "$total" -le "$max_words" ] ||
    echo "README.md, docs/*.md, docs/man: $total words: expected at most $max_words in all" >>"$out"
for f in README.md docs/*.md bench/README.md; do
    [ -f "$f" ] || continue
    awk -v f="$f" -v max="$max_line" '
        /^```/ { fence = !fence; next }
        fence || /^[|]/ || /^    / || /^\t/ || /^<!--/ { next }
        length($0) > max { printf "%s:%d: a line of %d characters: expected at most %d\n", f, NR, length($0), max }
    ' "$f" >>"$out"
done
if [ -s "$out" ]; then
    awk -v n="$(wc -l <"$out")" 'NR <= 40 { print } END { if (n > 40) print "... " n - 40 " more" }' "$out"
    echo "doc_size: $(wc -l <"$out") problem(s), $total words"
    exit 1
fi
echo "doc_size: $total words (at most $max_words), no page over $max_page, no prose line over $max_line characters"
