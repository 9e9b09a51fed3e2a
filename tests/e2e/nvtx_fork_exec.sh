# nvtx_fork_exec.sh — a forked child's NVTX marks survive its exec or
# _exit (issue 26, item 16): neither runs the bridge's exit flush and exec
# kills every thread, so a forked child writes each mark itself, at once
# (nvtx/nvtx_writer.c). Built with the real nvtx3 headers
# (tests/nvtx/forkexec.c).
. "$ROOT/tests/lib.sh"

count_marks() { awk -F, -v l="\"$2\"" '$3 == "MARK" && $4 == l { n++ } END { print n + 0 }' "$1"; }
events() { awk -F, '$3 == "EVENT" && $4 ~ /marks_dropped/ { print $4 }' "$1"; }

inc=$(nvtx3_include)
if [ -z "$inc" ]; then
  skip "nvtx3 fork and exec" "no nvtx3 headers"
  done_testing
fi
echo "# nvtx3 headers: $inc/nvtx3"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$inc" "$ROOT/tests/nvtx/forkexec.c" -o forkexec -ldl
expect_eq "forkexec builds against nvtx3" "$?" 0

for how in exec _exit; do
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out $how.csv --interval-ms 10 \
    --nvml-lib "$SIM" --no-rapl --nvtx -- ./forkexec $how 10 >out.txt 2>err.txt
  expect_eq "child ends with $how: exit 0, the child exited 0, no warnings" \
    "$?:$(sed 's/child [0-9]*/child/' out.txt):$(cat err.txt)" "0:child exited 0:"
  expect_eq "child ends with $how: all 10 child marks and the parent's in the trace, none dropped" \
    "$(count_marks $how.csv child_mark):$(count_marks $how.csv parent_mark):$(events $how.csv | tr '\n' ' ')" "10:1:"
  child=$(sed -n 's/^child \([0-9]*\) .*/\1/p' out.txt)
  expect_eq "child ends with $how: the child's marks carry its thread id" \
    "$(awk -F, '$3 == "MARK" && $4 == "\"child_mark\"" { print $24 }' $how.csv | sort -u)" "tid=$child"
done

done_testing
