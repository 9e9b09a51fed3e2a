# flinch.bash — bash completion for flinch: commands, options, help topics,
# and file names where an option takes a path.
#
# Options are read from `flinch COMMAND --help` of the flinch being
# completed (once per command and shell), so the completion always offers
# exactly the options that binary has. Installed by `make install` under
# PREFIX/share/bash-completion/completions/flinch; to try it from the
# source tree: `. completion/flinch.bash`.

_flinch_options()   # _flinch_options FLINCH COMMAND: its options, one per line
{
    local key="_flinch_opts_${2//[^a-z]/_}"
    if [[ -z ${!key+set} ]]; then
        # the option column of --help: lines indented 1 to 8 spaces that start with '-',
        # up to the first two spaces
        printf -v "$key" '%s' "$("$1" "$2" --help 2>/dev/null | grep -E '^ {1,8}-' |
            sed -E 's/^ +//; s/  .*//' | grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z0-9]*' |
            tr -d ' ,' | LC_ALL=C sort -u)"
    fi
    printf '%s\n' "${!key}"
}

_flinch()
{
    local cur prev flinch cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    flinch=${COMP_WORDS[0]}
    COMPREPLY=()
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "record mark analyze plot export help --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    # after `--` in record: the wrapped command
    for ((i = 2; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            COMPREPLY=($(compgen -c -- "$cur"))
            return
        fi
    done
    case $cmd in
        help)
            [[ $COMP_CWORD -eq 2 ]] &&
                COMPREPLY=($(compgen -W "record mark analyze plot export trace methods flinch" -- "$cur"))
            return ;;
        record|mark|analyze|plot|export) ;;
        *) return ;;
    esac
    case $prev in
        -o|--out|--output|--csv|--marks-fifo|--fifo|--rapl|--proc-stat|--metrics-file)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --nvml-lib)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --rapl-root|--cgroup-root)
            COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --gpu|-g)
            COMPREPLY=($(compgen -W "all auto cuda 0 1 2 3 4 5 6 7" -- "$cur")); return ;;
        --method)
            COMPREPLY=($(compgen -W "exact seed" -- "$cur")); return ;;
        --format|-f)
            if [[ $cmd == export ]]; then
                COMPREPLY=($(compgen -W "perfetto" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "text csv json" -- "$cur"))
            fi
            return ;;
        --pid)
            COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_flinch_options "$flinch" "$cmd")" -- "$cur"))
    else
        case $cmd in
            analyze|plot|export) COMPREPLY=($(compgen -f -- "$cur")) ;;
        esac
    fi
}
complete -o filenames -F _flinch flinch
