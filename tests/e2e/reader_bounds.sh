# reader_bounds.sh — issue 9: hostile traces stop with one clear line and
# exit 2, in bounded time and memory: non-finite and out-of-range numbers,
# a stray quote, a 64 MiB line of NULs, extreme plot zooms; numbers written
# as JSON or text are never inf or nan; labels reach stderr escaped.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
ORIG="$FX/original_10col.csv"
A="--start infer_start --end first_token"

# every reader, one message: file, line, column, exit 2 — and plot ends
# (it used to write an SVG without end for 1e999)
sed '3s/,100,0,0,1980/,1e999,0,0,1980/' "$ORIG" >inf.csv
want="inf.csv:3: column gpu_power_W: not a finite number: '1e999'"
timeout 20 "$FLINCH" analyze --csv inf.csv $A >out.txt 2>err.txt
expect_eq "1e999: analyze exit 2" "$?" 2
expect_eq "1e999: analyze message" "$(cat err.txt)" "flinch analyze: $want"
timeout 20 "$FLINCH" plot inf.csv -o inf.svg 2>err.txt
expect_eq "1e999: plot exit 2" "$?" 2
expect_eq "1e999: plot message" "$(cat err.txt)" "flinch plot: $want"
check "1e999: plot wrote nothing" test ! -e inf.svg
timeout 20 "$FLINCH" export --format perfetto inf.csv -o inf.json 2>err.txt
expect_eq "1e999: export exit 2" "$?" 2
expect_eq "1e999: export message" "$(cat err.txt)" "flinch export: $want"

# --method seed reads numbers as Python's float() does, but not infinity
sed '8s/,300,100,50,1980/,1e999,100,50,1980/' "$ORIG" >seedinf.csv
"$FLINCH" analyze --csv seedinf.csv $A --method seed >out.txt 2>err.txt
expect_eq "1e999, --method seed: exit 2" "$?" 2
expect_eq "1e999, --method seed: message" "$(cat err.txt)" \
  "flinch analyze: seedinf.csv:8: column gpu_power_W: not a finite number: '1e999'"
check "1e999, --method seed: no inf printed" sh -c '! grep -q inf out.txt'

sed '3s/,100,0,0,1980/,1e308,0,0,1980/' "$ORIG" >huge.csv
"$FLINCH" analyze --csv huge.csv $A >out.txt 2>err.txt
expect_eq "power 1e308: exit 2" "$?" 2
expect_eq "power 1e308: message" "$(cat err.txt)" \
  "flinch analyze: huge.csv:3: column gpu_power_W: '1e308' is out of range (0 .. 100000)"
sed '2s/^990000000,/9223372036854775807,/' "$ORIG" >far.csv
"$FLINCH" analyze --csv far.csv $A >out.txt 2>err.txt
expect_eq "stamp 2^63-1: exit 2" "$?" 2
expect_eq "stamp 2^63-1: message" "$(cat err.txt)" \
  "flinch analyze: far.csv:2: column t_mono_ns: '9223372036854775807' is out of range (0 .. 4611686018427387903 ns)"

# a stray opening quote on line 2000 of a 10,000-row trace: it used to give
# fewer windows, exit 0 and a "truncated last line" warning
awk -v h="$(head -1 "$ORIG")" 'BEGIN { print h
  for (i = 0; i < 10000; i++) {
    t = 1000000000 + i * 10000000
    if (i % 1000 == 10) printf "%d,,MARK,infer_start,,,,,,\n", t
    else if (i % 1000 == 20) printf "%d,,MARK,first_token,,,,,,\n", t
    else if (i == 1998) printf "%d,,MARK,\"oops,,,,,,\n", t
    else printf "%d,,SAMPLE,,100,0,0,1980,40,\n", t } }' >quote.csv
"$FLINCH" analyze --csv quote.csv $A >out.txt 2>err.txt
expect_eq "stray quote: exit 2" "$?" 2
expect_eq "stray quote: message names the line it opened on" "$(cat err.txt)" \
  "flinch analyze: quote.csv:2000: a quoted cell opened on this line is never closed: every line after it, to the end of the file, would be part of that cell"
expect_eq "stray quote: nothing on stdout" "$(cat out.txt)" ""

# 64 MiB of NULs after the header (a crash's tail): one error, bounded memory
{ head -3 "$ORIG"; head -c 67108864 /dev/zero; } >nul.csv
case "$BUILD" in *asan*) lim=unlimited ;; *) lim=262144 ;; esac   # 256 MiB of address space
(ulimit -v $lim; "$FLINCH" analyze --csv nul.csv $A) >out.txt 2>err.txt
expect_eq "NUL tail: exit 2" "$?" 2
expect_eq "NUL tail: message" "$(cat err.txt)" \
  "flinch analyze: nul.csv:4: row longer than 1048576 bytes without a newline: not a trace row (a corrupt file, or NULs from a crash?)"

