#!/bin/sh
# Installs the optional packages some tests use, on Debian, when run as root.
# Everything here is optional: a test whose tool is missing reports SKIP.
#   python3   - runs the original analyze_trace.py against flinch traces
#   chromium  - renders `flinch plot` SVGs to PNG for the plot tests
#   valgrind  - memcheck pass (make valgrind, and the memcheck suite of make check)
#   clang     - make check's second compiler (-Werror), and make fuzz
#   python3-pandas - reads flinch traces as a data-frame user would (record_quoting)
#   python3-pip, python3-setuptools, python3-wheel, python3-venv - `pip install ./python`
#               offline into a virtual environment (python_helper)
#   DuckDB    - npm @duckdb/node-api, into build-deps/duckdb (ignored by git), when
#               npm is there: reads a long trace with its CSV sniffer (record_quoting)
#   groff-base, man-db - render the manual pages in man/ (tests/e2e/docs.sh,
#               `flinch help COMMAND`)
#   prometheus - a real Prometheus server and promtool for tests/e2e/prometheus*.sh,
#               metrics_formats.sh (OpenMetrics over ::1) and metrics.sh (record
#               --metrics scraped and queried on 127.0.0.1)
root=$(cd "$(dirname "$0")/.." && pwd)
if command -v npm >/dev/null 2>&1 && [ ! -d "$root/build-deps/duckdb/node_modules/@duckdb/node-api" ]; then
  mkdir -p "$root/build-deps/duckdb"
  (cd "$root/build-deps/duckdb" && npm install --no-audit --no-fund --silent @duckdb/node-api >/dev/null 2>&1) ||
    echo "setup-deps: could not install DuckDB from npm; its test will be skipped" >&2
fi
want=""
command -v python3 >/dev/null 2>&1 || want="$want python3"
command -v chromium >/dev/null 2>&1 || want="$want chromium"
command -v valgrind >/dev/null 2>&1 || want="$want valgrind"
command -v clang >/dev/null 2>&1 || want="$want clang"
{ python3 -c 'import pandas' || /usr/bin/python3 -c 'import pandas'; } >/dev/null 2>&1 || want="$want python3-pandas"
command -v prometheus >/dev/null 2>&1 || want="$want prometheus"
command -v groff >/dev/null 2>&1 || want="$want groff-base"
command -v man >/dev/null 2>&1 || want="$want man-db"
{ python3 -c 'import pip, setuptools, wheel, venv' || /usr/bin/python3 -c 'import pip, setuptools, wheel, venv'; } >/dev/null 2>&1 ||
  want="$want python3-pip python3-setuptools python3-wheel python3-venv"
[ -z "$want" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-deps: not root or no apt-get; tests needing:$want will be skipped" >&2
  exit 0
fi
echo "setup-deps: installing$want" >&2
export DEBIAN_FRONTEND=noninteractive
(apt-get update -qq && apt-get install -y -qq --no-install-recommends $want) >/dev/null 2>&1 ||
  echo "setup-deps: could not install$want; those tests will be skipped" >&2
exit 0
