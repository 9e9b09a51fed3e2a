#!/bin/bash
# record_guards.sh — issue 9, items 4, 5, 6 and 11: the marks FIFO is never
# chmod-ed through a path (a symlink swapped in after mkfifo is not
# followed), an existing FIFO wider than --marks-mode is refused, a
# narrower one is widened on the descriptor, a second recorder on the same
# FIFO or the same --out is refused at once (locks), a --out owned by
# another user or writable by others is refused unless --force-append, and
# `flinch mark` never waits on a recorder that stopped reading.
. "$ROOT/tests/lib.sh"

REC_BG_ERR=bg_err.txt

# --- item 4: mkfifo, then a symlink swapped in before the mode is set -------
# The shim plays the attacker who wins the race every time: right after
# mkfifo it replaces the new FIFO with a symlink to a victim file. A
# chmod(path) would follow it and make the victim 0666.
cat > swap.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int mkfifo(const char *path, mode_t mode)
{
    int (*real)(const char *, mode_t) = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkfifo");
    int rc = real(path, mode);
    const char *victim = getenv("SWAP_VICTIM");
    if (rc == 0 && victim && strstr(path, "swapme")) {
        unlink(path);
        if (symlink(victim, path) != 0)
            return -1;
    }
    return rc;
}
C
if cc -shared -fPIC -o swap.so swap.c -ldl 2>cc.err; then
  echo secret > victim.txt; chmod 0600 victim.txt
  SWAP_VICTIM="$T/victim.txt" LD_PRELOAD="$T/swap.so" ASAN_OPTIONS=verify_asan_link_order=0 \
    rec v.csv --marks-fifo "$T/swapme.fifo" --marks-mode 0666
  rc=$?
  expect_eq "FIFO swapped for a symlink after mkfifo: refused (exit 2)" "$rc" 2
  expect_eq "FIFO swapped for a symlink: the victim's mode is untouched" "$(stat -c %a victim.txt)" 600
  expect_eq "FIFO swapped for a symlink: the victim's content is untouched" "$(cat victim.txt)" secret
  check "FIFO swapped for a symlink: no trace left behind" test ! -e v.csv
else
  notok "cannot build the mkfifo shim"; cat cc.err >&2
fi

# --- item 5: an existing FIFO's mode; one recorder per FIFO ----------------
mkfifo wide.fifo; chmod 0666 wide.fifo
rec w.csv --marks-fifo wide.fifo
expect_eq "existing FIFO wider than --marks-mode: exit 2" "$?" 2
expect_eq "existing FIFO wider than --marks-mode: message" "$(cat err.txt)" \
  "flinch record: wide.fifo: existing FIFO has mode 0666, wider than the 0600 asked for (others may already hold it open); remove it, or pass --marks-mode 0666"
expect_eq "wide FIFO refused: mode left as it was" "$(stat -c %a wide.fifo)" 666
check "wide FIFO refused: no trace left behind" test ! -e w.csv
rec w.csv --marks-fifo wide.fifo --marks-mode 0666
expect_eq "the same FIFO with --marks-mode 0666 as asked: exit 0" "$?" 0

mkfifo narrow.fifo; chmod 0600 narrow.fifo
rec n.csv --marks-fifo narrow.fifo --marks-mode 0620
expect_eq "existing FIFO narrower than --marks-mode: accepted" "$?" 0
expect_eq "existing FIFO narrower than --marks-mode: widened to what was asked" \
  "$(stat -c %a narrow.fifo)" 620

rec_bg first.csv --seconds 0 --marks-fifo "$T/shared.fifo"
pid=$!
wait_for 250 grep -q 'begin' first.csv
start=$(date +%s%N)
rec second.csv --marks-fifo "$T/shared.fifo"
rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "second recorder on the same FIFO: exit 2" "$rc" 2
expect_eq "second recorder on the same FIFO: message" "$(cat err.txt)" \
  "flinch record: $T/shared.fifo: another flinch record is reading this FIFO; refusing to share it (pick another --marks-fifo)"
check "second recorder on the same FIFO: refused at once (${took_ms} ms)" [ "$took_ms" -lt 3000 ]
check "second recorder on the same FIFO: no trace left behind" test ! -e second.csv

# --- item 3 (lock): one recorder per --out ---------------------------------
rows_before=$(wc -l < first.csv)
rec first.csv
expect_eq "second recorder on the same --out: exit 2" "$?" 2
expect_eq "second recorder on the same --out: message" "$(cat err.txt)" \
  "flinch record: first.csv: another flinch record is writing it (locked); refusing to append (use another --out)"
check "second recorder on the same --out: wrote nothing" \
  [ "$(grep -c ',end,\|,"end",' first.csv)" -eq 0 ]

# --- item 11: flinch mark never waits -----------------------------------------
# The recorder is stopped (SIGSTOP) with the FIFO held open; fill the pipe.
kill -STOP $pid
if python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
try:
    while True: os.write(fd, b"filler\n")
except BlockingIOError: pass
' "$T/shared.fifo" 2>/dev/null; then
  start=$(date +%s%N)
  err=$(timeout 10 "$FLINCH" mark late --fifo "$T/shared.fifo" 2>&1); rc=$?
  took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  expect_eq "flinch mark, full pipe: exit 1" "$rc" 1
  expect_eq "flinch mark, full pipe: message" "$err" \
    "flinch mark: $T/shared.fifo is full: the recorder holds it but is not reading (stopped?); mark not written"
  check "flinch mark, full pipe: returns at once (${took_ms} ms)" [ "$took_ms" -lt 3000 ]
else
  skip "flinch mark on a full pipe" "no python3"
fi
kill -CONT $pid
kill -TERM $pid; wait $pid
expect_eq "the stopped recorder still ends cleanly" "$?" 0

# --- item 6: a planted --out --------------------------------------------------
: > mine_0666.csv; chmod 0666 mine_0666.csv
rec mine_0666.csv
expect_eq "--out writable by others: exit 2" "$?" 2
expect_eq "--out writable by others: message" "$(cat err.txt)" \
  "flinch record: mine_0666.csv: writable by others (mode 0666); refusing to append to it (anyone can add rows); use another --out, chmod o-w it, or --force-append"
expect_eq "--out writable by others: left empty" "$(stat -c %s mine_0666.csv)" 0
rec mine_0666.csv --force-append
expect_eq "--force-append: accepted" "$?" 0
check "--force-append: recorded" grep -q 'end' mine_0666.csv
: > group.csv; chmod 0664 group.csv
rec group.csv
expect_eq "--out group-writable (umask 002): accepted" "$?" 0
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  : > theirs.csv; chown nobody theirs.csv; chmod 0644 theirs.csv
  rec theirs.csv
  expect_eq "--out owned by another user: exit 2" "$?" 2
  expect_match "--out owned by another user: message" \
    "^flinch record: theirs.csv: owned by uid [0-9]+, not by us; refusing to append to it" "$(cat err.txt)"
  expect_eq "--out owned by another user: left empty" "$(stat -c %s theirs.csv)" 0
else
  skip "--out owned by another user refused" "needs root to chown"
fi

done_testing
