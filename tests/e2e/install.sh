#!/bin/bash
# install.sh — issue 9, item 22: `make install` with PREFIX and DESTDIR puts
# the binary, the C header and the NVTX bridge where they belong, the
# installed flinch runs (and finds the bridge for --nvtx), the installed
# header compiles, and `make uninstall` takes them away again.
. "$ROOT/tests/lib.sh"
if ! command -v make >/dev/null 2>&1; then skip "make install" "no make"; done_testing; fi
stage="$T/stage"; prefix=/opt/flinch-test
# -o: never rebuild here (this test may run against a sanitized build).
mk() { make --no-print-directory -C "$ROOT" BUILD="$BUILD" DESTDIR="$stage" PREFIX="$prefix" \
         -o "$BUILD/flinch" -o "$BUILD/libflinch_nvtx.so" -o "$BUILD/libflinch_cuda.so" "$@"; }
mk install >make.out 2>&1
expect_eq "make install: exit 0" "$?" 0
p="$stage$prefix"
expect_eq "the binary, 0755" "$(stat -c %a "$p/bin/flinch" 2>&1)" 755
expect_eq "the C header, 0644" "$(stat -c %a "$p/include/flinch_mark.h" 2>&1)" 644
expect_eq "the NVTX bridge, 0755" "$(stat -c %a "$p/lib/flinch/libflinch_nvtx.so" 2>&1)" 755
expect_eq "the CUDA injection library, 0755" "$(stat -c %a "$p/lib/flinch/libflinch_cuda.so" 2>&1)" 755
if command -v python3 >/dev/null 2>&1; then
  expect_eq "the Python helper, 0644, in PREFIX's site directory" \
    "$(find "$p" -name flinch.py -perm 0644 | wc -l)" 1
  py=$(find "$p" -name flinch.py)
  expect_match "PREFIX/lib/python3.X/site-packages for a PREFIX not on python3's path" \
    "^$p/lib/python3\.[0-9]+/site-packages/flinch\.py\$" "$py"
  got=$(cd / && PYTHONPATH="$(dirname "$py")" python3 -c 'import flinch; print(flinch.__file__)' 2>&1)
  expect_eq "the installed module imports" "$got" "$py"
fi
# A PREFIX the interpreter already looks in (Debian's python3 and /usr/local):
# the module goes where that interpreter imports it from, with no PYTHONPATH.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import sys; sys.exit(not any(d.startswith("/usr/local/lib/") for d in sys.path))'; then
  make --no-print-directory -C "$ROOT" BUILD="$BUILD" DESTDIR="$T/stage2" PREFIX=/usr/local PYTHON=/usr/bin/python3 \
    -o "$BUILD/flinch" -o "$BUILD/libflinch_nvtx.so" -o "$BUILD/libflinch_cuda.so" install >make2.out 2>&1
  py=$(find "$T/stage2" -name flinch.py)
  dir=$(dirname "${py#"$T/stage2"}")
  check "PREFIX=/usr/local with /usr/bin/python3: in a directory on its sys.path (${dir})" \
    /usr/bin/python3 -c "import sys; sys.exit('$dir' not in sys.path)"
  expect_eq "no 'not on sys.path' note then" "$(grep -c 'not on' make2.out)" 0
else
  skip "make install into /usr/bin/python3's /usr/local directory" "no /usr/bin/python3 looking under /usr/local"
fi
check "installed binary is the built one" cmp -s "$p/bin/flinch" "$BUILD/flinch"
expect_eq "the manual pages, 0644, by section" \
  "$(cd "$p/share/man" 2>/dev/null && find . -type f -perm 0644 | sort | tr '\n' ' ')" \
  "./man1/flinch-analyze.1 ./man1/flinch-export.1 ./man1/flinch-mark.1 ./man1/flinch-plot.1 ./man1/flinch-record.1 ./man1/flinch.1 ./man5/flinch-trace.5 ./man7/flinch-methods.7 "
check "the bash completion, 0644" test "$(stat -c %a "$p/share/bash-completion/completions/flinch" 2>&1)" = 644
if command -v man >/dev/null 2>&1; then
  # the installed page, found beside the installed binary: its first
  # line names it, and a changed installed copy is what is shown
  sed -i 's/^flinch\\-analyze \\- .*/flinch\\-analyze \\- INSTALLED COPY/' "$p/share/man/man1/flinch-analyze.1"
  expect_match "installed flinch help analyze shows the installed page" 'INSTALLED COPY' \
    "$(MANPAGER=cat "$p/bin/flinch" help analyze 2>&1)"
else
  skip "installed flinch help analyze" "no man"
fi
check "installed flinch runs (flinch record --help)" sh -c "'$p/bin/flinch' record --help | grep -q -- --out"
"$p/bin/flinch" record --out n.csv --nvml-lib "$SIM" --no-rapl --seconds 0.05 --nvtx -- true 2>err.txt
expect_eq "installed flinch finds the NVTX bridge in ../lib/flinch (--nvtx, exit 0)" "$?:$(cat err.txt)" "0:"
"$p/bin/flinch" record --out k.csv --nvml-lib "$SIM" --no-rapl --seconds 0.05 --cuda -- sh -c 'echo "$CUDA_INJECTION64_PATH"' >cuda.out 2>err.txt
expect_eq "installed flinch hands CMD ../lib/flinch/libflinch_cuda.so (--cuda)" "$?:$(cat err.txt):$(cat cuda.out)" \
  "0::$p/lib/flinch/libflinch_cuda.so"
printf '#include <flinch_mark.h>\nint main(void) { return flinch_mark_to("/nonexistent", "x", 1) == -1 ? 0 : 1; }\n' > c.c
if cc -std=c11 -Wall -Werror -I"$p/include" c.c -o c -pthread 2>cc.err; then
  check "installed header compiles and links" ./c
else
  notok "installed header compiles"; cat cc.err >&2
fi
expect_eq "the Makefile's header lists make install once" \
  "$(sed -n '1,/^$/p' "$ROOT/Makefile" | grep -c '^#   make install ')" 1
mk uninstall >make.out 2>&1
expect_eq "make uninstall: exit 0" "$?" 0
expect_eq "make uninstall: nothing left" "$(find "$p" -type f | wc -l)" 0
done_testing
