# nvtx.sh — the NVTX bridge (build/libflinch_nvtx.so) under `flinch record
# --nvtx -- CMD`: applications built against the real nvtx3 headers (C and
# C++, threads, nested push/pop, start/end across threads, domains,
# registered strings, a second library with its own NVTX copy), and our
# own minimal host (tests/helpers/nvtx_host.c), which runs everywhere;
# filters, the rate cap, no recorder, a full pipe, fork, a taken
# NVTX_INJECTION64_PATH.
. "$ROOT/tests/lib.sh"

rec() {  # rec OUT.csv [record options] -- CMD...
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out "$out" --interval-ms 10 \
    --nvml-lib "$SIM" --no-rapl "$@"
}
marks() { awk -F, '$3 == "MARK" && $4 != "\"begin\"" && $4 != "\"end\"" { gsub(/"/, "", $4); print $4 "|" $24 }' "$1"; }
labels() { awk -F, '$3 == "MARK" && $4 != "\"begin\"" && $4 != "\"end\"" { gsub(/"/, "", $4); print $4 }' "$1" | sort | uniq -c | awk '{ print $2 "x" $1 }' | tr '\n' ' '; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# windows FILE --range NAME...: "t_start_ns t_end_ns duration_s" per window
windows() { f=$1; shift; "$FLINCH" analyze --csv "$f" --format csv "$@" | awk -F, 'NR > 1 { print $6, $7, $8 }'; }
dropped() {  # the sum of the marks_dropped counts for one reason
  awk -F, -v r="$2" '$3 == "EVENT" { gsub(/"/, "", $4) }
    $3 == "EVENT" && $4 ~ "^marks_dropped count=" && $4 ~ ("reason=" r "$") {
    split($4, a, /[ =]/); s += a[3] } END { print s + 0 }' "$1"
}

# --- our own host: init twice, every slot, pairing, fork ---
out=$(rec host.csv --nvtx -- "$HELPERS/nvtx_host" 2>err.txt)
expect_eq "host: exit 0, no warnings" "$?:$(cat err.txt)" "0:"
expect_eq "host: two NVTX copies initialised, 25 slots each" "$(echo "$out" | head -n 1)" \
  "init twice: 25 and 25 slots filled"
expect_eq "host: push/pop levels as NVTX defines them" "$(echo "$out" | sed -n 2p)" \
  "push 0 1 pop 1 0, pop on empty -1"
expect_eq "host: one domain per name" "$(echo "$out" | sed -n 3p)" "domain created twice is one: yes"
pid=$(marks host.csv | sed -n 's/^host_outer|start=\([0-9]*\)\..*/\1/p')
tid=$pid
expect_eq "host: marks, ids PID.N, thread, sanitised domain" "$(marks host.csv | tr '\n' ' ')" \
  "host_mark|tid=$tid host_outer|start=$pid.1 tid=$tid host_inner|start=$pid.2 tid=$tid host_inner|end=$pid.2 tid=$tid host_outer|end=$pid.1 tid=$tid host_request|start=$pid.3 tid=$tid host_request|end=$pid.3 tid=$tid host_registered|start=$pid.4 tid=$tid domain=host_dom host_registered|end=$pid.4 tid=$tid domain=host_dom "
w=$(windows host.csv --range host_inner)
check "host: host_inner window >= its 20 ms sleep" ge "$(echo "$w" | cut -d' ' -f3)" 0.020
rec fork.csv --nvtx -- "$HELPERS/nvtx_host" fork >out.txt 2>err.txt
expect_eq "fork: both processes exit 0" "$?:$(sed 's/child [0-9]*/child/' out.txt | tail -n 1)" "0:child exited 0"
child=$(sed -n 's/^child \([0-9]*\) .*/\1/p' out.txt)
# in stamp order: two processes' writer threads deliver their batches in either order
by_stamp() { awk -F, '$3 == "MARK" && $4 != "\"begin\"" && $4 != "\"end\"" { gsub(/"/, "", $4); print $1, $4 "|" $24 }' "$1" | sort -n | cut -d' ' -f2-; }
expect_eq "fork: the child's range has the child's id; the parent's range ends once" \
  "$(by_stamp fork.csv | sed 's/ tid=[0-9]*//' | tr '\n' ' ')" \
  "parent_range|start=$(marks fork.csv | sed -n 's/^parent_range|start=\([0-9]*\)\..*/\1/p').1 child_range|start=$child.2 child_range|end=$child.2 parent_range|end=$(marks fork.csv | sed -n 's/^parent_range|start=\([0-9]*\)\..*/\1/p').1 "

# --- never hurts the application ---
t0=$("$HELPERS/simtool" now)
FLINCH_MARKS="$T/nobody" NVTX_INJECTION64_PATH="$BUILD/libflinch_nvtx.so" "$HELPERS/nvtx_host" flood 20000 >out.txt 2>&1
expect_eq "no recorder: the application runs on, exit 0" "$?:$(grep -c 'pairs in' out.txt)" "0:1"
mkfifo full.fifo
sleep 5 <full.fifo &
holder=$!
FLINCH_MARKS="$T/full.fifo" NVTX_INJECTION64_PATH="$BUILD/libflinch_nvtx.so" "$HELPERS/nvtx_host" flood 50000 >out.txt 2>&1
st=$?
t1=$("$HELPERS/simtool" now)
kill $holder 2>/dev/null; wait $holder 2>/dev/null
expect_eq "full pipe (a reader that never reads): exit 0" "$st:$(grep -c 'pairs in' out.txt)" "0:1"
check "no recorder and a full pipe: 70000 pairs in under 4 s (no blocking)" test $((t1 - t0)) -lt 4000000000

# --- the environment ---
NVTX_INJECTION64_PATH=/opt/other/libtool.so rec taken.csv --nvtx -- true 2>err.txt
expect_eq "NVTX_INJECTION64_PATH already set: refused (exit 2)" "$?" 2
expect_eq "NVTX_INJECTION64_PATH already set: the message" "$(cat err.txt)" \
  "flinch record: NVTX_INJECTION64_PATH is already set (/opt/other/libtool.so): another tool takes NVTX there; --nvtx-replace hands NVTX to flinch instead"
check "refused before any trace is written" test ! -e taken.csv
NVTX_INJECTION64_PATH=/opt/other/libtool.so rec repl.csv --nvtx --nvtx-replace -- sh -c 'echo "$NVTX_INJECTION64_PATH|$FLINCH_NVTX_FILTER|${FLINCH_MARKS:+set}"' >out.txt 2>&1
expect_eq "--nvtx-replace: CMD gets the bridge, the filter and FLINCH_MARKS" "$(cat out.txt)" \
  "$(cd "$BUILD" && pwd -P)/libflinch_nvtx.so||set"
expect_status "--nvtx without a command" 2 "$FLINCH" record --out x.csv --nvtx 2>/dev/null
rec bad.csv --nvtx='name~(' -- true 2>err.txt
expect_eq "bad filter: exit 2" "$?" 2
expect_match "bad filter: names the term" "^flinch record: --nvtx=name~\\(: term 1 'name~\\(': bad regex: " "$(cat err.txt)"
rec bad.csv --nvtx='rate=0' -- true 2>err.txt
expect_eq "bad rate" "$(cat err.txt)" "flinch record: --nvtx=rate=0: term 1 'rate=0': rate must be 1..999999999 per second"
rec bad.csv --nvtx='colour=red' -- true 2>err.txt
expect_match "unknown term" "term 1 'colour=red': expected name=" "$(cat err.txt)"

# --- the real NVTX headers ---
inc=$(nvtx3_include)
if [ -z "$inc" ]; then
  echo "# nvtx3 headers: none found (CUDA_HOME, /usr/local/cuda*, /opt/cuda, /usr)"
  for n in "C app" "C++ app" "filters" "rate cap"; do skip "nvtx3 $n" "no nvtx3 headers"; done
  done_testing
fi
echo "# nvtx3 headers: $inc/nvtx3 (NVTX_VERSION $(sed -n 's/^#define NVTX_VERSION \([0-9]*\).*/\1/p' "$inc/nvtx3/nvToolsExt.h" | head -n 1))"
cc -std=c11 -Wall -Wextra -Werror -I"$inc" -fPIC -shared "$ROOT/tests/nvtx/second.c" -o libsecond.so -ldl &&
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$inc" "$ROOT/tests/nvtx/app.c" -o app \
     -L. -lsecond -Wl,-rpath,"$T" -ldl -lpthread
expect_eq "C app builds against nvtx3" "$?" 0

out=$(rec app.csv --nvtx -- ./app 2>err.txt)
expect_eq "C app: exit 0, levels, no warnings" "$?|$out|$(cat err.txt)" "0|levels 0 1 1 0|"
long=$(head -c 253 /dev/zero | tr '\0' x)...
expect_eq "C app: every mark, by label and count" "$(labels app.csv)" \
  "$(printf '%s\n' app_end app_start decode decode dmark lib_range lib_range outer outer outer outer \
     prefill prefill request request request request work work work work work work work work \
     wide_mark_é "$long" "$long" | sort | uniq -c | awk '{ print $2 "x" $1 }' | tr '\n' ' ')"
expect_eq "C app: a 400-byte name cut to 253 bytes + '...'" "$(marks app.csv | grep -c "^$long|start=")" 1
expect_eq "C app: domain and registered string" "$(marks app.csv | grep '^decode|' | sed 's/=[0-9.]* tid=[0-9]*//' | tr '\n' ' ')" \
  "decode|start domain=srv decode|end domain=srv "
w=$(windows app.csv --range outer)
set -- $w
check "C app: nested 'outer' ranges pair inside out (outer >= 40 ms, inner >= 20 ms, inner inside)" \
  test "$#" -eq 6 -a "$1" -lt "$4" -a "$5" -lt "$2"
check "C app: outer/inner durations" awk "BEGIN { exit !($3 >= 0.040 && $6 >= 0.020 && $6 < $3) }"
w=$(windows app.csv --range request)
set -- $w
check "C app: requests started on main, ended crosswise on another thread, paired by id" \
  test "$#" -eq 6 -a "$1" -lt "$4" -a "$2" -gt "$5"
check "C app: request durations >= 70 and 30 ms" awk "BEGIN { exit !($3 >= 0.070 && $6 >= 0.030) }"
expect_eq "C app: request ends come from another thread" \
  "$(marks app.csv | awk -F'|' '$1 == "request" { sub(/.*tid=/, "", $2); print $2 }' | uniq | wc -l | tr -d ' ')" 2
expect_eq "C app: four 'work' windows from four threads" \
  "$(windows app.csv --range work | wc -l | tr -d ' '):$(marks app.csv | awk -F'|' '$1 == "work" { sub(/.*tid=/, "", $2); print $2 }' | sort -u | wc -l | tr -d ' ')" "4:4"
d=$(windows app.csv --range work | awk '{ print $3 }' | sort -n | tr '\n' ' ')
check "C app: 'work' durations >= 20, 30, 40, 50 ms ($d)" sh -c "echo $d | awk '{ exit !(\$1 >= 0.020 && \$2 >= 0.030 && \$3 >= 0.040 && \$4 >= 0.050) }'"
expect_eq "C app: the second library's own NVTX copy reached the bridge" "$(windows app.csv --range lib_range | wc -l | tr -d ' ')" 1
expect_eq "C app: --domain srv" "$(windows app.csv --range prefill --domain srv | wc -l | tr -d ' ')" 1
expect_eq "C app: no unmatched ranges" "$("$FLINCH" analyze --csv app.csv --range work | grep -c 'unmatched_starts=0 unmatched_ends=0')" 1
if command -v python3 >/dev/null 2>&1; then
  out=$(python3 "$ROOT/tests/fixtures/analyze_trace.py" --csv app.csv --start app_start --end app_end 2>&1 | head -n 1)
  expect_match "C app: the original analyze_trace.py reads the trace" "^duration_s=0\\.[0-9]{6}$" "$out"
fi

# filters and the rate cap
rec f.csv --nvtx='name!=work,domain!=srv' -- ./app >/dev/null 2>&1
expect_eq "filter name!=work,domain!=srv: those marks gone" "$(labels f.csv | tr ' ' '\n' | grep -c '^work\|^decode\|^prefill\|^dmark')" 0
expect_eq "filter: the rest kept" "$(windows f.csv --range outer | wc -l | tr -d ' ')" 2
expect_eq "filter: 7 dropped calls counted in EVENT rows (4 work, decode, prefill, dmark)" "$(dropped f.csv filter)" 7
rec g.csv --nvtx='name=req*,name~^lib_' -- ./app >/dev/null 2>&1
expect_eq "filter by include glob and regex" "$(labels g.csv)" "lib_rangex2 requestx4 "
rec r.csv --nvtx='rate=3' -- ./app >/dev/null 2>&1
kept=$(marks r.csv | grep -vc '|end=')
check "rate=3: at most 3 marks/starts per second kept ($kept; the app runs < 2 s)" test "$kept" -ge 3 -a "$kept" -le 6
expect_eq "rate=3: kept + dropped = all 16 marks and starts" "$((kept + $(dropped r.csv rate)))" 16
expect_eq "rate=3: every kept start has its end" \
  "$(marks r.csv | sed -n 's/.*start=\([0-9.]*\).*/\1/p' | sort | tr '\n' ' ')" \
  "$(marks r.csv | sed -n 's/.*end=\([0-9.]*\).*/\1/p' | sort | tr '\n' ' ')"

# C++
if command -v c++ >/dev/null 2>&1 && c++ -std=c++17 -Wall -Wextra -Werror -I"$inc" "$ROOT/tests/nvtx/app.cpp" -o appcpp -ldl -lpthread; then
  rec cpp.csv --nvtx -- ./appcpp >/dev/null 2>err.txt
  expect_eq "C++ app: exit 0" "$?:$(cat err.txt)" "0:"
  expect_eq "C++ app: every mark" "$(labels cpp.csv)" \
    "cpp_endx1 cpp_innerx2 cpp_outerx2 cpp_startx1 cpp_uniquex2 cpp_workx6 "
  expect_eq "C++ app: scoped_range_in<domain> with a registered string" \
    "$(marks cpp.csv | grep '^cpp_inner|start' | sed 's/start=[0-9.]* tid=[0-9]* //')" "cpp_inner|domain=srv_cpp"
  set -- $(windows cpp.csv --range cpp_unique)
  check "C++ app: unique_range moved to another thread, >= 25 ms" ge "$3" 0.025
  expect_eq "C++ app: unique_range ended on another thread" \
    "$(marks cpp.csv | awk -F'|' '$1 == "cpp_unique" { sub(/.*tid=/, "", $2); print $2 }' | uniq | wc -l | tr -d ' ')" 2
  expect_eq "C++ app: three cpp_work windows" "$(windows cpp.csv --range cpp_work | wc -l | tr -d ' ')" 3
else
  skip "nvtx3 C++ app" "no C++ compiler"
fi

done_testing
