# tests/e2e/mark.sh — `flinch mark`, the C header client and the recorder's
# MARK rows: no reader, bad paths and labels, 100 concurrent writers x 100
# marks none lost or torn, client-stamped marks at their stated times, marks
# from the wrapped command, and a busy vs a sleeping process in the
# proc_cpu_ns column.
. "$ROOT/tests/lib.sh"

MC="$HELPERS/markclient"
fifo="$T/marks.fifo"

# ---- without a recorder ---------------------------------------------------

mkfifo "$fifo"
start=$(date +%s%N)
err=$(timeout 5 "$FLINCH" mark hello --fifo "$fifo" 2>&1); rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "no reader: exit 1" "$rc" 1
expect_eq "no reader: message" "$err" "flinch mark: no recorder is listening on $fifo"
check "no reader: returns at once (${took_ms} ms)" [ "$took_ms" -lt 3000 ]

err=$(FLINCH_MARKS="$fifo" timeout 5 "$FLINCH" mark hello 2>&1); rc=$?
expect_eq "FLINCH_MARKS is the default FIFO" "$rc:$err" "1:flinch mark: no recorder is listening on $fifo"

err=$(timeout 5 "$FLINCH" mark hello --fifo "$T/missing" 2>&1); rc=$?
expect_eq "missing FIFO: exit 1" "$rc" 1
expect_eq "missing FIFO: message" "$err" \
  "flinch mark: $T/missing does not exist (is flinch record --marks-fifo $T/missing running?)"

printf 'keep\n' > "$T/plain"
err=$(timeout 5 "$FLINCH" mark hello --fifo "$T/plain" 2>&1); rc=$?
expect_eq "not a FIFO: exit 2 and message" "$rc:$err" "2:flinch mark: $T/plain is not a FIFO"
expect_eq "not a FIFO: file untouched" "$(cat "$T/plain")" "keep"

bad_label() { # name label want-message
  err=$(timeout 5 "$FLINCH" mark "$2" --fifo "$fifo" 2>&1); rc=$?
  expect_eq "bad label: $1" "$rc:$err" "2:flinch mark: $3"
}
bad_label "empty" "" "bad label: the label is empty"
bad_label "spaces only" "   " "bad label: the label is empty"
bad_label "tab" "$(printf 'a\tb')" "bad label: control character in label"
bad_label "newline" "$(printf 'a\nb')" "bad label: control character in label"
bad_label "escape" "$(printf 'a\033[2Jb')" "bad label: control character in label"
bad_label "257 bytes" "$(printf '%0257d' 0)" "bad label: label longer than 256 bytes"
err=$(timeout 5 "$FLINCH" mark x --at-ns 12x --fifo "$fifo" 2>&1); rc=$?
expect_eq "bad --at-ns" "$rc:$err" \
  "2:flinch mark: --at-ns '12x': timestamp after the tab is not a positive integer of ns"
err=$(timeout 5 "$FLINCH" mark x --at-ns 0 --fifo "$fifo" 2>&1); rc=$?
expect_eq "--at-ns 0 refused" "$rc" 2
err=$(timeout 5 "$FLINCH" mark 2>&1); rc=$?
expect_eq "no label: usage error" "$rc" 2
out=$("$FLINCH" mark --help); rc=$?
expect_eq "--help exits 0" "$rc" 0
for opt in --fifo --at-ns FLINCH_MARKS /tmp/flinch_marks; do
  expect_match "--help mentions $opt" "$opt" "$out"
done

# The header compiles as strict C99 (included first, no feature macros) and
# as C++, and its ENXIO reaches the caller.
cat > "$T/strict.c" <<'EOF'
#include "flinch_mark.h"
#include <stdio.h>
int main(void) {
    int rc = flinch_mark("from-c99");
    printf("%d %d\n", rc, errno == ENXIO);
    return 0;
}
EOF
if cc -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$ROOT/include" "$T/strict.c" \
      -o "$T/strict" -pthread 2>"$T/cc.err"; then
  ok "flinch_mark.h compiles as strict C99"
  expect_eq "C client: ENXIO without a reader" "$(FLINCH_MARKS="$fifo" "$T/strict")" "-1 1"
else
  notok "flinch_mark.h compiles as strict C99"; cat "$T/cc.err" >&2
fi
if command -v g++ >/dev/null 2>&1; then
  cat > "$T/client.cpp" <<'EOF'
