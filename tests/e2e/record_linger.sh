# record_linger.sh — issue 19 §1: record keeps sampling after its stop until
# the energy counter has updated 3 times after the last client mark (at
# most --linger-ms), so the last window of a wrapped command that exits
# right after its end mark is as good as an interior one on the h100
# preset (100 ms counter steps); `end` stays at the stop, only SAMPLE rows
# follow it; --linger-ms 0 leaves the last window on the interpolated
# counter, flagged near-end (not inconclusive); no client mark near the
# stop: no linger; a second SIGTERM ends the linger at once; the exit
# status stays CMD's. Real time (the marks come from a wrapped command).
. "$ROOT/tests/lib.sh"
PATH="$(dirname "$FLINCH"):$PATH"
printf 'preset h100\nsensor_seed 5\nat 0 power=612 util=98\n' >h.scn

# rec_cmd OUT [ARGS...]: `a` and `b` six times, 300 ms apart, then CMD
# exits 7 right after its last mark; in the background (bg_status: the
# exit status to OUT.rc). The two such recordings below run at once (each CMD has its own
# FIFO; a recorder at 10 ms takes ~1 % of a core): 4 s less.
rec_cmd() {
  out=$1; shift
  rm -f "$out"
  bg_status "$out" env FLINCH_SIM_SCENARIO=h.scn "$FLINCH" record --nvml-lib "$SIM" -o "$out" -q --no-rapl \
    --proc-stat /dev/null "$@" -- sh -c 'sleep .5; for i in 1 2 3 4 5 6; do [ $i = 1 ] || sleep .3
      flinch mark a; sleep .3; flinch mark b; done; exit 7'
}
# win OUT N COLUMN: window N's JSON field (gpu 0's for energy and +-)
win() {
  "$FLINCH" analyze --csv "$1" --start a --end b --idle-w 75 --busy-w 612 --format json | python3 -c '
import json, sys
w = json.load(sys.stdin)["windows"][int(sys.argv[1]) - 1]; g = w["gpus"][0]
print({"E": g["energy_J"], "U": g["uncertainty_J"], "dur": w["duration_s"], "flags": w["flags"],
       "verdict": w["verdict"]}[sys.argv[2]])' "$2" "$3"
}
end_t()   { awk -F, '$3 == "MARK" && $4 == "\"end\"" { print $1 }' "$1"; }
after_end() { awk -F, -v e="$(end_t "$1")" '$3 == "SAMPLE" && $1 > e { n++ } END { print n + 0 }' "$1"; }

if ! command -v python3 >/dev/null 2>&1; then skip "record_linger" "python3 missing"; done_testing; fi

# 1. default flags (dither, --linger-ms 500); 2. (below) --linger-ms 0
rec_cmd l.csv
rec_cmd z.csv --linger-ms 0
wait
expect_eq "linger: exit status is CMD's" "$(cat l.csv.rc)" 7
expect_eq "linger: end is the last MARK" "$(grep ',MARK,' l.csv | tail -n 1 | cut -d, -f3,4)" 'MARK,"end"'
n=$(after_end l.csv)
check "linger: SAMPLE rows after end ($n: 3 counter steps of ~100 ms at 10 ms, at most 500 ms)" \
  test "$n" -ge 15 -a "$n" -le 51
last=$(awk -F, '$3 == "SAMPLE" { t = $1 } END { print t }' l.csv)
check "linger: the last sample within 520 ms of end" test $((last - $(end_t l.csv))) -le 520000000
for k in 1 2 3 4 5 6; do
  e=$(win l.csv $k E); u=$(win l.csv $k U); x=$(awk -v d="$(win l.csv $k dur)" 'BEGIN { printf "%.3f", 612 * d }')
  eval "E$k=$e U$k=$u X$k=$x"
  echo "# window $k: $e +-$u J (exact $x J)"
