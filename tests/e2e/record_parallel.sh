# record_parallel.sh — with several GPUs the recorder reads them at the
# same time (src/record/gpu/gpu_pool.c): 8 simulated GPUs whose every query sleeps
# 300 us take 8 * 9 * 0.3 = 21.6 ms per tick read one after another, more
# than the 10 ms interval. Read in parallel, every tick is kept and the 8
# stamps of a tick lie together. Also: GPU loss with parallel reads keeps
# the rows of every GPU read whole and reports the first lost GPU, and a
# signal still ends the recording at once.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"

rec() { # rec SCENARIO OUT ARGS...: stderr in err.txt
  scn=$1; out=$2; shift 2
  FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl --gpu all "$@" 2>err.txt
}

printf 'gpus 8\nlatency_us 300\n' > slow8.scn
rec slow8.scn slow8.csv --interval-ms 10 --seconds 1
expect_eq "8 slow GPUs: exit 0" "$?" 0
expect_eq "8 slow GPUs: no warnings" "$(cat err.txt)" ""
# Serial reads would give about 1000 / 21.6 = 46 ticks; allow a loaded machine 5 skips.
expect_eq "8 slow GPUs: at least 95 of the 100 ticks for every GPU" \
  "$(awk -F, '$3 == "SAMPLE" { n[$11]++ } END { for (g = 0; g < 8; g++) printf "%s ", (n[g] >= 95 ? "ok" : g ":" n[g]) }' slow8.csv)" \
  "ok ok ok ok ok ok ok ok "
expect_eq "8 slow GPUs: each tick has GPU 0..7 in order" \
  "$(awk -F, '$3 == "SAMPLE" { if ($18 != tick) { if (seq != "" && seq != "01234567") bad++; tick = $18; seq = "" } seq = seq $11 }
              END { if (seq != "01234567") bad++; print bad + 0 }' slow8.csv)" 0
# Serial reads stamp GPU 7 about 19 ms after GPU 0; in parallel they start
# together. Allow a loaded machine a tenth of the ticks over 3 ms.
res=$(awk -F, '$3 == "SAMPLE" { t = $1; k = $18
                 if (!(k in lo) || t < lo[k]) lo[k] = t; if (!(k in hi) || t > hi[k]) hi[k] = t }
               END { for (k in lo) { n++; if (hi[k] - lo[k] > 3000000) wide++ } print n, wide + 0 }' slow8.csv)
check "8 slow GPUs: stamps of a tick within 3 ms in 90% of ticks (ticks, wider: $res)" \
  awk -v n="${res% *}" -v w="${res#* }" 'BEGIN { exit !(n >= 95 && w * 10 <= n) }'
check "8 slow GPUs: the trace parses" sh -c '"$1" "$2" >/dev/null' - "$TC" slow8.csv

# Two GPUs lost in the same tick (the handle is query 1, the GPM support
# query 2, the identity 8 more (the maximum SM clock the 8th), the first tick 9 with the first GPM sample,
# the next ones 2 each: query 22 is tick 2's):
# the six others keep their row of that tick; GPU 2, the first, is reported.
printf 'gpus 8\nlost_after 21 gpu 5\nlost_after 21 gpu 2\nat 0 power=75\n' > lost8.scn
rec lost8.scn lost8.csv --interval-ms 5 --seconds 2
expect_eq "GPUs 2 and 5 lost: exit 3" "$?" 3
expect_eq "GPUs 2 and 5 lost: message names GPU 2" "$(cat err.txt)" \
  "flinch record: GPU 2 fell off the bus (GPU is lost); recording stopped, rows written are kept"
expect_eq "GPUs 2 and 5 lost: rows per GPU 0..7" \
  "$(awk -F, '$3 == "SAMPLE" { c[$11]++ } END { for (g = 0; g < 8; g++) printf "%d ", c[g] }' lost8.csv)" \
  "3 3 2 3 3 2 3 3 "
expect_eq "GPUs 2 and 5 lost: last tick in GPU order without 2 and 5" \
  "$(awk -F, '$3 == "SAMPLE" { if ($18 != last) { last = $18; seq = "" } seq = seq $11 } END { print seq }' lost8.csv)" "013467"
expect_eq "GPUs 2 and 5 lost: EVENT names GPU 2" "$("$TC" --events lost8.csv | cut -d' ' -f2- | grep -v '^flinch_')" "gpu_lost gpu=2"

# SIGTERM reaches the sampling thread (the GPU threads block signals): the
# recording ends at once with its end mark.
FLINCH_SIM_SCENARIO=slow8.scn exec "$FLINCH" record --out sig.csv --nvml-lib "$SIM" --no-rapl \
  --gpu all --interval-ms 10 --seconds 60 2>err.txt &
pid=$!
n=0; until grep -q ',SAMPLE,' sig.csv 2>/dev/null || [ $n -ge 250 ]; do sleep 0.02; n=$((n + 1)); done
kill -TERM "$pid"
n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 150 ]; do sleep 0.02; n=$((n + 1)); done
check "SIGTERM: recorder gone within 3 s" test "$n" -lt 150
[ "$n" -ge 150 ] && kill -KILL "$pid" 2>/dev/null
wait "$pid"; rc=$?
expect_eq "SIGTERM: exit 0" "$rc" 0
expect_eq "SIGTERM: ends with the end mark" "$(tail -n 1 sig.csv | cut -d, -f3,4)" 'MARK,"end"'
done_testing
