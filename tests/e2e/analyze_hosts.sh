# analyze_hosts.sh — several hosts' traces on one timeline: windows from
# one host's marks measured on every host's GPUs, aligned on t_wall_ns.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"

# nodeb: the same samples as flinch_windows.csv with its monotonic clock 5 s
# ahead (same wall times) and no marks. Each window must see nodeb's GPU do
# exactly what nodea's did: energies double (330 + 330 J, 30 + 30 J).
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } $3 == "MARK" { next }
         { $1 = sprintf("%.0f", $1 + 5000000000); print }' "$FX/flinch_windows.csv" >nodeb.csv
out=$("$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nodeb=nodeb.csv --start nodea:infer_start \
        --end nodea:first_token --windows)
expect_eq "two hosts: exit 0" "$?" 0
expect_match "two hosts: nodeb's offset is 5 s less" '^host nodeb: t_wall_ns - t_mono_ns = 1789999995000000000 ns' "$out"
expect_match "two hosts: compute window doubled" '^     1      0\.500     0\.500000     660\.000 .* compute +medium +none +power 660 W = idle 60 W \+ 100% of the busy range \(gpu 0\)$' "$out"
expect_match "two hosts: waiting window doubled" '^     2 .*      60\.000 .* waiting +medium +none +power 60 W' "$out"
expect_match "two hosts: levels per host" '^levels nodeb gpu 0: idle 60\.0 W, busy 660\.0 W' "$out"
# each host's GPUs keep the sensor periods measured from their own trace
expect_match "two hosts: sensors of nodea" '^sensors nodea gpu 0: energy counter <= 100\.2 ms, instant power ' "$out"
expect_match "two hosts: sensors of nodeb, not zeros" '^sensors nodeb gpu 0: energy counter <= 100\.2 ms, instant power ' "$out"
js=$("$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nodeb=nodeb.csv --start nodea:infer_start \
        --end nodea:first_token --format json)
expect_eq "two hosts: json sensor periods per host" \
  "$(echo "$js" | grep -o '"counter":{"changes":[0-9]*,"period_s":[0-9.]*' | tr '\n' ' ')" \
  '"counter":{"changes":30,"period_s":0.100250 "counter":{"changes":30,"period_s":0.100250 '
out=$("$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nodeb=nodeb.csv --start nodea:infer_start \
        --end nodea:first_token)
expect_match "two hosts: per-GPU lines" '^  nodeb gpu 0: energy 330\.000 J' "$out"
hdr=$("$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nodeb=nodeb.csv --start nodea:infer_start \
        --end nodea:first_token --format csv | head -1)
expect_match "two hosts: csv columns per host" ',nodea_gpu0_energy_J,.*,nodeb_gpu0_energy_J,' "$hdr"

# Marks named on a host that has none of them.
"$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nodeb=nodeb.csv --start nodeb:infer_start \
  --end nodeb:first_token >out.txt 2>err.txt
expect_eq "marks from a host without them: exit 2" "$?" 2
expect_eq "marks from a host without them: message" "$(cat err.txt)" "flinch analyze: no MARK 'infer_start' on host nodeb"
# A trace without t_wall_ns cannot be placed on the shared timeline.
cut -d, -f1,3- nodeb.csv | sed '1s/^t_mono_ns,/t_mono_ns,/' >nowall.csv
"$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nowall.csv --start nodea:infer_start \
  --end nodea:first_token >out.txt 2>err.txt
expect_eq "trace without wall clock: exit 2" "$?" 2
# The breakdown over hosts: nodeb's GPU computes through window 2 (11.5-12.0 s
# on nodea's clock, 16.5-17.0 s on nodeb's) while nodea's waits; the window
# computes when any host's GPU does, and each GPU keeps its own breakdown.
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next }
         $3 == "SAMPLE" && $1 >= 16400000000 && $1 <= 17100000000 { $6 = 100; $13 = "660.000"; $15 = "0x0000000000000000" } { print }' \
  nodeb.csv >nodeb2.csv
out=$("$FLINCH" analyze "nodea=$FX/flinch_windows.csv" nodeb=nodeb2.csv --start nodea:infer_start \
        --end nodea:first_token --format csv | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[1]
print(r["segments"], r["nodea_gpu0_segments"], r["nodeb_gpu0_segments"])' 2>/dev/null)
expect_eq "two hosts: window 2 computes on nodeb's GPU alone" "$out" \
  "compute:0.000-500.000 waiting:0.000-500.000 compute:0.000-500.000"
done_testing
