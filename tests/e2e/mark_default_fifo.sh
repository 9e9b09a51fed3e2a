# mark_default_fifo.sh — the default marks path, /tmp/flinch_marks, lies in
# a directory every user may write to (issue 26, item 2): `flinch mark`
# and the NVTX bridge refuse a symbolic link there (never followed) and a
# FIFO owned by neither the caller nor root; a path named explicitly
# (--fifo, FLINCH_MARKS) is followed as given.
#
# The checks need the real default path, so they run as root in a mount
# namespace of their own with a private tmpfs on /tmp (unshare -m): the
# host's /tmp, and any /tmp/flinch_marks a test running at the same time
# uses, are never touched. Scratch files are relative to the test's
# directory ($T, hidden under the tmpfs but still the working directory).
# Without root or unshare the test is skipped.
. "$ROOT/tests/lib.sh"

OTHER=65534                                     # nobody
if [ -z "${IN_PRIVATE_TMP:-}" ]; then
  for p in "$FLINCH" "$BUILD" "$HELPERS"; do
    case "$(realpath -m "$p")" in /tmp/*)        # hidden under the private /tmp
      skip "default marks path" "the build is under /tmp, which the test replaces"; done_testing ;;
    esac
  done
  if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1 ||
     ! unshare -m sh -c 'mount -t tmpfs none /tmp' 2>/dev/null; then
    skip "default marks path" "needs root and unshare -m (a private /tmp)"
    done_testing
  fi
  exec unshare -m env IN_PRIVATE_TMP=1 bash "$0"
fi
mount -t tmpfs -o mode=1777 none /tmp || { notok "private tmpfs on /tmp"; done_testing; }
F=/tmp/flinch_marks

# got: the labels that arrived on descriptor 7 (the FIFO's reader) since the last call
got() { while IFS= read -r -t 0.3 line <&7; do [ -n "$line" ] && printf '%s ' "${line%%	*}"; done; }
mark() { "$FLINCH" mark "$@" 2>&1; echo "exit $?"; }

unset FLINCH_MARKS
expect_eq "no FIFO at the default path: exit 1" "$(mark none | tail -n 1)" "exit 1"

# --- a FIFO of the caller (root): written ---
mkfifo -m 0600 $F
exec 7<>$F
expect_eq "own FIFO at the default path: written" "$(mark mine)|$(got)" "exit 0|mine "

# --- another user's FIFO: refused at the default path, written when named ---
chmod 0666 $F; chown $OTHER $F
expect_eq "another user's FIFO at the default path: refused, exit 2, one line, nothing written" \
  "$(mark theirs)|$(got)" \
  "flinch mark: $F is owned by uid $OTHER, neither you nor root; refused at the default path (use --fifo PATH or FLINCH_MARKS to name the FIFO)
exit 2|"
expect_eq "another user's FIFO named by --fifo: written" "$(mark named --fifo $F)|$(got)" "exit 0|named "
expect_eq "another user's FIFO named by FLINCH_MARKS: written" \
  "$(FLINCH_MARKS=$F mark env_named)|$(got)" "exit 0|env_named "
if command -v setpriv >/dev/null 2>&1; then
  as_other() { setpriv --reuid=$OTHER --regid=$OTHER --clear-groups "$@"; }
  expect_eq "the caller's own FIFO (uid $OTHER): written" "$(as_other "$FLINCH" mark by_owner 2>&1; echo "exit $?")|$(got)" \
    "exit 0|by_owner "
  chown 0 $F
  expect_eq "root's FIFO, caller uid $OTHER: written" "$(as_other "$FLINCH" mark to_root 2>&1; echo "exit $?")|$(got)" \
    "exit 0|to_root "
else
  skip "the caller's own FIFO as another uid" "no setpriv"
fi
exec 7>&-

# --- a symbolic link at the default path, to another user's 0666 FIFO ---
rm -f $F
mkfifo -m 0666 /tmp/planted.fifo; chown $OTHER /tmp/planted.fifo
ln -s /tmp/planted.fifo $F
exec 7<>/tmp/planted.fifo
expect_eq "a symbolic link at the default path: refused, exit 2, one line, nothing written" \
  "$(mark planted)|$(got)" \
  "flinch mark: $F is a symbolic link; not followed at the default path (use --fifo PATH or FLINCH_MARKS to name the FIFO)
exit 2|"
chown 0 /tmp/planted.fifo
expect_eq "a symbolic link to root's own FIFO: still refused" "$(mark planted2 | tail -n 1)|$(got)" "exit 2|"
expect_eq "a symbolic link named by --fifo: followed (the user's choice)" \
  "$(mark followed --fifo $F)|$(got)" "exit 0|followed "
expect_eq "a symbolic link named by FLINCH_MARKS: followed" \
  "$(FLINCH_MARKS=$F mark env_followed)|$(got)" "exit 0|env_followed "

# --- the NVTX bridge (no FLINCH_MARKS: the default path): the same rules, silently ---
nvtx() { NVTX_INJECTION64_PATH="$BUILD/libflinch_nvtx.so" "$HELPERS/nvtx_host" flood 3 >/dev/null 2>&1; echo "exit $?"; }
expect_eq "NVTX bridge, a link at the default path: the app runs on (exit 0), nothing written" \
  "$(nvtx)|$(got)" "exit 0|"
exec 7>&-
rm -f $F; mkfifo -m 0666 $F; chown $OTHER $F
exec 7<>$F
expect_eq "NVTX bridge, another user's FIFO at the default path: exit 0, nothing written" \
  "$(nvtx)|$(got)" "exit 0|"
chown 0 $F
expect_eq "NVTX bridge, root's FIFO at the default path: written" "$(nvtx)|$(got)" \
  "exit 0|flood flood flood flood flood flood "
exec 7>&-

done_testing
