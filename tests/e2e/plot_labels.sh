# plot_labels.sh — issue 22: `flinch plot`'s mark labels never overprint
# each other or run off the page. The fixture trace (10.0 to 13.0 s) with its
# own marks replaced by: a long label at the left edge, a short one, a long
# one near the right edge whose only room is left of its line in the second
# row (the first row's right part holds the short one's label), ten marks
# 13 ms apart (most get no room: left out, their lines stay), a label of wide
# glyphs at the right edge, and `end`. Each drawn label's extent comes from
# its textLength (the width it is drawn at, whatever the font).
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"

mk() { printf '%s,,MARK,%s,,,,,,,,,,,,,,,,,,,,\n' "$1" "$2"; }
{ awk -F, '$3 != "MARK" || $4 == "begin" || $4 == "end"' "$FX/flinch_windows.csv"
  mk 10020000000 a-long-label-at-the-left-edge
  k=0; while [ $k -lt 10 ]; do mk $((11000000000 + k * 13000000)) m$k; k=$((k + 1)); done
  mk 12350000000 aaaa
  mk 12750000000 a-long-label-near-the-edge
  mk 12900000000 WWWWWWWWWW; } >t.csv
"$FLINCH" plot t.csv -o t.svg --no-windows 2>err.txt
expect_eq "plot: exit 0, no message" "$? $(cat err.txt)" "0 "

# "y start end label" per drawn label; "-" when a label has no textLength
grep -o '<text[^>]*class="mlabel"[^>]*>[^<]*' t.svg | awk '{
    match($0, /x="[0-9.]+"/); x = substr($0, RSTART + 3, RLENGTH - 4) + 0
    match($0, /y="[0-9.]+"/); y = substr($0, RSTART + 3, RLENGTH - 4)
    w = "-"; if (match($0, /textLength="[0-9.]+"/)) w = substr($0, RSTART + 12, RLENGTH - 13) + 0
    label = $0; sub(/.*>/, "", label)
    if (w == "-") { print y, "-", "-", label; next }
    if (index($0, "text-anchor=\"end\"")) print y, x - w, x, label; else print y, x, x + w, label
  }' >labels.txt
expect_eq "every label drawn at a measured width" "$(grep -c ' - ' labels.txt)" 0
expect_eq "labels drawn (by where they start): six of the ten close marks, the long one left of its line in row 2" \
  "$(sort -k2,2n labels.txt | awk '{ print $1, $4 }' | tr '\n' '|')" \
  "68.0 begin|82.0 a-long-label-at-the-left-edge|68.0 m0|82.0 m1|68.0 m4|82.0 m5|68.0 m8|82.0 m9|82.0 a-long-label-near-the-edge|68.0 aaaa|68.0 WWWWWWWWWW|68.0 end|"
expect_eq "no two labels of a row overlap, none leaves the 1200 px page" \
  "$(sort -k1,1 -k2,2n labels.txt | awk '
      $2 < 0 || $3 > 1200 { print "off the page: " $4 }
      $1 == y && $2 < end { print "overprints: " last " and " $4 }
      { y = $1; end = $3; last = $4 }')" ""
expect_eq "near the right edge: left of the line" \
  "$(grep -o '<text[^>]*text-anchor="end"[^>]*class="mlabel"[^>]*>[^<]*' t.svg | sed 's/.*>//' | tr '\n' ' ')" \
  "a-long-label-near-the-edge WWWWWWWWWW "
# each label starts (or, left of its line, ends) 3 px from a mark line
lines=$(grep -o '<line x1="[0-9.]*"[^>]*class="mark"' t.svg | sed 's/<line x1="\([0-9.]*\)".*/\1/' | tr '\n' ' ')
expect_eq "every label beside its own mark line" \
  "$(awk -v lines="$lines" 'BEGIN { n = split(lines, l, " ") }
      { ok = 0; for (i = 1; i <= n; i++) if ((($2 - l[i]) - 3) ^ 2 < 0.01 || ((l[i] - $3) - 3) ^ 2 < 0.01) ok = 1
        if (!ok) print "away from its line: " $4 }' labels.txt)" ""
done_testing
