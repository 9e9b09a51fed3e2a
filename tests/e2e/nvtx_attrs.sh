# nvtx_attrs.sh — NVTX event attributes through the bridge (issue 12):
# category (named by nvtxNameCategoryA/W, nvtxDomainNameCategoryA, or its
# number) and payload of every type, from an application built with the
# real nvtx3 headers (tests/nvtx/attrs.c); the mark_attrs column, the
# reader's validation, the Perfetto export's args, --category in analyze,
# plot and export, and --nvtx=FILTER's category terms.
. "$ROOT/tests/lib.sh"

rec() {  # rec OUT.csv [record options] -- CMD...
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out "$out" --interval-ms 10 \
    --nvml-lib "$SIM" --no-rapl "$@"
}
# label|mark_attrs without the ids and tid, in stamp order
attrs() { awk -F, '$3 == "MARK" && $4 != "\"begin\"" && $4 != "\"end\"" { gsub(/"/, "", $4); print $1, $4 "|" $24 }' "$1" |
  sort -n | cut -d' ' -f2- | sed 's/\(start\|end\)=[0-9.]* //; s/tid=[0-9]*//; s/| /|/; s/ $//'; }

inc=$(nvtx3_include)
if [ -z "$inc" ]; then
  skip "nvtx3 categories and payloads" "no nvtx3 headers"
  done_testing
fi
echo "# nvtx3 headers: $inc/nvtx3"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$inc" "$ROOT/tests/nvtx/attrs.c" -o attrs -ldl -lm
expect_eq "attrs app builds against nvtx3" "$?" 0

rec a.csv --nvtx -- ./attrs 2>err.txt
expect_eq "attrs app: exit 0, no warnings" "$?:$(cat err.txt)" "0:"
expect_eq "categories (named, numbered, per domain) and payloads of every type, in mark_attrs" \
  "$(attrs a.csv | tr '\n' ' ')" \
  "attr_mark|category=io_wait payload=-9007199254740993 attr_push|category=2 payload=18446744073709551615 attr_push| attr_start|payload=0.1 attr_start| attr_float|category=wide_é payload=1.5 attr_u32|payload=4000000000 attr_nan| attr_dom|domain=attrdom category=decode payload=-7 attr_dom|domain=attrdom attr_dom|domain=attrdom category=decode payload=-7 attr_dom|domain=attrdom "

"$FLINCH" export --format perfetto --no-windows -q a.csv -o a.json 2>err.txt
expect_eq "export: exit 0" "$?:$(cat err.txt)" "0:"
if command -v python3 >/dev/null 2>&1; then
  out=$(python3 - a.json <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
for e in ev:
    if e.get("ph") == "i" and e["name"] in ("attr_mark", "attr_push", "attr_dom"):
        a = e["args"]
        print(e["name"], a.get("category"), repr(a.get("payload")), a.get("domain"))
PY
)
  expect_eq "export: category and payload as Perfetto args (the int64 exact, as a JSON number)" "$(echo "$out" | tr '\n' ';')" \
    "attr_mark io_wait -9007199254740993 None;attr_push 2 18446744073709551615 None;attr_push None None None;attr_dom decode -7 attrdom;attr_dom None None attrdom;attr_dom decode -7 attrdom;attr_dom None None attrdom;"
fi

# window slices carry their start's category and payload, as its instant event
if command -v python3 >/dev/null 2>&1; then
  slices() {  # slices RANGE: "category payload;" per window slice
    "$FLINCH" export --format perfetto -q a.csv -o w.json --range "$1" 2>err.txt || cat err.txt
    python3 - w.json <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
print(";".join("%s %r" % (e["args"].get("category"), e["args"].get("payload"))
               for e in ev if e.get("ph") == "X" and e.get("cat") == "window"))
PY
  }
  expect_eq "export: window slices with the start's category and payload (int64 exact, double, none)" \
    "$(slices attr_dom)|$(slices attr_push)|$(slices attr_start)" \
    "decode -7;decode -7|2 18446744073709551615|None 0.1"
fi

# --nvtx=FILTER by category (name or number, glob or regex): what is dropped
# at the source is counted in marks_dropped EVENT rows (marks and range starts)
filtered() {  # filtered FILTER: "kept labels|attrs ... / dropped N"
  rm -f c.csv
  rec c.csv --nvtx="$1" -- ./attrs 2>/dev/null
  echo "$(attrs c.csv | tr '\n' ' ')/ dropped $(awk -F, '$3 == "EVENT" && $4 ~ /^"marks_dropped count=.* reason=filter"$/ {
    split($4, a, /[ =]/); s += a[3] } END { print s + 0 }' c.csv)"
}
expect_eq "--nvtx=category!=decode,category!=2: those ranges gone, 3 starts counted" \
  "$(filtered 'category!=decode,category!=2')" \
  "attr_mark|category=io_wait payload=-9007199254740993 attr_start|payload=0.1 attr_start| attr_float|category=wide_é payload=1.5 attr_u32|payload=4000000000 attr_nan| / dropped 3"
