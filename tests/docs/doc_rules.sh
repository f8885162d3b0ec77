#!/bin/sh
# The documentation's own rules, checked so they stay true:
# - length: README.md is short (at most 200 lines): reference material
#   lives in the man pages and docs/;
# - variables: every SCOPE_LIKWID_* variable the code reads (getenv,
#   secure_getenv, the env_* helpers) is described exactly once, as an
#   entry (.TP, then .B NAME) of the ENVIRONMENT of a man page
#   (docs/man/*.in); README.md and docs/*.md have no table of them;
# - history: no page (README.md, docs/, the man pages, bench/README.md)
#   tells the story of its own making ("this session", "issue #N", "before
#   and after", "shim fix", "used to", "(was ...)");
# - history-forms: nor in any other form: a commit id, an issue number
#   ("issue 27", "#27"), "before:" or "(before this change)", "the previous
#   tree/build/version", "was once/formerly", "this commit", a date of a
#   check or measurement ("up to July 2026", "Measured 2026-12-04"),
#   "Decided:", "written before it existed", a pointer to something "kept
#   outside this repository", a FAIL row in a performance page (its
#   figures are today's and pass).
# One line per problem, "FILE[:LINE]: what: expected what"; exit 1 if any.
# usage: doc_rules.sh SOURCE_ROOT [RULE...]   (RULE: length, variables,
#        history, history-forms; default: all)
set -u
cd "$1" || exit 1
shift
rules=${*:-length variables history history-forms}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pages="README.md docs/*.md docs/man/*.in bench/README.md"
said=""

has_rule() {
    case " $rules " in *" $1 "*) return 0 ;; esac
    return 1
}

if has_rule length; then
    n=$(wc -l <README.md)
    [ "$n" -le 200 ] || echo "README.md: $n lines: expected at most 200" >>"$out"
    said="$said README.md $n lines;"
fi

if has_rule variables; then
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
    said="$said $(echo "$vars" | wc -l) variables, each described once;"
fi

if has_rule history; then
    # shellcheck disable=SC2086
    grep -niE 'this session|not done in this|issues? #[0-9]|before and after|shim fix|fix in shim|used to [a-z]|[(]was[: ][^)]*[)]' \
        $pages 2>/dev/null |
        sed 's/$/: tells the history of the page or the code: expected what the code does/' >>"$out"
    said="$said no history;"
fi

# form LABEL ERE [PAGES [EXPECTED]]: each line of PAGES matching ERE
# (case-insensitive) is one problem, "FILE:LINE: LABEL '<match>': expected
# EXPECTED" (the match cut at 60 bytes).
form() {
    # shellcheck disable=SC2086
    grep -HnoiE -- "$2" ${3:-$pages} 2>/dev/null |
        awk -v what="$1" -v want="${4:-what the code does today (no history)}" '
        { i = index($0, ":"); j = index(substr($0, i + 1), ":") + i
          key = substr($0, 1, j - 1)
          if (!(key in seen)) {
              seen[key] = 1
              m = substr($0, j + 1); gsub(/^[^0-9A-Za-z#(]+|[^0-9A-Za-z]+$/, "", m)
              if (length(m) > 60) m = substr(m, 1, 60) "..."
              print key ": " what " \x27" m "\x27: expected " want
          } }' >>"$out"
}

if has_rule history-forms; then
    # a commit id: 7 to 12 hex digits, at least one digit and one letter,
    # not part of a number (2.200000e+01) or a longer word
    # shellcheck disable=SC2086
    grep -HnoE '(^|[^0-9A-Za-z_.+-])[0-9a-f]{7,12}([^0-9A-Za-z_+-]|$)' $pages 2>/dev/null |
        awk '{ i = index($0, ":"); j = index(substr($0, i + 1), ":") + i
               m = substr($0, j + 1); gsub(/[^0-9a-f]/, "", m)
               key = substr($0, 1, j - 1)
               if (m ~ /[0-9]/ && m ~ /[a-f]/ && !(key in seen)) {
                   seen[key] = 1
                   print key ": a commit id \x27" m "\x27: expected what the code does today (no history)"
               } }' >>"$out"
    form "an issue number" '\bissues? #?[0-9]+\b|(^|[ (\[])#[0-9]+\b'
    form "a note of the past" '\bbefore:|[(]before (this|the|that) (change|fix|commit|version|release)'
    form "a previous version" '\bprevious (tree|build|commit|version|release|revision|code|behaviou?r)'
    form "a note of the past" '\bwas (once|formerly|previously|originally)\b'
    form "this commit" "\\bthis commit('s)?\\b"
    form "a date of a check" '\b(january|february|march|april|may|june|july|august|september|october|november|december) (19|20)[0-9]{2}\b|\b(19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]([^T0-9]|$)'
    form "a decision" '\bdecided:'
    form "a note of the past" 'written before it existed'
    form "a pointer outside" 'outside this repository'
    form "a FAIL row" '^[|].*[|] *FAIL\b' "docs/PERFORMANCE.md bench/README.md" \
        "today's figures, each within its limit"
    said="$said no history in any form;"
fi

if [ -s "$out" ]; then
    cat "$out"
    echo "doc_rules: $(wc -l <"$out") problem(s)"
    exit 1
fi
echo "doc_rules ($rules):$said"
