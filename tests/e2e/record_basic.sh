# record_basic.sh — flinch record: help, header bytes, exact sample count,
# begin/end marks, appending keeps one header.
. "$ROOT/tests/lib.sh"

help=$("$FLINCH" record --help); rc=$?
expect_eq "record --help exits 0" "$rc" 0
for opt in --out --gpu --interval-ms --seconds --marks-fifo --marks-mode --rapl --no-rapl \
           --rapl-root --proc-stat --nvml-lib --pid --quiet --help "-- CMD"; do
  case "$help" in *"$opt"*) ok "help lists $opt" ;; *) notok "help lists $opt" ;; esac
done

header='t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_mem_util_pct,gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj,gpu_index,gpu_energy_mJ,gpu_power_instant_W,gpu_mem_used_MiB,gpu_clock_event_reasons,gpu_power_limit_W,host_cpu_busy_pct,tick,late_ns,arrival_mono_ns,proc_pid,proc_cpu_ns,proc_state,mark_attrs,proc_tree_cpu_ns,proc_tree_procs,proc_top_thread_cores,proc_top_thread,gpu_energy_ts_us,gpu_power_instant_ts_us,gpu_pstate,gpu_throttle_power_cap_ns,gpu_throttle_sw_thermal_ns,gpu_throttle_hw_thermal_ns,gpu_throttle_hw_brake_ns,gpu_pcie_tx_bytes,gpu_pcie_rx_bytes,gpu_sm_active_pct,gpu_sm_occupancy_pct,gpu_tensor_active_pct,gpu_dram_bw_pct,gpu_gpm_span_ns,gpu_proc_sm_pct,gpu_other_sm_pct,gpu_proc_util_ts_us,proc_tree_runq_ns'

# One second at 10 ms: exactly 100 samples, ticks 0..99, whatever the load.
"$FLINCH" record --out one.csv --seconds 1 --interval-ms 10 --nvml-lib "$SIM" \
  --rapl-root "$T/no-powercap" 2>err.txt
expect_eq "1 s recording exits 0" "$?" 0
expect_eq "header bytes" "$(head -n 1 one.csv)" "$header"
expect_eq "no stderr output when not a terminal" "$(cat err.txt)" ""
expect_eq "second row is the begin MARK" "$(sed -n 2p one.csv | cut -d, -f3,4)" 'MARK,"begin"'
expect_eq "last row is the end MARK" "$(tail -n 1 one.csv | cut -d, -f3,4)" 'MARK,"end"'
# Counted by tick numbers: a tick more than one interval late (a loaded
# machine) is skipped and shows as a gap, so rows + gaps must be exactly 100.
tick_summary() { # tick numbers on stdin (blank lines ignored)
  awk 'NF { if (n && $1 <= p) bad = 1; if (!n) first = $1; n++; gaps += n > 1 ? $1 - p - 1 : 0; p = $1 }
       END { printf "first=%d last=%d rows+gaps=%d increasing=%s", first, p, n + gaps, bad ? "no" : "yes" }'
}
res=$(csv_col one.csv tick | tick_summary)
expect_eq "ticks over 1 s at 10 ms: 0..99, 100 in all" "$res" "first=0 last=99 rows+gaps=100 increasing=yes"
n=$(grep -c ',SAMPLE,' one.csv)
check "SAMPLE rows over 1 s at 10 ms ($n; 100 unless ticks were skipped)" test "$n" -ge 90 -a "$n" -le 100
expect_eq "every row has 46 cells" "$(awk -F, '{print NF}' one.csv | sort -u)" 46
# Tick k is due at begin + k x 10 ms; its row is stamped after its reads,
# late_ns after that (how late the wake-up was: a loaded machine's share,
# and unbounded for tick 0 and the last tick, which always run). What is
# left, the reads, is small whatever the load.
t0=$(sed -n 2p one.csv | cut -d, -f1); t1=$(tail -n 1 one.csv | cut -d, -f1)
off() { awk -F, -v t0="$t0" -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $3 == "SAMPLE" && $c["tick"] == k { print $1 - t0 - k * 10000000 - $c["late_ns"]; exit }' one.csv; }
check "tick 0 is sampled at begin (+ its late_ns)" near "$(off 0)" 0 20000000
check "tick 99 is sampled at begin + 990 ms (+ its late_ns)" near "$(off 99)" 0 20000000
last=$(grep ',SAMPLE,' one.csv | tail -n 1 | cut -d, -f1)
check "end is 1 s after begin, never before" test $((t1 - t0)) -ge 1000000000
check "end comes at once after begin + 1 s or the last sample, the later" \
  near "$(( t1 - (last > t0 + 1000000000 ? last : t0 + 1000000000) ))" 0 60000000
wall0=$(sed -n 2p one.csv | cut -d, -f2); now=$(date +%s%N)
check "t_wall_ns is CLOCK_REALTIME" near "$(( (now - wall0) / 1000000000 ))" 1 5
expect_eq "gpu_index 0 on every sample" "$(grep ',SAMPLE,' one.csv | cut -d, -f11 | sort -u)" 0
expect_eq "rapl cells empty without powercap" "$(grep ',SAMPLE,' one.csv | cut -d, -f10 | sort -u)" ""

# Appending keeps one header and adds a second begin..end.
"$FLINCH" record --out one.csv --seconds 0.1 --interval-ms 10 --nvml-lib "$SIM" \
  --rapl-root "$T/no-powercap" 2>/dev/null
expect_eq "append exits 0" "$?" 0
expect_eq "append keeps one header" "$(grep -c '^t_mono_ns,' one.csv)" 1
expect_eq "append adds a second begin" "$(grep -c ',MARK,"begin",' one.csv)" 2
# the second recording's ticks 0..9, counted as above (a loaded machine may
# skip one: a gap), and every SAMPLE row after the first recording's is its
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "tick") k = i; next }
          $3 == "MARK" && $4 == "\"begin\"" { b++ } b == 2 && $3 == "SAMPLE" { print $k }' one.csv >ticks2.txt