done
# the widest of the five interior windows' +-: they are the same 300 ms at
# 612 W, and a window's +- varies between identical ones with where the
# counter's 100 ms steps fall (1.41 to 5.66 J seen; with three interior
# windows an ASan run read the last 2.86 J against the widest 1.87 J; with
# five a clang run read 3.21 J against 1.77 J). The bound is 3x the widest:
# the failure this guards, the interpolated counter's fallback
# (--linger-ms 0 below, its +- printed there), is ~10x wider.
Umed=$(printf '%s\n' "$U1" "$U2" "$U3" "$U4" "$U5" | sort -g | sed -n 5p)
check "linger: the last window ($E6 J) within 1% of the exact $X6 J" near "$E6" "$X6" "$(awk -v x="$X6" 'BEGIN { print x / 100 }')"
# The +- holds on every build. It did not under a sanitizer or a busy host
# (a plain run read 190.17 J under +-2.01 J against the exact 187.67 J):
# the driver's reads ran milliseconds after the rows' stamps, and the last
# edge's knots, extrapolated from the updates before it, were placed to
# +-1 ms when they were 3.6 ms off. Analyze now takes each reading at the
# driver's timestamp and widens a knot by how far the period the data
# allows can tilt it (energy_estimator.c, (a)); 12 plain runs and 8 ASan
# runs beside three busy loops on two cores all held.
check "linger: the last window's +-$U6 J holds the exact value" near "$E6" "$X6" "$U6"
check "linger: the last window's +-$U6 J is no wider than 3x the widest interior one's ($Umed J)" \
  awk -v a="$U6" -v b="$Umed" 'BEGIN { exit !(a > 0 && a <= 3 * b) }'
expect_eq "linger: the last window has no flag" "$(win l.csv 6 flags)" ""
check "trace reader: samples after end read whole" "$HELPERS/tracecheck" l.csv
check "plot: samples after end" "$FLINCH" plot l.csv -o l.svg --start a --end b
check "export: samples after end" "$FLINCH" export --format perfetto l.csv -o l.json --start a --end b

# 2. --linger-ms 0: the last window falls back to the interpolated counter
expect_eq "--linger-ms 0: exit status is CMD's" "$(cat z.csv.rc)" 7
expect_eq "--linger-ms 0: no SAMPLE row after end" "$(after_end z.csv)" 0
echo "# --linger-ms 0: window 6 +-$(win z.csv 6 U) J (exact $(awk -v d="$(win z.csv 6 dur)" 'BEGIN { printf "%.3f", 612 * d }') J)"
expect_eq "--linger-ms 0: the last window is near-end" "$(win z.csv 6 flags)" "near-end"
expect_eq "--linger-ms 0: the first window is not" "$(win z.csv 1 flags)" ""
expect_eq "--linger-ms 0: near-end is not inconclusive" "$(win z.csv 6 verdict)" "compute"
out=$("$FLINCH" analyze --csv z.csv --start a --end b --idle-w 75 --busy-w 612 --windows)
expect_match "--linger-ms 0: near-end in the text flags column" ' compute +medium +near-end +power ' "$out"
expect_match "--linger-ms 0: near-end lowers the confidence" \
  '^window 6 a -> b  [0-9.]+ s  compute.*confidence medium: (.*; )?near-end: the trace stopped before the energy counter updated after an edge(;.*)?\)$' "$out"
expect_match "--linger-ms 0: the evidence says why" \
  'near-end: the trace stopped before the energy counter updated 3 times after an edge' \
  "$("$FLINCH" analyze --csv z.csv --start a --end b --format csv)"

# 3. no client mark near the stop: no linger, the tick count unchanged
rm -f n.csv
FLINCH_SIM_SCENARIO=h.scn "$FLINCH" record --nvml-lib "$SIM" -o n.csv -q --no-rapl -s 0.5 \
  --marks-fifo "$T/nf" 2>err.txt
