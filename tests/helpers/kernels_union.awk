# kernels_union.awk — the union of a kernels file's intervals, for tests:
#   awk -v type=B -v gpu=0 -v t0=NS [-v pid=P] -f kernels_union.awk FILE
# reads lines "B pid=P gpu=G start=NS end=NS ..." (a leading "\tcuda\t" is
# skipped) and prints the union in us from t0 as "a-b,c-d" (touching
# intervals joined), then " total=US count=N" (N: the kernels= or copies=
# sum). Also prints "top NAME US" lines for B (names from N lines).
# -v lo=NS -v hi=NS: only the part of each interval inside [lo, hi].
# A line's gaps=BUSY:GAP,... (ns) are taken out of its [start, end).
function field(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
{ sub(/^\tcuda\t/, "") }
$1 == "N" { name[field("pid") ":" field("id")] = $4; next }
$1 == type && field("gpu") == gpu && (pid == "" || field("pid") == pid) {
  # [start, end) minus gaps=BUSY:GAP,...: the busy pieces
  np = 0; p0 = field("start") + 0; g = field("gaps")
  if (g != "") {
    ng = split(g, gl, ",")
    for (j = 1; j <= ng; j++) { split(gl[j], bg, ":"); np++; ps[np] = p0; pe[np] = p0 + bg[1]; p0 = pe[np] + bg[2] }
  }
  np++; ps[np] = p0; pe[np] = field("end") + 0
  for (j = 1; j <= np; j++) {
    a0 = ps[j]; b0 = pe[j]
    if (lo != "" && a0 < lo + 0) a0 = lo + 0
    if (hi != "" && b0 > hi + 0) b0 = hi + 0
    if (b0 <= a0 && (lo != "" || hi != "")) continue
    n++; s[n] = (a0 - t0) / 1000; e[n] = (b0 - t0) / 1000
  }
  count += field("kernels") + field("copies")
  if (type == "B") {
    split(field("top"), tops, ",")
    for (j in tops) { split(tops[j], kv, ":"); topns[field("pid") ":" kv[1]] += kv[2] }
  }
}
END {
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
    if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t; t = e[i]; e[i] = e[j]; e[j] = t }
  out = ""; total = 0
  for (i = 1; i <= n; ) {
    a = s[i]; b = e[i]; i++
    while (i <= n && s[i] <= b) { if (e[i] > b) b = e[i]; i++ }
    out = out (out == "" ? "" : ",") a "-" b; total += b - a
  }
  printf "%s total=%s count=%d\n", out, total, count
  for (k in topns) printf "top %s %s\n", (k in name ? name[k] : "?" k), topns[k] / 1000 | "sort"
}