# extreme zooms end, with an SVG bounded by its pixel size
timeout 20 "$FLINCH" plot "$ORIG" -o z.svg --from 1e17 --to 100000000000000016 2>err.txt
expect_eq "zoom past any trace: exit 2" "$?" 2
expect_eq "zoom past any trace: message" "$(cat err.txt)" \
  "flinch plot: --from: not a number of seconds in 0..4611686018: '1e17'"
timeout 20 "$FLINCH" plot "$ORIG" -o z.svg --from 4000000000 --to 4000000000.000001 2>err.txt
expect_eq "zoom below the doubles' resolution: exit 0" "$?" 0
size=$(wc -c <z.svg)
check "zoom below the doubles' resolution: SVG under 100 kB ($size bytes)" test "$size" -lt 100000

# a window of zero length: no inf or nan in JSON or text
awk 'NR == 13 { sub(/^1750000000,1700000001750000000/, "1250000000,1700000001250000000") } { print }' \
  "$ORIG" >zero.csv
"$FLINCH" analyze --csv zero.csv $A --format json >out.json 2>err.txt
expect_eq "zero-length window: json exit 0" "$?" 0
check "zero-length window: JSON parses" python3 -c 'import json,sys; json.load(open("out.json"))'
check "zero-length window: no inf/nan in JSON" sh -c '! grep -Eiq ":-?(inf|nan)" out.json'
"$FLINCH" analyze --csv zero.csv $A --windows >out.txt 2>err.txt
check "zero-length window: no inf/nan in text" sh -c '! grep -Eq "(^|[^a-z])(-?inf|-?nan)([^a-z]|$)" out.txt'

# a UTF-8 byte-order mark before the header reads like the plain file
{ printf '\357\273\277'; cat "$ORIG"; } >bom.csv
"$FLINCH" analyze --csv bom.csv $A >out.txt 2>err.txt
expect_eq "byte-order mark: exit 0" "$?" 0
expect_eq "byte-order mark: same report" "$(cat out.txt)" "$(cat "$FX/original_10col.expected")"

# terminal escapes in a label reach stderr escaped, never raw
esc=$(printf '\033')
sed "2s/MARK,begin,/MARK,${esc}[31mred${esc}[0m,/" "$ORIG" >esc.csv
"$FLINCH" analyze --csv esc.csv --start infer_start --end nope >out.txt 2>err.txt
expect_eq "escape in a label: exit 2" "$?" 2
expect_eq "escape in a label: escaped in the message" "$(cat err.txt)" \
  'flinch analyze: no MARK '"'nope'"' in esc.csv (labels seen: \x1b[31mred\x1b[0m, infer_start, first_token, end)'
check "escape in a label: no raw ESC on stderr" sh -c "! grep -q '$esc' err.txt"
# one GPU limit everywhere (trace_limits.h): 20 GPUs read by all three
# readers (analyze refused more than 16), 65 refused by all three
gpus() { awk -v n="$1" 'BEGIN { print "t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_index"
  printf "1000,1,MARK,infer_start,,,\n"
  for (t = 1; t <= 3; t++) for (g = 0; g < n; g++) printf "%d,%d,SAMPLE,,100,50,%d\n", t * 1000000, t, g
  printf "3500000,4,MARK,first_token,,,\n" }'; }
gpus 20 >g20.csv
"$FLINCH" analyze --csv g20.csv $A >out.txt 2>err.txt
expect_eq "20 GPUs: analyze exit 0" "$?" 0
expect_eq "20 GPUs: analyze sees them" "$(grep -c '^levels gpu' out.txt)" 20
"$FLINCH" plot g20.csv -o g20.svg 2>err.txt
expect_eq "20 GPUs: plot exit 0" "$?" 0
"$FLINCH" export -f perfetto g20.csv -o g20.json -q 2>err.txt
expect_eq "20 GPUs: export exit 0" "$?" 0
gpus 65 >g65.csv
"$FLINCH" analyze --csv g65.csv $A >out.txt 2>err.txt
expect_eq "65 GPUs: analyze exit 2" "$?" 2
"$FLINCH" plot g65.csv -o g65.svg 2>err.txt
expect_eq "65 GPUs: plot exit 2" "$?" 2
"$FLINCH" export -f perfetto g65.csv -o g65.json -q 2>err.txt
expect_eq "65 GPUs: export exit 2" "$?" 2
done_testing
