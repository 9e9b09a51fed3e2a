#!/bin/bash
# record_quoting.sh — issue 9, item 20: every label cell of a MARK or EVENT
# row is quoted, and every column name is a plain SQL identifier (RAPL
# columns rapl_cum_uj_DOMAIN), so tools that guess the CSV dialect from the
# first rows cannot be broken by a label much later. Python's csv, pandas,
# the original analyze_trace.py and DuckDB (from npm, see
# tests/setup-deps.sh) read the trace with every label exact; each is
# skipped when not installed.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"
fifo="$T/q.fifo"

mkdir -p rapl/intel-rapl:0 rapl/intel-rapl:0:0
echo package-0 > rapl/intel-rapl:0/name
echo 123456 > rapl/intel-rapl:0/energy_uj
echo 262143328850 > rapl/intel-rapl:0/max_energy_range_uj
echo dram > rapl/intel-rapl:0:0/name
echo 654321 > rapl/intel-rapl:0:0/energy_uj
echo 262143328850 > rapl/intel-rapl:0:0/max_energy_range_uj

FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out q.csv --nvml-lib "$SIM" \
  --rapl-root "$T/rapl" --seconds 0 --marks-fifo "$fifo" 2>err.txt &
pid=$!
wait_for 250 grep -q begin q.csv
for l in infer_start 'a,b' 'say "hi"' 'two words' 'naïve ✓' first_token; do
  "$FLINCH" mark "$l" --fifo "$fifo"
done
wait_for 250 grep -q first_token q.csv
sleep 0.05
kill -TERM $pid; wait $pid
expect_eq "recorder exit 0" "$?" 0
want='begin
infer_start
a,b
say "hi"
two words
naïve ✓
first_token
end'
expect_eq "flinch's reader: labels exact" "$("$TC" --marks q.csv | cut -d' ' -f3-)" "$want"

# Byte level: each MARK label cell begins with a quote; SAMPLE labels empty.
expect_eq "every MARK label is quoted" \
  "$(grep -c ',MARK,"' q.csv) $(grep -c ',MARK,' q.csv)" "8 8"
expect_eq "SAMPLE rows: label empty, unquoted" "$(grep ',SAMPLE,' q.csv | grep -vc ',SAMPLE,,')" 0
check "the trace has RAPL columns" grep -q rapl_cum_uj_package_0 q.csv
expect_eq "every column name is a plain identifier" \
  "$(head -n 1 q.csv | tr ',' '\n' | grep -vcE '^[A-Za-z_][A-Za-z0-9_]*$')" 0
expect_eq "RAPL columns, one per domain" \
  "$(head -n 1 q.csv | tr ',' '\n' | grep rapl_cum | tr '\n' ' ')" "rapl_cum_uj_package_0 rapl_cum_uj_package_0_dram "

if command -v python3 >/dev/null 2>&1; then
  expect_eq "python csv: labels exact, every row as wide as the header" \
    "$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
assert {len(r) for r in rows} == {len(rows[0])}, "ragged"
print("\n".join(r[3] for r in rows[1:] if r[2] == "MARK"))' q.csv)" "$want"
  orig=$(python3 "$ROOT/tests/fixtures/analyze_trace.py" --csv q.csv --start infer_start --end first_token 2>&1)
  expect_eq "the original analyze_trace.py reads it (exit 0)" "$?" 0
  expect_eq "the original's first line is flinch analyze's" "$(echo "$orig" | head -n 1)" \
    "$("$FLINCH" analyze --csv q.csv --start infer_start --end first_token 2>/dev/null | head -n 1)"
else
  skip "python csv and the original analyzer" "no python3"
fi

PYPANDAS=
for py in python3 /usr/bin/python3; do
  "$py" -c 'import pandas' >/dev/null 2>&1 && { PYPANDAS=$py; break; }
done
if [ -n "$PYPANDAS" ]; then
  expect_eq "pandas: labels exact, RAPL columns by name" "$("$PYPANDAS" -c '
import sys, pandas as pd
d = pd.read_csv(sys.argv[1])
print("\n".join(d[d.row_type == "MARK"].label))
print(int(d.rapl_cum_uj_package_0.notna().sum() > 0))' q.csv)" "$want
1"
else
  skip "pandas reads the trace" "python3-pandas not installed (tests/setup-deps.sh)"
fi

# DuckDB guesses the dialect from the first 20,480 rows: a long trace whose
# first label needing quotes comes after that must still load whole.
NM="$ROOT/build-deps/duckdb/node_modules"
if command -v node >/dev/null 2>&1 && [ -d "$NM/@duckdb/node-api" ]; then
  cat > q.js <<'JS'
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const r = await con.runAndReadAll(`SELECT count(*)::VARCHAR,
        (count(*) FILTER (WHERE row_type = 'MARK'))::VARCHAR,
        string_agg(label, '|' ORDER BY t_mono_ns) FILTER (WHERE row_type = 'MARK'),
        max(rapl_cum_uj_package_0)::VARCHAR
      FROM read_csv_auto('${process.argv[2]}')`);
    console.log(r.getRows()[0].join(' '));
  } catch (e) { console.log('error: ' + String(e.message).split('\n')[0]); }
})();
JS
  # 25,000 SAMPLE rows of the recorded trace, then its marks, the first
  # one needing quotes ('a,b') past row 20,480.
  { head -n 2 q.csv
    awk -F, -v OFS=, '$3 == "SAMPLE" { s = $0 } END { for (i = 0; i < 25000; i++) { $0 = s; $1 = $1 + i; print } }' q.csv
    grep ',MARK,' q.csv | tail -n +2; } > long.csv
  got=$(NODE_PATH="$NM" timeout 60 node q.js long.csv)
  expect_eq "DuckDB: a 25,000-row trace loads whole, labels exact" "$got" \
    "25008 8 begin|infer_start|a,b|say \"hi\"|two words|naïve ✓|first_token|end $(csv_col q.csv rapl_cum_uj_package_0 | grep . | tail -n 1)"
  # The same trace as flinch wrote it before (labels quoted only when needed).
  sed -E 's/,(MARK|EVENT),"([^",]*)",/,\1,\2,/' long.csv > long_old.csv
  old=$(NODE_PATH="$NM" timeout 60 node q.js long_old.csv)
  echo "# DuckDB on the old quoting: $old"
else
  skip "DuckDB reads a long trace" "node or @duckdb/node-api not installed (tests/setup-deps.sh)"
fi
done_testing