#include <cstdio>
#include "flinch_mark.h"
int main() {
    int a = flinch_mark("from-c++");
    int b = flinch_mark_at("from-c++-at", 42LL);
    std::printf("%d %d\n", a, b);
    return 0;
}
EOF
  if g++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$ROOT/include" "$T/client.cpp" \
        -o "$T/client_cpp" -pthread 2>"$T/cxx.err"; then
    ok "flinch_mark.h compiles as C++11"
    expect_eq "C++ client: -1 without a reader" "$(FLINCH_MARKS="$fifo" "$T/client_cpp")" "-1 -1"
  else
    notok "flinch_mark.h compiles as C++11"; cat "$T/cxx.err" >&2
  fi
else
  skip "flinch_mark.h compiles as C++11" "no g++"
fi

# ---- with a recorder ------------------------------------------------------

if ! "$FLINCH" record --help >/dev/null 2>&1; then
  skip "marks through a recording" "flinch record not available yet"
  done_testing
fi

export FLINCH_SIM_SCENARIO="$SCENARIOS/compute.scn"
rm -f "$fifo"
export FLINCH_MARKS="$fifo"

# start_recorder OUT [extra options]: records in the background into OUT.
start_recorder() {
  out=$1; shift
  "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out "$out" --interval-ms 10 \
      --seconds 0 --marks-fifo "$fifo" "$@" 2>"$out.err" &
  rec_pid=$!
  "$MC" --wait-reader 5000
}
stop_recorder() {
  kill -INT "$rec_pid"; wait "$rec_pid"; rec_rc=$?
}
# mark_rows FILE REGEX: labels of MARK rows matching REGEX.
mark_rows() { awk -F, '$3 == "MARK"' "$1" | cut -d, -f4 | sed -e 's/^"//' -e 's/"$//' | grep -E -- "$2"; }
# wait_marks FILE REGEX N: waits (up to 10 s) until N such MARK rows exist.
wait_marks() {
  i=0
  while [ "$(mark_rows "$1" "$2" | wc -l)" -lt "$3" ] && [ $i -lt 200 ]; do
    sleep 0.05; i=$((i + 1))
  done
}

check "recorder starts and opens the FIFO" start_recorder "$T/conc.csv"
check "100 writers x 100 marks sent" "$MC" --writers 100 --count 100
wait_marks "$T/conc.csv" '^w[0-9]+-m[0-9]+$' 10000
stop_recorder
expect_eq "recorder exit status" "$rec_rc" 0
all=$(awk -F, '$3 == "MARK"' "$T/conc.csv" | cut -d, -f4 | grep -v -E '^"(begin|end)"$' | wc -l)
intact=$(mark_rows "$T/conc.csv" '^w([0-9]|[1-9][0-9])-m([0-9]|[1-9][0-9])$' | sort -u | wc -l)
expect_eq "10000 MARK rows, none extra" "$all" 10000
expect_eq "10000 distinct intact labels" "$intact" 10000
expect_eq "no marks rejected" "$(grep -c 'mark ignored' "$T/conc.csv.err")" 0
late=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "arrival_mono_ns") a = i; next }
               $3 == "MARK" && $4 ~ /^"w/ && ($a == "" || $a + 0 < $1 + 0) { n++ }
               END { print n + 0 }' "$T/conc.csv")
expect_eq "every client stamp <= its arrival" "$late" 0
# each writer's marks in its own order: stamps rise with m
order=$(awk -F, '$3 == "MARK" && $4 ~ /^"w/ { split($4, p, "-m"); print p[1], p[2], $1 }' \
        "$T/conc.csv" | sort -k1,1 -k2,2n |
        awk '$1 == w && $3 + 0 <= t + 0 { bad++ } { w = $1; t = $3 } END { print bad + 0 }')
expect_eq "each writer's stamps rise in order" "$order" 0

# Client-stamped and plain marks.
check "recorder restarts on the same FIFO" start_recorder "$T/stamp.csv"
printf 'bad-stamp\t12x\n\t77\n%0300d\nctl\001x\n\n' 0 > "$fifo"
before=$("$MC" --now)
"$FLINCH" mark "now-mark"; rc1=$?
after=$("$MC" --now)
# Stated stamps in the past, within a day of now (the recorder's range) and
# after boot whatever the uptime: fixed small stamps were more than a day
# old on a machine up for longer than that.
ago=1234567890; [ $((before / 2)) -lt $ago ] && ago=$((before / 2))
explicit_ns=$((before - ago)); header_at_ns=$((before - ago / 2))
"$FLINCH" mark "explicit" --at-ns $explicit_ns; rc2=$?
"$MC" --at $header_at_ns "header-at"; rc3=$?
"$MC" "header-now"; rc4=$?
printf 'plain-line\n' > "$fifo"
printf '  spaced  \r\n' > "$fifo"
expect_eq "marks written" "$rc1$rc2$rc3$rc4" 0000
wait_marks "$T/stamp.csv" '^(now-mark|explicit|header-at|header-now|plain-line|spaced)$' 6
stop_recorder
expect_eq "bad lines: one warning each" "$(grep 'mark ignored' "$T/stamp.csv.err" | sed 's/.*: //')" \
"timestamp after the tab is not a positive integer of ns; mark ignored
empty label before the tab; mark ignored
label longer than 256 bytes; mark ignored
control character in label; mark ignored"
expect_eq "bad lines: no rows" "$(mark_rows "$T/stamp.csv" 'bad-stamp|ctl|^77$|^0+$' | wc -l)" 0
row() { awk -F, -v l="\"$1\"" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "arrival_mono_ns") a = i; next }
                        $3 == "MARK" && $4 == l { print $1, $a }' "$T/stamp.csv"; }
