# export_held.sh — `flinch export --format perfetto` of the values that hold
# over a span (issue 13, section 4): the GPM counters (SM active, SM
# occupancy, tensor active, DRAM bandwidth) written at the start of the span
# that ends at their row and at the end of the last one, and the
# per-process SM split (traced job / other processes) over the span each
# reading covers. Recorded from simulator scenarios (gpm_record.sh,
# proc_util.sh say what the simulator gives).
. "$ROOT/tests/lib.sh"

# track FILE NAME: "ts value" of each event of counter NAME on GPU 0 (pid 1001), in time order
track() {
  grep "^{\"name\":\"$2\",\"ph\":\"C\",\"pid\":1001,\"tid\":0," "$1" |
    sed 's/.*"ts":\([-0-9.]*\),"args":{"%":\([0-9.]*\)}}.*/\1 \2/' | sort -n | tr '\n' ' '
}

rec_virtual "$ROOT/tests/fixtures/gpm_square.scn" g.csv --seconds 2.5
expect_eq "GPM scenario records" "$?:$(cat err.txt)" "0:"
expect_status "export GPM trace" 0 "$FLINCH" export -f perfetto g.csv -o g.json -q --no-windows
expect_eq "export is valid JSON" "$("$HELPERS/jsoncheck" g.json)" valid
# spans of 200 ms end at ticks 20, 40, ... 240; [1000, 1600] busy, [1600,
# 1800] half busy, idle after: each value at its span's start, the last
# span's end (2400 ms) written too
expect_eq "SM active: at span starts, on change; the last span's end" "$(track g.json 'SM active (GPM)')" \
  "0.000 0 1000000.000 90 1600000.000 45 1800000.000 0 2400000.000 0 "
expect_eq "SM occupancy" "$(track g.json 'SM occupancy (GPM)')" \
  "0.000 0 1000000.000 40 1600000.000 20 1800000.000 0 2400000.000 0 "
expect_eq "tensor active" "$(track g.json 'tensor active (GPM)')" \
  "0.000 0 1000000.000 60 1600000.000 30 1800000.000 0 2400000.000 0 "
expect_eq "DRAM bandwidth" "$(track g.json 'DRAM bandwidth (GPM)')" \
  "0.000 0 1000000.000 30 1600000.000 15 1800000.000 0 2400000.000 0 "
expect_eq "one event, byte for byte" "$(grep '"SM active (GPM)".*"ts":1000000.000' g.json)" \
  '{"name":"SM active (GPM)","ph":"C","pid":1001,"tid":0,"ts":1000000.000,"args":{"%":90}},'

printf 'unsupported_after 3 nvmlGpmSampleGet\nat 0 util=50\n' > later.scn
rec_virtual later.scn later.csv --seconds 1
expect_status "export a trace whose GPM stopped" 0 "$FLINCH" export -f perfetto later.csv -o later.json -q --no-windows
expect_eq "GPM gone after two spans: the track ends where the last span does (400 ms)" \
  "$(track later.json 'SM active (GPM)')" "0.000 50 400000.000 50 "

printf 'gpm off\nat 0 util=50\n' > off.scn
rec_virtual off.scn off.csv --seconds 0.5
expect_status "export a pre-Hopper trace" 0 "$FLINCH" export -f perfetto off.csv -o off.json -q --no-windows
expect_eq "pre-Hopper: no GPM tracks" "$(grep -c '(GPM)"' off.json)" 0
expect_eq "no per-process tracks without --pid or a command" "$(grep -c 'SM % ' off.json)" 0

# Per-process: the job 20% and the tenant 60% until 1.5 s, then 50% / 10%;
# readings every 100 ticks, each over the samples since the previous one
# (the first: the second before it, written from the first row, ts 0: the
# timeline starts there). Sample times come from the wall
# clock, read through t_wall_ns - t_mono_ns; the recorder takes the
# simulator's own wall offset (flinchsim_vclock_wall_offset_ns), so they are
# exact however busy the host (read apart, the two offsets once differed by
# 83 us and turned 833.3 into 833.2).
printf 'at 0 power=612 util=80 proc_child=20 proc_other=60\nat 1500 proc_child=50 proc_other=10\n' > p.scn
rec_virtual p.scn p.csv --seconds 3.5 -- sleep 5
expect_eq "per-process scenario records" "$?:$(grep -v 'thread states' err.txt)" "0:"
expect_status "export per-process trace" 0 "$FLINCH" export -f perfetto p.csv -o p.json -q --no-windows
ms() { awk '{ for (i = 1; i < NF; i += 2) printf "%.1f %s ", $i / 1000, $(i + 1) }'; }
expect_eq "traced job's SM %: from each reading's span start; the last one's end" \
  "$(track p.json 'SM % traced job' | ms)" "0.0 20 833.3 30 1833.3 50 2833.3 50 "
expect_eq "per-process: no event before the first row" "$(grep -c '"ts":-' p.json)" 0
expect_eq "other processes' SM %" "$(track p.json 'SM % other processes' | ms)" \
  "0.0 60 833.3 43 1833.3 10 2833.3 10 "

done_testing
