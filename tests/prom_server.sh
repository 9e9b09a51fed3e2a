# tests/prom_server.sh — a real Prometheus server for the metrics tests
# (sourced after tests/lib.sh; needs python3, curl and prometheus).
#
# free_port [HOST]: a free TCP port on HOST (default 127.0.0.1).
# prom_start TARGET [SCRAPE_LINES]: starts Prometheus on 127.0.0.1:$pport
#   scraping TARGET (host:port) every second as job "flinch" (SCRAPE_LINES:
#   more YAML for that job, e.g. scrape_protocols), kills it at exit, and
#   checks it is ready. Sets $prom (its pid) and $pport.
# prom_q EXPR: the value of an instant query's first sample ("" if none).

free_port() {
  python3 -c 'import socket, sys
h = sys.argv[1]
s = socket.socket(socket.AF_INET6 if ":" in h else socket.AF_INET)
s.bind((h, 0)); print(s.getsockname()[1])' "${1:-127.0.0.1}"
}

prom_start() {
  pport=$(free_port)
  cat >prom.yml <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: flinch
    scrape_interval: 1s
    scrape_timeout: 900ms
${2:-}
    static_configs:
      - targets: ['$1']
YML
  prometheus --config.file=prom.yml --storage.tsdb.path="$T/data" \
    --web.listen-address="127.0.0.1:$pport" --log.level=warn >prom.log 2>&1 &
  prom=$!
  trap 'kill $prom 2>/dev/null' EXIT
  i=0
  while ! curl -s -m 1 "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1 && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i+1))
  done
  check "prometheus ready on 127.0.0.1" curl -s -m 2 "http://127.0.0.1:$pport/-/ready"
}

prom_q() {
  curl -s -m 5 -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}
