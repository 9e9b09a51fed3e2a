#!/bin/sh
# bench/read_bench.sh BUILD — how fast flinch reads a large trace (issue 25
# §1): CPU time (user + sys, best of BENCH_REPEAT runs, default 5) of
# `flinch analyze`, `flinch plot` and `flinch export` on one generated
# trace of BENCH_ROWS SAMPLE rows (default 1,000,000: 179 MB, every current
# column; tests/helpers/gen_trace.c, --windows 1), against
# `cat FILE > /dev/null` as the floor, and, when they are installed, pandas
# (python3 -c 'pandas.read_csv') and DuckDB on one thread (the node client
# tests/setup-deps.sh puts in build-deps/duckdb); a missing one is skipped.
# Output goes to /dev/null, and export's also to a file: a file is an
# output export can take back, so it reads the trace once; /dev/null (like
# a pipe) is not, so it reads the trace whole before writing anything.
# Run it with the machine otherwise idle, or under the tests' lock (flock /tmp/flinch-test.lock sh bench/read_bench.sh
# BUILD) where others share it.
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
. bench/lib.sh
bench_init "$1"

rows=${BENCH_ROWS:-1000000}
repeat=${BENCH_REPEAT:-5}
gen="$HELPERS/gen_trace"
[ -x "$gen" ] || { echo "bench: $gen not built" >&2; exit 2; }
f="$W/trace.csv"
"$gen" --rows "$rows" --windows 1 --out "$f" || exit 2
bytes=$(wc -c <"$f")

# best NAME CMD...: runs CMD (stdout to /dev/null) REPEAT times under
# runstat and prints a Markdown row from the run with the least CPU time.
best() {
  name=$1; shift
  best_cpu=""
  i=0
  while [ "$i" -lt "$repeat" ]; do
    "$RUNSTAT" "$W/stat" "$@" >/dev/null 2>"$W/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "bench: '$*' failed with status $rc: $(head -c 300 "$W/err")" >&2
      return 1
    fi
    cpu=$(stat_cpu_us "$W/stat")
    if [ -z "$best_cpu" ] || [ "$cpu" -lt "$best_cpu" ]; then
      best_cpu=$cpu
      best_wall=$(stat_field "$W/stat" wall_ns)
      best_rss=$(stat_field "$W/stat" maxrss_kib)
    fi
    i=$((i + 1))
  done
  echo "| $name | $(calc "$best_cpu / 1e6" %.3f) s | $(calc "$best_wall / 1e9" %.3f) s |" \
       "$(calc "$bytes / 1e6 / ($best_cpu / 1e6)" %.0f) MB/s | $(calc "$best_rss / 1024" %.1f) MiB |"
}

echo "trace: $rows rows, $(calc "$bytes / 1e6" %.1f) MB (gen_trace --rows $rows --windows 1); best of $repeat"
echo
echo "| reader | CPU time (user+sys) | wall | MB/s of CPU time | max RSS |"
echo "|---|---:|---:|---:|---:|"
best "cat FILE > /dev/null (floor)" cat "$f"
best "flinch analyze --start infer_start --end first_token" \
  "$FLINCH" analyze --csv "$f" --start infer_start --end first_token
best "flinch plot -o -" "$FLINCH" plot "$f" -o -
best "flinch export -o -" "$FLINCH" export "$f" -o -
best "flinch export -o FILE" "$FLINCH" export "$f" -o "$W/export.json"
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import pandas' >/dev/null 2>&1; then py=$p; break; fi
done
if [ -n "$py" ]; then
  best "pandas $("$py" -c 'import pandas; print(pandas.__version__)') read_csv" \
    "$py" -c 'import sys, pandas; pandas.read_csv(sys.argv[1])' "$f"
else
  echo "bench: pandas not installed: no pandas row (tests/setup-deps.sh)" >&2
fi
duck="$root/build-deps/duckdb/node_modules"
if command -v node >/dev/null 2>&1 && [ -d "$duck/@duckdb/node-api" ]; then
  best "DuckDB, 1 thread: read_csv, count(*)" env NODE_PATH="$duck" node -e '
    const { DuckDBInstance } = require("@duckdb/node-api");
    (async () => {
      const db = await DuckDBInstance.create(":memory:", { threads: "1" });
      const c = await db.connect();
      await c.run("SELECT count(*), sum(gpu_power_W) FROM read_csv(" +
                  JSON.stringify(process.argv[1]) + ")");
    })().catch((e) => { console.error(e); process.exit(1); });' "$f"
else
  echo "bench: DuckDB not installed: no DuckDB row (tests/setup-deps.sh)" >&2
fi
