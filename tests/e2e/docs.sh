# docs.sh — the documentation cannot drift from the program: every manual
# page in man/ renders without a warning; each command's --help and its page
# name the same options; every example output in README.md and the pages is
# what the program prints now (tests/docs/examples.sh --check; `make docs`
# rewrites them); `flinch help COMMAND` shows the page, or the usage where
# man is missing; the bash completion offers each command's options; the
# README stays a guide whose first lines give `make demo` and `make check`.
. "$ROOT/tests/lib.sh"
pages="flinch.1 flinch-record.1 flinch-mark.1 flinch-analyze.1 flinch-plot.1 flinch-export.1 flinch-trace.5 flinch-methods.7"
expect_eq "the manual pages" "$(cd "$ROOT/man" && ls | sort | tr '\n' ' ')" \
  "$(echo $pages | tr ' ' '\n' | sort | tr '\n' ' ')"

# 1. each page renders without a warning, through man and through groff
if command -v man >/dev/null 2>&1 && man --version >/dev/null 2>&1; then
  for p in $pages; do
    err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$ROOT/man/$p" 2>&1 >out.txt)
    expect_eq "man --warnings -l man/$p: no warning" "$err" ""
    check "man/$p renders (NAME, and SEE ALSO)" sh -c 'grep -q "^NAME" out.txt && grep -q "^SEE ALSO" out.txt'
  done
else
  skip "man --warnings -l man/*" "no man (tests/setup-deps.sh installs man-db as root)"
fi
if command -v groff >/dev/null 2>&1; then
  for p in $pages; do
    expect_eq "groff -man -ww man/$p: no warning" \
      "$(groff -man -Tutf8 -K utf8 -ww -z -rLL=78n "$ROOT/man/$p" 2>&1)" ""
  done
else
  skip "groff -man -ww man/*" "no groff (tests/setup-deps.sh installs groff-base as root)"
fi
for p in flinch-record.1 flinch-mark.1 flinch-analyze.1 flinch-plot.1 flinch-export.1; do
  check "man/$p has SYNOPSIS and OPTIONS" sh -c \
    "grep -q '^\.SH SYNOPSIS' '$ROOT/man/$p' && grep -q '^\.SH OPTIONS' '$ROOT/man/$p'"
done

# 2. options, both ways
for c in record mark analyze plot export; do
  h=$(sh "$ROOT/tests/docs/options.sh" help "$FLINCH" "$c")
  m=$(sh "$ROOT/tests/docs/options.sh" man "$ROOT/man/flinch-$c.1")
  check "flinch $c --help lists options ($(echo $h | wc -w))" test "$(echo $h | wc -w)" -gt 2
  expect_eq "every option of 'flinch $c --help' is in flinch-$c(1)'s OPTIONS" \
    "$(LC_ALL=C comm -23 <(echo "$h") <(echo "$m") | tr '\n' ' ')" ""
  expect_eq "every option in flinch-$c(1)'s OPTIONS is in 'flinch $c --help'" \
    "$(LC_ALL=C comm -13 <(echo "$h") <(echo "$m") | tr '\n' ' ')" ""
done

h=$(sh "$ROOT/tests/docs/options.sh" man "$ROOT/man/flinch.1" | tr '\n' ' ')
expect_eq "flinch(1)'s OPTIONS" "$h" "--help --version -h "
for o in $h; do
  check "flinch $o works" sh -c "'$FLINCH' $o >/dev/null"
done