set -- $(row now-mark)
check "flinch mark is stamped when it ran" test "${1:-0}" -ge "$before" -a "${1:-0}" -le "$after"
check "flinch mark: arrival >= stamp" [ "${2:-0}" -ge "${1:-1}" ]
expect_eq "--at-ns lands at its stated time" "$(row explicit | cut -d' ' -f1)" $explicit_ns
expect_eq "flinch_mark_at lands at its stated time" "$(row header-at | cut -d' ' -f1)" $header_at_ns
check "flinch_mark from the header appears" [ -n "$(row header-now)" ]
set -- $(row plain-line)
check "plain line is stamped at arrival" test -n "${1:-}" -a "${1:-}" = "${2:-}"
check "surrounding spaces and CR stripped" [ -n "$(row spaced)" ]

# Marks from the wrapped command: FLINCH_MARKS points at its FIFO.
if "$FLINCH" record --help 2>&1 | grep -q -- '-- CMD'; then
  (unset FLINCH_MARKS
   "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out "$T/wrap.csv" --interval-ms 10 \
       -- sh -c '"$0" wrapped-a && "$0" wrapped-b && exit 7' "$MC" 2>"$T/wrap.err")
  expect_eq "wrapped command's exit status" "$?" 7
  expect_eq "wrapped command's marks" "$(mark_rows "$T/wrap.csv" '^wrapped-' | tr '\n' ' ')" \
    "wrapped-a wrapped-b "
else
  skip "marks from the wrapped command" "record has no -- CMD yet"
fi

# The process behind the pause: a busy and a sleeping process, one recording each.
if "$FLINCH" record --help 2>&1 | grep -q -- '--pid'; then
  sh -c 'while :; do :; done' & busy=$!
  sleep 30 & sleeper=$!
  cpu_span() { # file: last - first proc_cpu_ns over SAMPLE rows
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "proc_cpu_ns") c = i; if ($i == "proc_state") s = i }; next }
             $3 == "SAMPLE" && $c != "" { if (first == "") first = $c; last = $c; st[$s] = 1 }
             END { states = ""; for (k in st) states = states k; print last - first, states }' "$1"
  }
  "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out "$T/busy.csv" --interval-ms 10 \
      --seconds 0.6 --pid "$busy" 2>/dev/null
  "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out "$T/sleep.csv" --interval-ms 10 \
      --seconds 0.6 --pid "$sleeper" 2>/dev/null
  set -- $(cpu_span "$T/busy.csv")
  check "busy process: > 150 ms CPU in 0.6 s (got ${1:-none} ns)" [ "${1:-0}" -gt 150000000 ]
  expect_eq "busy process state" "${2:-}" "R"
  set -- $(cpu_span "$T/sleep.csv")
  check "sleeping process: < 20 ms CPU in 0.6 s (got ${1:-none} ns)" \
    test -n "${1:-}" -a "${1:-1}" -lt 20000000
  expect_eq "sleeping process state" "${2:-}" "S"
  kill "$busy"
  # a process that exits mid-recording: noted as X, recording goes on
  "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out "$T/exit.csv" --interval-ms 10 \
      --seconds 1 --pid "$sleeper" 2>"$T/exit.err" &
  rec=$!
  sleep 0.4; kill "$sleeper"; wait "$rec"; rc=$?
  expect_eq "recording goes on after the process exits" "$rc" 0
  states=$(csv_col "$T/exit.csv" proc_state | grep -v '^$' | uniq | tr '\n' ' ')
  # S while asleep (R for a moment while it handles SIGTERM), then X for good
  expect_match "state goes S ... X" '^S ([RS] )*X $' "$states"
  rows=$(awk -F, '$3 == "SAMPLE"' "$T/exit.csv" | wc -l)
  check "samples continue to the end ($rows)" [ "$rows" -ge 80 ]
else
  skip "busy vs sleeping process" "record has no --pid yet"
fi

done_testing
