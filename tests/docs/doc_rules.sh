#!/bin/sh
# The documentation's own rules, checked so they stay true:
# - README.md is short (at most 200 lines): reference material lives in the
#   man pages and docs/;
# - every SCOPE_LIKWID_* variable the code reads (getenv, secure_getenv,
#   the env_* helpers) is described exactly once, as an entry (.TP, then
#   .B NAME) of the ENVIRONMENT of a man page (docs/man/*.in); README.md
#   and docs/*.md have no table of them;
# - no page (README.md, docs/, the man pages, bench/README.md) tells the
#   story of its own making ("this session", "issue #N", "before and
#   after", "shim fix", "used to", "(was ...)"): docs say what the code does.
# One line per problem, "FILE[:LINE]: what: expected what"; exit 1 if any.
# usage: doc_rules.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

n=$(wc -l <README.md)
[ "$n" -le 200 ] || echo "README.md: $n lines: expected at most 200" >>"$out"

vars=$(find core shim h5 helpers tools -name '*.[ch]' 2>/dev/null | xargs cat 2>/dev/null |
    grep -oE "(getenv|env_[a-z]+)[(]\"SCOPE_LIKWID_[A-Z_]*\"" | sed 's/.*"\(.*\)"/\1/' | sort -u)
[ -n "$vars" ] || echo "no getenv(\"SCOPE_LIKWID_...\") in the code: expected some" >>"$out"
for v in $vars; do
    # a man page entry: ".B NAME" or ".B NAME=VALUE" on the line after ".TP"
    k=$(cat docs/man/*.in | awk -v v="$v" 'prev == ".TP" && ($0 == ".B " v || index($0, ".B " v "=") == 1) {n++} {prev = $0} END {print n + 0}')
    [ "$k" = 1 ] || echo "docs/man: $v described $k times: expected one ENVIRONMENT entry (.TP, .B $v)" >>"$out"
done
grep -niE '^[|] *(environment )?variables? *[|]' README.md docs/*.md 2>/dev/null |
    sed 's/$/: a table of variables: expected them only in the man pages/' >>"$out"

grep -niE 'this session|not done in this|issues? #[0-9]|before and after|shim fix|fix in shim|used to [a-z]|[(]was[: ][^)]*[)]' \
    README.md docs/*.md docs/man/*.in bench/README.md 2>/dev/null |
    sed 's/$/: tells the history of the page or the code: expected what the code does/' >>"$out"

if [ -s "$out" ]; then
    cat "$out"
    echo "doc_rules: $(wc -l <"$out") problem(s)"
    exit 1
fi
echo "doc_rules: README.md $n lines; $(echo "$vars" | wc -l) variables, each described once; no history"
