#!/bin/sh
# The bash completion (dist/scope-likwid.bash) run as bash runs it on TAB:
# COMP_WORDS/COMP_CWORD set, the function called, COMPREPLY compared. The
# commands and options come from the tool's help, so every long option that
# `scope-likwid CMD --help` names must be offered after `CMD --` (that they
# are exactly the getopt table's: tests/cli/options.py). A word is offered
# once; --arch offers LIKWID's architectures.
#   SL_SRC SL_CLI
. "$SL_SRC/tests/e2e/lib.sh"
need SL_CLI
command -v bash >/dev/null || skip "no bash"
comp=$SL_SRC/dist/scope-likwid.bash
mkdir -p "$T/bin" "$T/files/sub"
ln -s "$SL_CLI" "$T/bin/scope-likwid"
: >"$T/files/a.h5"; : >"$T/files/b.txt"; : >"$T/files/x.journal"

# complete WORDS...: the completions of the last word (possibly empty),
# sorted, one per line.
complete_() {
    (cd "$T/files" && PATH="$T/bin:$PATH" bash -c '. "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _scope_likwid
        printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@") | sort | sed '/^$/d' | tr '\n' ' ' | sed 's/ $//'
}
expect() {  # EXPECTED WORDS...
    want=$1
    shift
    got=$(complete_ "$@")
    [ "$got" = "$want" ] || fail "'$*<TAB>' completed to '$got': expected '$want'"
}
expect 'show' scope-likwid sh
expect 'convert diff export help merge plot recover run show' scope-likwid ''
expect 'show' scope-likwid help sh
expect '--help --print-shim-path --version' scope-likwid --
expect '--csv' scope-likwid show --cs
expect 'a.h5 sub' scope-likwid diff ''
expect 'a.h5 sub' scope-likwid merge -o out.h5 ''
expect 'sub x.journal' scope-likwid recover ''
expect 'a.h5 b.txt sub x.journal' scope-likwid convert ''
expect 'all max mean sum' scope-likwid show a.h5 --threads ''
expect 'json' scope-likwid export a.h5 --format j
expect '--' scope-likwid run ''
case " $(complete_ scope-likwid run -- ech) " in
*" echo "*) ;;
*) fail "'scope-likwid run -- ech<TAB>' does not offer echo: expected command names" ;;
esac
expect 'a.h5 b.txt sub x.journal' scope-likwid run -- ./app ''
# an application by its path: offered once (as a command and as a file
# alike, it is one word)
: >"$T/files/sub/app"
chmod +x "$T/files/sub/app"
expect 'sub/app' scope-likwid run -- sub/ap
expect './sub/app' scope-likwid run -- ./sub/ap

# convert --arch: the architectures LIKWID has group files for, from
# $SCOPE_LIKWID_PERFGROUPS, else the folder convert --help names
mkdir -p "$T/groups/skylake" "$T/groups/skylakeX" "$T/groups/zen3"
SCOPE_LIKWID_PERFGROUPS=$T/groups
export SCOPE_LIKWID_PERFGROUPS
expect 'skylake skylakeX' scope-likwid convert m.txt --group FLOPS_DP --arch sky
expect 'skylake skylakeX zen3' scope-likwid convert m.txt --arch ''
unset SCOPE_LIKWID_PERFGROUPS
default=$("$SL_CLI" convert --help | grep -o '/[^ ;]*perfgroups' | head -n 1)
if [ -d "$default/zen3" ]; then
    case " $(complete_ scope-likwid convert m.txt --arch ze) " in
    *" zen3 "*) ;;
    *) fail "'scope-likwid convert m.txt --arch ze<TAB>' does not offer zen3 of $default" ;;
    esac
fi

# Every long option of every command's help is offered.
for cmd in $(complete_ scope-likwid ''); do
    [ "$cmd" = help ] && continue
    offered=" $(complete_ scope-likwid "$cmd" --) "
    for opt in $("$SL_CLI" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        case $offered in *" $opt "*) ;; *) fail "'scope-likwid $cmd --<TAB>' lacks $opt (in its --help)" ;; esac
    done
done
finish
