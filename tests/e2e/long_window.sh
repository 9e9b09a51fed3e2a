# long_window.sh — a window over a whole run (`--start begin --end end`)
# whose GPU computes in short bursts: its breakdown has hundreds of
# segments, more than the outline keeps (BREAKDOWN_MAX_SEGMENTS), and its
# totals must still be the run's. gen_trace's 200 windows of 500 ms cycle
# compute, waiting, host-cpu (67 compute, 66 host-cpu), the GPU idle
# between them: 33.5 s of compute and 33.0 s of host-cpu in 200 s. The
# outline used to absorb every burst into its first segment ("0% compute,
# then 100% waiting"), and a GPM check walked every sample for every
# segment (a 10,000 s window took 15 s; tests/unit/test_gpu_spin.c checks
# that it is linear now).
. "$ROOT/tests/lib.sh"
"$HELPERS/gen_trace" --rows 20000 --windows 200 --out run.csv

"$FLINCH" analyze --csv run.csv --start begin --end end >a.txt 2>err.txt
expect_eq "whole run: exit 0" "$?" 0
ms_of() { sed -n "s/^  time: .*$1 \\([0-9.]*\\) ms.*/\\1/p" a.txt; }
compute=$(ms_of compute) hostcpu=$(ms_of host-cpu)
# each window's two edges are known to +-10 ms
check "whole run: compute 67 x 500 ms (+-1.34 s): $compute" near "$compute" 33500 1340
check "whole run: host-cpu 66 x 500 ms (+-1.32 s): $hostcpu" near "$hostcpu" 33000 1320
expect_match "whole run: the segments are said to be an outline" '^  segments: an outline of [0-9]{3}: ' \
  "$(grep '^  segments:' a.txt)"
expect_match "whole run: the answer names all three classes, interleaved" \
  '^window 1 begin -> end  200\.000 s  waiting: 17% compute, 67% waiting, 16% host-cpu, interleaved  ' \
  "$(grep '^window 1 ' a.txt)"

# the same in the --windows table and JSON
"$FLINCH" analyze --csv run.csv --start begin --end end --format json >a.json 2>err.txt
expect_eq "whole run, json: exit 0" "$?" 0
expect_eq "whole run, json: compute_ms as the text says, and outline_of" \
  "$(python3 -c 'import json,sys; w=json.load(open("a.json"))["windows"][0]; b=w["breakdown"]; print("%.1f %d %d" % (b["compute_ms"], b["outline_of"], len(w["segments"])))' 2>&1)" \
  "$compute $(sed -n 's/^  segments: an outline of \([0-9]*\): .*/\1/p' a.txt) $(grep '^  segments:' a.txt | grep -o ', then ' | wc -l | awk '{ print $1 + 1 }')"
"$FLINCH" analyze --csv run.csv --start infer_start --end first_token --format json >b.json 2>err.txt
expect_eq "short windows, json: no outline_of" \
  "$(python3 -c 'import json; print(sum("outline_of" in w["breakdown"] for w in json.load(open("b.json"))["windows"] if w["breakdown"]))' 2>&1)" 0
