#!/usr/bin/env bash
# bash_complete.sh SCRIPT WORD...: what bash completion offers for the last
# WORD of the command line WORD... (WORD "" for an empty word), as bash calls
# a completion function: COMP_WORDS split at '=' as bash's default
# COMP_WORDBREAKS splits them. One candidate per line, sorted and unique.
set -u
script=$1
shift
# shellcheck disable=SC1090
source "$script"
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_streamlife
printf '%s\n' "${COMPREPLY[@]}" | sort -u
