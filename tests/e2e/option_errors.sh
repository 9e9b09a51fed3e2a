#!/bin/bash
# An unknown option or an option without its value: every command says so in
# one line naming the option and pointing at its --help (not the whole help
# text), and exits 2.
. "$ROOT/tests/lib.sh"

for cmd in record mark analyze plot export; do
  "$FLINCH" "$cmd" --bogus x 2>err.txt >out.txt
  expect_eq "$cmd --bogus" "$?: $(cat err.txt)" \
    "2: flinch $cmd: unknown option '--bogus' (see 'flinch $cmd --help')"
  expect_eq "$cmd --bogus: nothing on stdout" "$(cat out.txt)" ""
  "$FLINCH" "$cmd" --bogus=3 x 2>err.txt
  expect_eq "$cmd --bogus=3" "$?: $(cat err.txt)" \
    "2: flinch $cmd: unknown option '--bogus' (see 'flinch $cmd --help')"
  "$FLINCH" "$cmd" -Z x 2>err.txt
  expect_eq "$cmd -Z" "$?: $(cat err.txt)" \
    "2: flinch $cmd: unknown option '-Z' (see 'flinch $cmd --help')"
done

# an option whose value is missing (the last argument)
for c in "record -o" "record --out" "record -qi" "mark --fifo" "analyze --csv" \
         "plot x.csv -o" "export x.csv --output" "export x.csv -f"; do
  set -- $c
  cmd=$1; shift; opt=${*: -1}
  case "$opt" in -qi) opt=-i ;; esac
  "$FLINCH" "$cmd" "$@" 2>err.txt >out.txt
  expect_eq "$c: no value" "$?: $(cat err.txt)" \
    "2: flinch $cmd: option '$opt' needs a value (see 'flinch $cmd --help')"
  expect_eq "$c: nothing on stdout" "$(cat out.txt)" ""
done

done_testing
