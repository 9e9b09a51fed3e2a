# reader_output.sh — issue 9, items 7 and 21: plot -o and export -o never
# follow a planted symlink, never replace anything but a regular file, never
# overwrite their input, and replace an old output only when complete;
# `plot -` and `export -` read standard input (a pipe too); header errors
# leak nothing (the ASan build's LeakSanitizer fails the run otherwise).
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
cp "$FX/original_10col.csv" v.csv
cp "$FX/original_10col.csv" keep.csv

# the output is the input: refused before anything is written
"$FLINCH" plot v.csv -o v.csv 2>err.txt
expect_eq "plot -o INPUT: exit 2" "$?" 2
expect_eq "plot -o INPUT: message" "$(cat err.txt)" \
  "flinch plot: v.csv: is the same file as the input v.csv: refusing to overwrite it"
"$FLINCH" export -f perfetto v.csv -o v.csv -q 2>err.txt
expect_eq "export -o INPUT: exit 2" "$?" 2
expect_eq "export -o INPUT: message" "$(cat err.txt)" \
  "flinch export: v.csv: is the same file as the input v.csv: refusing to overwrite it"
ln v.csv hard.json
"$FLINCH" export -f perfetto v.csv -o hard.json -q 2>err.txt
expect_eq "export -o a hard link of the input: exit 2" "$?" 2
check "the trace is intact" cmp -s v.csv keep.csv

# a planted symlink, to a file or dangling: refused, its target untouched
echo secret >victim
chmod 600 victim
ln -s victim link.svg
ln -s nowhere dangling.json
"$FLINCH" plot v.csv -o link.svg 2>err.txt
expect_eq "plot -o SYMLINK: exit 2" "$?" 2
expect_eq "plot -o SYMLINK: message" "$(cat err.txt)" \
  "flinch plot: link.svg: is a symbolic link: refusing to write through it (remove it, or name the file it points to)"
expect_eq "plot -o SYMLINK: target untouched" "$(cat victim)" secret
"$FLINCH" export -f perfetto v.csv -o dangling.json -q 2>err.txt
expect_eq "export -o dangling SYMLINK: exit 2" "$?" 2
check "export -o dangling SYMLINK: nothing created" test ! -e nowhere

# not a regular file: written in place, never replaced
"$FLINCH" plot v.csv -o /dev/null 2>err.txt
expect_eq "plot -o /dev/null: exit 0" "$?" 0
check "/dev/null is still a character device" test -c /dev/null
"$FLINCH" export -f perfetto v.csv -o /dev/null -q
expect_eq "export -o /dev/null: exit 0" "$?" 0
"$FLINCH" plot v.csv -o - --title T >stdout.svg
expect_eq "plot -o -: an SVG on stdout" "$(head -c 5 stdout.svg)" "<?xml"

# an old output is replaced whole, keeping its mode; a failed run keeps it
echo old >out.svg
chmod 640 out.svg
"$FLINCH" plot v.csv -o out.svg --title T
expect_eq "plot over an old file: replaced" "$(head -c 5 out.svg)" "<?xml"
expect_eq "plot over an old file: mode kept" "$(stat -c %a out.svg)" 640
expect_eq "no temporary file left" "$(ls -A | grep -c '^\.out\.svg\.')" 0
cp out.svg before.svg
printf 'a,b\n1,2\n' >notrace.csv
"$FLINCH" plot notrace.csv -o out.svg 2>err.txt
expect_eq "a failed plot: exit 2" "$?" 2
check "a failed plot: the old output kept" cmp -s out.svg before.svg
"$FLINCH" export -f perfetto notrace.csv -o out.svg -q 2>err.txt
expect_eq "a failed export: exit 2" "$?" 2
check "a failed export: the old output kept" cmp -s out.svg before.svg
expect_eq "no temporary file left after failures" "$(ls -A | grep -c '^\.out\.svg\.')" 0

# header errors: one line, exit 2, and (ASan build) no leak
"$FLINCH" plot notrace.csv -o x.svg 2>err.txt
expect_eq "plot, not a trace: exit 2 (no leak)" "$?" 2
expect_eq "plot, not a trace: message" "$(cat err.txt)" \
  "flinch plot: notrace.csv:1: not a flinch trace: no column t_mono_ns (header starts 'a')"
"$FLINCH" export -f perfetto notrace.csv -o x.json 2>err.txt
expect_eq "export, not a trace: exit 2 (no leak)" "$?" 2

# standard input: a file or a pipe, read as often as needed
"$FLINCH" plot v.csv -o file.svg --title T
"$FLINCH" plot - -o stdin.svg --title T <v.csv
expect_eq "plot - < FILE: exit 0" "$?" 0
check "plot - < FILE: the same SVG" cmp -s file.svg stdin.svg
cat v.csv | "$FLINCH" plot - -o pipe.svg --title T 2>err.txt
expect_eq "plot - from a pipe: exit 0" "$?" 0
check "plot - from a pipe: the same SVG" cmp -s file.svg pipe.svg
"$FLINCH" export -f perfetto v=v.csv -o file.json -q
cat v.csv | "$FLINCH" export -f perfetto v=- -o pipe.json -q 2>err.txt
expect_eq "export - from a pipe: exit 0" "$?" 0
check "export - from a pipe: the same JSON" cmp -s file.json pipe.json
"$FLINCH" analyze "$FX/plot_2gpu.csv" nodeB="$FX/host_b.csv" --start infer_start --end first_token >two.txt 2>&1
cat "$FX/host_b.csv" | "$FLINCH" analyze "$FX/plot_2gpu.csv" nodeB=- --start infer_start --end first_token >two_pipe.txt 2>&1
expect_eq "analyze of two hosts, one from a pipe: the same report" "$(cat two_pipe.txt)" "$(cat two.txt)"
# a label XML 1.0 forbids (U+FFFF) still gives a valid SVG; JSON escapes it
# validly; CSV output keeps it byte for byte
lab=$(printf 'x\357\277\277y')
sed "6s/MARK,infer_start,/MARK,infer_start,/; 2s/MARK,begin,/MARK,$lab,/" v.csv >ffff.csv
"$FLINCH" plot ffff.csv -o ffff.svg
expect_eq "U+FFFF label: plot exit 0" "$?" 0
check "U+FFFF label: the SVG is well-formed XML" python3 -c 'import xml.etree.ElementTree as E; E.parse("ffff.svg")'
"$FLINCH" export -f perfetto ffff.csv -o ffff.json -q
check "U+FFFF label: the JSON parses" python3 -c 'import json; json.load(open("ffff.json", encoding="utf-8"))'
"$FLINCH" analyze --csv ffff.csv --start "$lab" --end first_token --format csv >ffff_out.csv
check "U+FFFF label: CSV keeps it byte for byte" grep -q "^1,$lab,first_token," ffff_out.csv
done_testing