expect_eq "append adds ticks 0..9, 10 in all" "$(tick_summary <ticks2.txt)" "first=0 last=9 rows+gaps=10 increasing=yes"
expect_eq "append adds only its own samples" "$(grep -c ',SAMPLE,' one.csv)" "$((n + $(wc -l <ticks2.txt)))"

# An empty existing file gets the header, as the original did.
: > empty.csv
"$FLINCH" record --out empty.csv --seconds 0.05 --nvml-lib "$SIM" --no-rapl 2>/dev/null
expect_eq "empty file gets the header" "$(head -n 1 empty.csv)" "$header"

# A file with another header (other RAPL domains, another tool) is refused.
printf 'a,b,c\n1,2,3\n' > other.csv
err=$("$FLINCH" record --out other.csv --seconds 0.05 --nvml-lib "$SIM" --no-rapl 2>&1); rc=$?
expect_eq "different header refused" "$rc" 2
expect_match "different header message names the file" "^flinch record: other.csv: exists with a different header" "$err"
expect_eq "refused file untouched" "$(cat other.csv)" "$(printf 'a,b,c\n1,2,3')"

# Output path that is a symlink is refused (O_NOFOLLOW).
ln -s "$T/target.csv" link.csv
"$FLINCH" record --out link.csv --seconds 0.05 --nvml-lib "$SIM" --no-rapl 2>err.txt
expect_eq "symlinked --out refused" "$?" 2
check "symlink target not created" test ! -e "$T/target.csv"

# Usage errors.
"$FLINCH" record --seconds 1 2>err.txt
expect_eq "missing --out exits 2" "$?" 2
expect_eq "missing --out message" "$(cat err.txt)" "flinch record: --out FILE is required (see 'flinch record --help')"
"$FLINCH" record --out x.csv --interval-ms 0 2>err.txt
expect_eq "--interval-ms 0 exits 2" "$?" 2
"$FLINCH" record --out x.csv --seconds -1 2>err.txt
expect_eq "--seconds -1 exits 2" "$?" 2
"$FLINCH" record --out x.csv --bogus 2>err.txt
expect_eq "unknown option exits 2" "$?" 2
"$FLINCH" record --out x.csv stray 2>err.txt
expect_eq "stray argument exits 2" "$?" 2

done_testing
