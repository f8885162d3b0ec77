# bash completion for scope-likwid. Installed in
# DATADIR/bash-completion/completions, where bash-completion loads it on the
# first TAB after `scope-likwid`; `source` it by hand elsewhere.
#
# The subcommands and each one's options are read from the installed tool's
# own help (`scope-likwid --help`; the option lines of `scope-likwid CMD
# --help`, which list every option of the command's getopt table: the test
# cli-options checks both), so the lists never disagree with the program.
# File names are offered by kind: result files (*.h5) for the reading
# commands, journals (*.journal) and directories for recover, any file for
# convert's input and for -o, and after `run ... --` the application's
# command line; convert's --arch offers the architectures LIKWID has group
# files for (the folder `convert --help` names, or
# $SCOPE_LIKWID_PERFGROUPS).

# _scope_likwid_files GLOB: the current word's completions among files
# matching GLOB (and directories, to walk into).
_scope_likwid_files()
{
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n'
    compopt -o filenames 2>/dev/null
    if [ "$1" = '*' ]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X "!$1" -- "$cur"))
    fi
}

_scope_likwid()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]}
    local prev= cmd= i
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()

    if [ "$COMP_CWORD" -eq 1 ]; then
        # The commands are the "  NAME ..." lines under "commands:".
        local cmds opts
        cmds=$("$prog" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' |
            sort -u)
        opts=$("$prog" --help 2>/dev/null | sed -n 's/^  scope-likwid \(--[a-z-]*\).*/\1/p')
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--help $opts" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$cmds help" -- "$cur"))
        fi
        return 0
    fi
    cmd=${COMP_WORDS[1]}

    if [ "$cmd" = help ]; then
        [ "$COMP_CWORD" -eq 2 ] &&
            COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null |
                sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' | sort -u)" -- "$cur"))
        return 0
    fi

    if [ "$cmd" = run ]; then
        # After `--`: the application and its arguments.
        for ((i = 2; i < COMP_CWORD; i++)); do
            if [ "${COMP_WORDS[i]}" = -- ]; then
                if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
                    # a path is a file; a bare name a command or a file,
                    # each once (PATH may list a command twice)
                    local IFS=$'\n'
                    compopt -o filenames 2>/dev/null
                    if [[ $cur == */* ]]; then
                        COMPREPLY=($(compgen -f -- "$cur"))
                    else
                        COMPREPLY=($( (compgen -c -- "$cur"; compgen -f -- "$cur") | sort -u))
                    fi
                else
                    _scope_likwid_files '*'
                fi
                return 0
            fi
        done
    fi

    case $prev in
    -o | --output | --junit) _scope_likwid_files '*'; return 0 ;;
    --into) _scope_likwid_files '*.h5'; return 0 ;;
    --format) COMPREPLY=($(compgen -W 'csv json' -- "$cur")); return 0 ;;
    --arch)
        local dir=${SCOPE_LIKWID_PERFGROUPS:-$("$prog" convert --help 2>/dev/null |
            grep -o '/[^ ;]*perfgroups' | head -n 1)}
        [ -d "$dir" ] && COMPREPLY=($(cd "$dir" && compgen -d -- "$cur"))
        return 0 ;;
    --threads) COMPREPLY=($(compgen -W 'sum mean max all' -- "$cur")); return 0 ;;
    --rank | --region | --group | --metric | --threshold | --max-calls | --finished | --clock | \
    --sockets | --numa-domains) return 0 ;;
    esac

    if [[ $cur == -* ]]; then
        # the option lines: indented, starting with the option's name
        COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -E '^ +-' |
            grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u)" -- "$cur"))
        [ "$cmd" = run ] && COMPREPLY+=($(compgen -W '--' -- "$cur"))
        return 0
    fi

    case $cmd in
    show | export | diff | merge | plot) _scope_likwid_files '*.h5' ;;
    recover) _scope_likwid_files '*.journal' ;;
    convert) _scope_likwid_files '*' ;;
    run) COMPREPLY=($(compgen -W '--' -- "$cur")) ;;
    esac
    return 0
}
complete -F _scope_likwid scope-likwid
