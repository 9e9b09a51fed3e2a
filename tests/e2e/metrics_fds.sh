# metrics_fds.sh — the metrics server out of file descriptors (issue 26
# item 10: accept() failing with EMFILE left the connection pending, the
# listener readable, and the server thread spinning at 1.5 CPU-s a second
# while scrapes timed out). The recorder runs under a descriptor limit two
# above what it holds once started; 12 clients connect (fewer than the
# listen backlog, so none waits for a SYN retry) and send nothing. Two
# are accepted (they wait for their request); the other 10 are closed
# at once (the spare descriptor, accept_reserve.h), the recorder's CPU use
# over the next second stays low, and once the clients are gone a scrape
# is answered.
. "$ROOT/tests/lib.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
if ! command -v python3 >/dev/null 2>&1; then
  skip "metrics out of descriptors" "python3 needed"; done_testing
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_err() { i=0; while ! grep -q -- "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; }
# descriptors numbered below 64: the limit counts numbers, and one inherited
# from the test's own parent may sit far above it
nfds() { ls "/proc/$1/fd" | awk '$1 < 64' | wc -l; }

# What a started recorder holds (stdio, trace, feed pipes, listener, ...).
port=$(free_port)
"$FLINCH" record --out base.csv --seconds 30 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --metrics "$port" -q 2>base.err &
rec=$!
wait_err base.err 'serving metrics'
sleep 0.2
base=$(nfds $rec)
kill -INT $rec; wait $rec

limit=$((base + 2))
port=$(free_port)
(ulimit -n "$limit" && exec "$FLINCH" record --out f.csv --seconds 30 --interval-ms 10 --nvml-lib "$SIM" \
  --no-rapl --metrics "$port" -q) 2>f.err &
rec=$!
wait_err f.err 'serving metrics'
sleep 0.2
expect_eq "the limited recorder holds what the first did (limit $limit)" "$(nfds $rec)" "$base"

python3 - "$port" "$rec" >fds.txt 2>py.err <<'PY'
import http.client, os, socket, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]
tck = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck
held = [socket.create_connection(("127.0.0.1", port), timeout=2) for _ in range(12)]
time.sleep(0.1)
c0, t0 = cpu(), time.time()
time.sleep(1.0)
c1, t1 = cpu(), time.time()
closed = 0
for s in held:
    s.settimeout(0.05)
    try:
        if s.recv(1) == b"":
            closed += 1
    except socket.timeout:
        pass
    except OSError:
        closed += 1
print("closed", closed)
print("cpu_pct", int(100 * (c1 - c0) / (t1 - t0)))
for s in held:
    s.close()
time.sleep(0.2)
h = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
h.request("GET", "/metrics")
r = h.getresponse()
body = r.read().decode()
print("scrape", r.status, "samples" if "\nflinch_samples_total " in body else "no-samples")
PY
cat fds.txt py.err >&2
expect_eq "10 of 12 clients closed at once (2 accepted)" "$(grep '^closed' fds.txt)" "closed 10"
cpu=$(sed -n 's/^cpu_pct //p' fds.txt)
check "recorder CPU while out of descriptors under 30 % of a core (got ${cpu:-?} %)" test "${cpu:-100}" -lt 30
expect_eq "a scrape once the clients are gone" "$(grep '^scrape' fds.txt)" "scrape 200 samples"
kill -INT $rec
wait $rec
expect_eq "recorder exits 0" "$?" 0
expect_eq "nothing on stderr but the serving line" "$(grep -vc 'serving metrics' f.err)" 0
done_testing