# 3. the example outputs are the program's (run 'make docs' after changing an output)
sh "$ROOT/tests/docs/examples.sh" "$BUILD" --check >ex.txt 2>&1
rc=$?
expect_eq "documented example outputs match the program (make docs rewrites them)" "$rc" 0
[ $rc -eq 0 ] || cat ex.txt >&2
n=$(grep -c -e '^<!-- example: ' -e '^\.\\" example: ' "$ROOT/README.md" "$ROOT"/man/* | awk -F: '{ s += $2 } END { print s }')
check "examples are checked ($n)" test "$n" -ge 8
# a block that no longer matches is caught: change one and check again
mkdir -p tree/man tree/tests/docs tree/sim/scenarios tree/tests/fixtures
cp "$ROOT"/README.md tree/; cp "$ROOT"/man/* tree/man/; cp "$ROOT"/tests/docs/*.sh tree/tests/docs/
cp "$ROOT"/sim/scenarios/demo.scn tree/sim/scenarios/; cp "$ROOT"/tests/fixtures/*.csv "$ROOT"/tests/fixtures/*.threads tree/tests/fixtures/
sed -i 's/^duration_s=0\.724000$/duration_s=0.725000/' tree/man/flinch-analyze.1
sh tree/tests/docs/examples.sh "$BUILD" --check >ex2.txt 2>&1
expect_eq "a changed example output is caught (exit 1)" "$?" 1
check "... and shown as a diff against the program's" grep -q '^-duration_s=0.725000' ex2.txt
sh tree/tests/docs/examples.sh "$BUILD" >/dev/null 2>&1
expect_eq "make docs' rewrite puts the program's output back" \
  "$(diff -r "$ROOT/man" tree/man && echo same)" same

# 4. flinch help COMMAND
if command -v man >/dev/null 2>&1 && man --version >/dev/null 2>&1; then
  for c in record mark analyze plot export; do
    C=$(echo "$c" | tr a-z A-Z)
    expect_match "flinch help $c: the page" "^FLINCH-$C\\(1\\)" "$(MANPAGER=cat MANWIDTH=80 "$FLINCH" help "$c" 2>&1 | head -1)"
  done
  expect_match "flinch help trace: flinch-trace(5)" '^FLINCH-TRACE\(5\)' "$(MANPAGER=cat "$FLINCH" help trace 2>&1 | head -1)"
  expect_match "flinch help methods: flinch-methods(7)" '^FLINCH-METHODS\(7\)' "$(MANPAGER=cat "$FLINCH" help methods 2>&1 | head -1)"
else
  skip "flinch help COMMAND shows the page" "no man"
fi
mkdir -p noman
for tool in sh cat sed; do ln -sf "$(command -v $tool)" noman/; done
out=$(PATH="$T/noman" "$FLINCH" help analyze 2>err.txt); rc=$?
expect_eq "without man: flinch help analyze is its usage, exit 0" "$rc:$(echo "$out" | head -1)" \
  "0:$("$FLINCH" analyze --help | head -1)"
out=$(PATH="$T/noman" "$FLINCH" help trace 2>&1); rc=$?
expect_eq "without man: flinch help trace says where the page is, exit 1" "$rc:$out" \
  "1:flinch help: cannot show flinch-trace(5): man(1) or the page is missing (the page's source is man/flinch-trace.5 in flinch's source tree)"
out=$("$FLINCH" help bogus 2>&1); rc=$?
expect_eq "flinch help bogus: exit 2, the topics" "$rc:$out" \
  "2:flinch help: no help on 'bogus': try record, mark, analyze, plot, export, trace, methods"
expect_eq "flinch help alone: the usage" "$("$FLINCH" help)" "$("$FLINCH" --help)"

# 5. bash completion
complete_words() {   # complete_words WORD...: what completing the last word offers
  bash -c '. "$1/completion/flinch.bash"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _flinch; printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort' _ "$ROOT" "$@"
}
expect_eq "completion: commands" "$(complete_words "$FLINCH" "" | tr '\n' ' ')" \
  "--help --version analyze export help mark plot record "
expect_eq "completion: help topics" "$(complete_words "$FLINCH" help t | tr '\n' ' ')" "trace "
expect_eq "completion: flinch record --int" "$(complete_words "$FLINCH" record --int)" "--interval-ms"
for c in record mark analyze plot export; do
  expect_eq "completion: every option of flinch $c" "$(complete_words "$FLINCH" "$c" -)" \
    "$(sh "$ROOT/tests/docs/options.sh" help "$FLINCH" "$c")"
done
expect_eq "completion: --format of analyze" "$(complete_words "$FLINCH" analyze --format "" | tr '\n' ' ')" "csv json text "

# 6. make demo: for each window, the scenario's scripted truth beside flinch's answer
DEMO_OUT="$T/demo" sh "$ROOT/tests/demo.sh" "$BUILD" >demo.txt 2>&1
expect_eq "make demo runs" "$?" 0
truth=$(sed -n '/^== scripted truth/,/^$/p' demo.txt)
expect_match "make demo: window 1 scripted compute 724 ms, 443.088 J; flinch: compute" \
  '^  1 +compute 724 ms, waiting 0 ms, 443\.088 J +compute 7[0-9][0-9] ms, waiting [0-9]+ ms, 44[0-9]\.[0-9]+ \+-[0-9.]+ J, verdict=compute$' "$truth"
expect_match "make demo: window 2 scripted waiting 724 ms, 54.300 J; flinch: waiting" \
  '^  2 +compute 0 ms, waiting 724 ms, 54\.300 J +compute [0-9] ms, waiting 7[0-9][0-9] ms, 5[0-9]\.[0-9]+ \+-[0-9.]+ J, verdict=waiting$' "$truth"

# 7. the README is a guide: CI runs its test command, from its first lines
lines=$(wc -l <"$ROOT/README.md")
check "README.md is a guide: at most 350 lines ($lines)" test "$lines" -le 350
expect_eq "README.md's first command block: make demo, make check" \
  "$(sed -n '3,6p' "$ROOT/README.md" | awk '{ print $1, $2 }' | tr '\n' ' ')" '```sh  make demo make check ```  '
for p in $pages; do
  check "README.md points at man/$p" grep -q "(man/$p)" "$ROOT/README.md"
done
if [ -x "$HELPERS/pngcheck" ]; then
  expect_eq "docs/demo-plot.png: 1200 x 720, not blank" \
    "$("$HELPERS/pngcheck" "$ROOT/docs/demo-plot.png" | awk '{ print $1, $2, ($3 > 20) }')" "1200 720 1"
fi
done_testing