expect_eq "no marks: exit 0" "$?" 0
ticks() { "$HELPERS/tracecheck" "$1" | sed 's/.* ticks=\([0-9.]*\) .*/\1/'; }
expect_eq "no marks: ticks 0..49, none after end" "$(ticks n.csv) $(after_end n.csv)" "0..49 0"
# a mark long before the stop (3 updates after it seen): no linger either
rm -f e.csv
FLINCH_SIM_SCENARIO=h.scn "$FLINCH" record --nvml-lib "$SIM" -o e.csv -q --no-rapl -s 1 \
  --marks-fifo "$T/ef" 2>err.txt &
wait_for 250 grep -q ',MARK,"begin",' e.csv
"$FLINCH" mark early --fifo "$T/ef"
wait $!
expect_eq "early mark: ticks 0..99, none after end" "$(ticks e.csv) $(after_end e.csv)" "0..99 0"
# --seconds: a mark just before the stop lingers, and end stays at 1 s. The
# mark is the shell's own write: sent by a `flinch mark` process (an ASan
# build's, beside two busy loops) it left no linger at all in two runs, and
# the shell's write passed in both runs there.
rm -f s.csv
FLINCH_SIM_SCENARIO=h.scn "$FLINCH" record --nvml-lib "$SIM" -o s.csv -q --no-rapl -s 1 \
  --marks-fifo "$T/sf" 2>err.txt &
rec=$!
wait_for 250 grep -q ',MARK,"begin",' s.csv
sleep 0.9; printf 'late\n' >"$T/sf"
wait $rec
begin=$(awk -F, '$3 == "MARK" && $4 == "\"begin\"" { print $1 }' s.csv)
d=$(( $(end_t s.csv) - begin ))
check "--seconds 1: end 1 s after begin ($d ns)" test "$d" -ge 1000000000 -a "$d" -le 1050000000
n=$(after_end s.csv)
check "--seconds 1: SAMPLE rows after end for the late mark ($n)" test "$n" -ge 15

# 4. a second SIGTERM during the linger stops at once (a counter stepping
# every 500 ms: the linger would last 1.5 s)
printf 'energy_update_ms 500\nat 0 power=300 util=50\n' >slow.scn
rm -f g.csv
FLINCH_SIM_SCENARIO=slow.scn "$FLINCH" record --nvml-lib "$SIM" -o g.csv -q --no-rapl -s 0 \
  --linger-ms 5000 --marks-fifo "$T/gf" 2>err.txt &
rec=$!
wait_for 250 grep -q ',MARK,"begin",' g.csv
sleep 1.2; "$FLINCH" mark x --fifo "$T/gf"
kill -TERM $rec
sleep 0.4
check "second signal: still lingering 0.4 s after the first" kill -0 $rec
t0=$("$HELPERS/simtool" now)
kill -TERM $rec; wait $rec
rc=$?
t1=$("$HELPERS/simtool" now)
expect_eq "second signal: exit 0" "$rc" 0
check "second signal: stopped within 300 ms ($(( (t1 - t0) / 1000000 )) ms)" test $((t1 - t0)) -le 300000000
n=$(after_end g.csv)
check "second signal: the linger's rows follow end ($n)" test "$n" -ge 20
check "second signal: the trace reads whole" "$HELPERS/tracecheck" g.csv
# with CMD (exited by itself): a signal during the linger ends it, and the
# exit status stays CMD's
rm -f c.csv
FLINCH_SIM_SCENARIO=slow.scn "$FLINCH" record --nvml-lib "$SIM" -o c.csv -q --no-rapl \
  --linger-ms 5000 -- sh -c 'sleep 1.2; flinch mark x; exit 5' 2>err.txt &
rec=$!
wait_for 250 grep -q ',MARK,"x",' c.csv
sleep 0.3
kill -TERM $rec; wait $rec
expect_eq "signal during the linger with CMD: exit status is CMD's" "$?" 5
done_testing