expect_eq "--nvtx=category=io_wait,category=1: by name, and by number whatever the name (decode is 1 of attrdom)" \
  "$(filtered 'category=io_wait,category=1')" \
  "attr_mark|category=io_wait payload=-9007199254740993 attr_dom|domain=attrdom category=decode payload=-7 attr_dom|domain=attrdom attr_dom|domain=attrdom category=decode payload=-7 attr_dom|domain=attrdom / dropped 5"
expect_eq "--nvtx=category=: only what has no category" "$(filtered 'category=')" \
  "attr_start|payload=0.1 attr_start| attr_u32|payload=4000000000 attr_nan| / dropped 5"
expect_eq "--nvtx=category~^wide,name!=attr_u32: a regex on the recorded name" "$(filtered 'category~^wide,name!=attr_u32')" \
  "attr_float|category=wide_é payload=1.5 / dropped 7"
rec c.csv --nvtx='category' -- true 2>err.txt
expect_eq "--nvtx=category without = or ~: exit 2, the term named" "$?:$(cat err.txt)" \
  "2:flinch record: --nvtx=category: term 1 'category': expected = or ~ after the field"

# analyze --category: the ranges whose start carries that category
nwin() { "$FLINCH" analyze --csv a.csv --format csv "$@" 2>/dev/null | awk -F, 'NR > 1' | wc -l | tr -d ' '; }
expect_eq "--range attr_dom --category decode: both ranges; attr_push by its number" \
  "$(nwin --range attr_dom --category decode):$(nwin --range attr_push --category 2):$(nwin --range attr_push)" "2:1:1"
"$FLINCH" analyze --csv a.csv --range attr_push --category io_wait >/dev/null 2>err.txt
expect_eq "--category that no start of the range has: no window, exit 2" "$?:$(grep -c "no window" err.txt)" "2:1"
"$FLINCH" analyze --csv a.csv --category decode >/dev/null 2>err.txt
expect_eq "--category without --range: exit 2" "$?:$(cat err.txt)" "2:flinch analyze: --category goes with --range (see --help)"

# plot and export take --category as analyze does (the same checks, the same pairing)
for cmd in plot export; do
  if [ $cmd = plot ]; then o=w.svg; set -- plot; else o=w.json; set -- export --format perfetto -q; fi
  rm -f "$o"
  "$FLINCH" "$@" a.csv -o "$o" --range attr_push --category 2 2>err.txt
  rc=$?
  # export writes every window; plot only those within its samples' span
  # (the app may finish before the first sample), so it is checked by exit
  [ $cmd = plot ] && n=- || n=$(grep -o '"cat":"window"' "$o" | wc -l | tr -d ' ')
  expect_eq "$cmd --range attr_push --category 2: exit 0 (export: its one window)" "$rc:$n:$(cat err.txt)" \
    "0:$([ $cmd = plot ] && echo - || echo 1):"
  rm -f "$o"
  "$FLINCH" "$@" a.csv -o "$o" --range attr_push --category io_wait 2>err.txt
  expect_eq "$cmd --category that no start of the range has: no window, exit 2, no output" \
    "$?:$(grep -c "no window in a.csv" err.txt):$(test -e "$o" && echo written)" "2:1:"
  "$FLINCH" "$@" a.csv -o "$o" --category decode 2>err.txt
  expect_eq "$cmd --category without --range: exit 2" "$?:$(cat err.txt)" "2:flinch $cmd: --category goes with --range (see --help)"
  "$FLINCH" "$@" a.csv -o "$o" --range attr_push --category '' 2>err.txt
  expect_eq "$cmd --category '': exit 2" "$?:$(cat err.txt)" "2:flinch $cmd: --category: empty category"
done

# the reader: a trace whose payload is not a JSON number is refused, naming line and cell
line=$(grep -n ',"attr_u32",' a.csv | cut -d: -f1)
sed "${line}s/payload=4000000000/payload=1e999/" a.csv > bad.csv
"$FLINCH" analyze --csv bad.csv --range attr_push >/dev/null 2>err.txt
expect_eq "a payload out of range in a trace: exit 2, file, line and cell" "$?:$(cat err.txt)" \
  "2:flinch analyze: bad.csv:$line: column mark_attrs: not start=ID, end=ID, tid=N, domain=NAME, category=NAME or payload=NUMBER: 'tid=$(awk -F, -v l="$line" 'NR == l { sub(/.*tid=/, "", $24); sub(/ .*/, "", $24); print $24 }' a.csv) payload=1e999'"

done_testing
