# metrics_http.sh — every answer of `flinch record --metrics` is strict
# HTTP/1.1 (issue 26 item 12: the error answers used to start
# "HTTP/1.1 404 Not Found\n\r\n", so their headers arrived as body): the
# status line and every header end in CRLF, and each answer carries
# Content-Type, Content-Length (equal to the body) and Connection: close.
# Read with Python's http.client (a strict parser) on the raw bytes, and
# with curl when installed: 200 in both text formats and for /healthz,
# HEAD, 400, 404, 405 (with Allow) and 431.
. "$ROOT/tests/lib.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
if ! command -v python3 >/dev/null 2>&1; then
  skip "metrics http" "python3 needed"; done_testing
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_err() { i=0; while ! grep -q -- "$1" err.txt 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; }

port=$(free_port)
"$FLINCH" record --out h.csv --seconds 30 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --metrics "$port" -q 2>err.txt &
rec=$!
wait_err 'serving metrics'
sleep 0.3

# For each request, sent raw: http.client parses the answer's bytes and
# prints NAME status reason type Content-Length Connection Allow, the
# body's length and first 20 bytes, whether the head holds a bare LF, a
# blank line, and the number of headers.
python3 - "$port" >answers.txt 2>py.err <<'PY'
import http.client, socket, sys
port = int(sys.argv[1])
big = "X-Big: " + "a" * 6000 + "\r\n"
cases = [
    ("text", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("openmetrics", "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text\r\n\r\n"),
    ("healthz", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("head", "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("400", "BOGUS\r\n\r\n"),
    ("404", "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("404-head", "HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("405", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
    ("431", "GET /metrics HTTP/1.1\r\nHost: x\r\n" + big + "\r\n"),
]
for name, req in cases:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(req.encode())
    raw = b""
    while True:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            raw += b"<RESET>"
            break
        if not chunk:
            break
        raw += chunk
    s.close()
    head, sep, body = raw.partition(b"\r\n\r\n")
    bare_lf = b"\n" in head.replace(b"\r\n", b"")
    class Sock:
        def makefile(self, *a, **k):
            import io
            return io.BytesIO(raw)
    r = http.client.HTTPResponse(Sock(), method="HEAD" if name.startswith("head") or name == "404-head" else "GET")
    try:
        r.begin()
        got = r.read()
        print(name, r.status, repr(r.reason), repr(r.getheader("Content-Type")),
              r.getheader("Content-Length"), r.getheader("Connection"), repr(r.getheader("Allow")),
              len(got), repr(got[:20]), "bare_lf" if bare_lf else "crlf",
              "sep" if sep else "nosep", len(r.getheaders()))
    except Exception as e:
        print(name, "unparsable", type(e).__name__, repr(raw[:60]))
PY
cat answers.txt >&2
ans() { grep "^$1 " answers.txt; }
TEXT="'text/plain; version=0.0.4; charset=utf-8'"
OM="'application/openmetrics-text; version=1.0.0; charset=utf-8'"
PLAIN="'text/plain; charset=utf-8'"
expect_match "200 text format" "^text 200 'OK' $TEXT ([0-9]+) close None \\1 b'# HELP flinch_build_' crlf sep 3$" "$(ans text)"
expect_match "200 OpenMetrics" "^openmetrics 200 'OK' $OM ([0-9]+) close None \\1 b'# HELP flinch_build ' crlf sep 3$" "$(ans openmetrics)"
expect_eq "200 /healthz" "$(ans healthz)" "healthz 200 'OK' $PLAIN 3 close None 3 b'ok\\n' crlf sep 3"
expect_match "HEAD /metrics: headers, no body" "^head 200 'OK' $TEXT [1-9][0-9]* close None 0 b'' crlf sep 3$" "$(ans head)"
expect_eq "400" "$(ans 400)" "400 400 'Bad Request' $PLAIN 12 close None 12 b'Bad Request\\n' crlf sep 3"
expect_eq "404" "$(ans 404)" "404 404 'Not Found' $PLAIN 10 close None 10 b'Not Found\\n' crlf sep 3"
expect_eq "404 to HEAD: no body" "$(ans 404-head)" "404-head 404 'Not Found' $PLAIN 10 close None 0 b'' crlf sep 3"
expect_eq "405 with Allow" "$(ans 405)" "405 405 'Method Not Allowed' $PLAIN 19 close 'GET, HEAD' 19 b'Method Not Allowed\\n' crlf sep 4"
expect_eq "431 (read whole although the request was not)" "$(ans 431)" \
  "431 431 'Request Header Fields Too Large' $PLAIN 32 close None 32 b'Request Header Field' crlf sep 3"

# curl, when installed: the same status, type and length.
if command -v curl >/dev/null 2>&1; then
  curl1() { # NAME ARGS...: "status type length bytes"
    n=$1; shift
    curl -s -m 5 -D "$n.hdr" -o "$n.body" -w '%{http_code}' "$@" >"$n.code"
    printf '%s %s %s %s' "$(cat "$n.code")" \
      "$(sed -n 's/^Content-Type: \(.*\)\r$/\1/p' "$n.hdr")" \
      "$(sed -n 's/^Content-Length: \(.*\)\r$/\1/p' "$n.hdr")" "$(wc -c <"$n.body")"
  }
  u="http://127.0.0.1:$port"
  got=$(curl1 c200 "$u/metrics")
  expect_match "curl: 200 text format" "^200 text/plain; version=0.0.4; charset=utf-8 ([0-9]+) \\1$" "$got"
  got=$(curl1 c200om -H 'Accept: application/openmetrics-text' "$u/metrics")
  expect_match "curl: 200 OpenMetrics" "^200 application/openmetrics-text; version=1.0.0; charset=utf-8 ([0-9]+) \\1$" "$got"
  expect_eq "curl: 404" "$(curl1 c404 "$u/nope")" "404 text/plain; charset=utf-8 10 10"
  expect_eq "curl: 404 body" "$(cat c404.body)" "Not Found"
  expect_eq "curl: 405" "$(curl1 c405 -d x "$u/metrics")" "405 text/plain; charset=utf-8 19 19"
  expect_eq "curl: 405 Allow" "$(sed -n 's/^Allow: \(.*\)\r$/\1/p' c405.hdr)" "GET, HEAD"
  big=$(head -c 6000 /dev/zero | tr '\0' a)
  expect_eq "curl: 431" "$(curl1 c431 -H "X-Big: $big" "$u/metrics")" "431 text/plain; charset=utf-8 32 32"
  expect_eq "curl: every header line ends in CRLF" "$(cat c*.hdr | grep -vc $'\r$')" 0
else
  skip "curl checks" "curl not installed"
fi

kill -INT $rec
wait $rec
expect_eq "recorder exits 0" "$?" 0
done_testing
