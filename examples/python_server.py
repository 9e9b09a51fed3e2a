"""examples/python_server.py - a toy inference server annotated only with
flinch.window, for `make demo-python` (tests/demo_python.sh).

Two requests overlap on two threads. Request 1 decodes while the simulated
GPU computes (scenario time 1000..1724 ms); request 2 arrives at 950 ms,
queues behind request 1's lock until 3000 ms, and "decodes" 3000..3724 ms
while the GPU idles - the pause nobody can explain without a trace.
Times are scenario times: FLINCH_SIM_EPOCH_NS (set by the demo) is time 0.

    flinch record --out trace.csv -- python3 examples/python_server.py
    flinch analyze --csv trace.csv --range decode --windows
"""
import os
import threading
import time

import flinch

EPOCH = int(os.environ.get("FLINCH_SIM_EPOCH_NS") or time.monotonic_ns())
gpu = threading.Lock()


def at(ms):
    """Sleeps until scenario time MS."""
    delay = (EPOCH + ms * 1000000 - time.monotonic_ns()) / 1e9
    if delay > 0:
        time.sleep(delay)


@flinch.window("request")
def handle(start_ms, decode_ms, end_ms):
    at(start_ms)
    with flinch.window("queue"):
        with gpu:
            at(decode_ms)
            with flinch.window("decode"):
                at(decode_ms + 724)
    at(end_ms)


t1 = threading.Thread(target=handle, args=(900, 1000, 1760))
t2 = threading.Thread(target=handle, args=(950, 3000, 3760))
t1.start()
time.sleep(0.01)
t2.start()
t1.join()
t2.join()
print("served 2 requests; marks delivered %(delivered)d, undelivered %(undelivered)d" % flinch.stats())
