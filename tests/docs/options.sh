#!/bin/sh
# tests/docs/options.sh — the options a command documents, two ways, one per
# line, sorted: `help FLINCH CMD` lists the option column of `flinch CMD
# --help` (lines indented 1 to 8 spaces that start with '-', up to the first
# two spaces: the rule completion/flinch.bash uses); `man PAGE` lists the
# option names in the tags (.TP lines) of PAGE's OPTIONS section.
# Used by tests/e2e/docs.sh.
case $1 in
  help)
    "$2" "$3" --help 2>/dev/null | grep -E '^ {1,8}-' | sed -E 's/^ +//; s/  .*//' |
      grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z0-9]*' | tr -d ' ,' | LC_ALL=C sort -u ;;
  man)
    awk '/^\.SH/ { in_opts = ($0 ~ /^\.SH "?OPTIONS"?$/); next }
         in_opts && tag { print; tag = 0; next }
         in_opts && /^\.TP/ { tag = 1 }' "$2" |
      sed 's/\\-/-/g' | grep -oE -- '\\fB--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^\\fB//' | LC_ALL=C sort -u ;;
  *) echo "usage: options.sh help FLINCH CMD | man PAGE" >&2; exit 2 ;;
esac
