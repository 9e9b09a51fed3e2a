#!/bin/bash
# soak_short.sh — the 12-second version of tests/soak.sh for `make check`
# (the hour-long one is `make soak`): 1 ms interval, marks at 1 kHz from 4
# writers; RSS flat, no lost marks, exact sample count. Under ASan
# (SANITIZED=1) it runs 10 s at a 2 ms interval: the instrumented recorder
# on a shared 2-core machine skips too many 1 ms ticks to say much.
if [ -n "${SANITIZED:-}" ]; then
  SOAK_INTERVAL_MS=2 exec bash "$ROOT/tests/soak.sh" 10
fi
exec bash "$ROOT/tests/soak.sh" 12
