# tests/e2e/sensors_real.sh — bench/sensors_real.sh measures a real GPU;
# on a host without one it must say so clearly and run nothing (exit 2).
# nvidia-smi is shadowed by one that lists no GPU, so the check holds on a
# GPU host too.
. "$ROOT/tests/lib.sh"
mkdir -p bin
printf '#!/bin/sh\nexit 9\n' >bin/nvidia-smi
chmod +x bin/nvidia-smi
out=$(PATH="$PWD/bin:$PATH" sh "$ROOT/bench/sensors_real.sh" "$BUILD" 2>&1)
expect_eq "no GPU: exit 2" "$?" 2
expect_match "no GPU: says why" "^sensors_real: nvidia-smi lists no GPU$" "$out"
expect_match "no GPU: says nothing was run, and what it needs" \
  "needs an NVIDIA GPU with its driver; nothing was run" "$out"
done_testing
