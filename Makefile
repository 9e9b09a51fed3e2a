# flinch — build, test, demo.
#
#   make            build build/flinch and the simulated NVML (build/sim/libnvidia-ml.so.1)
#   make demo       record a scripted 724 ms pause on the simulated GPU and analyze it
#   make demo-python  the same pause seen by a Python server annotated with flinch.window
#   make install    flinch, flinch_mark.h, the NVTX bridge (libflinch_nvtx.so), flinch.py, the
#                   manual pages and the bash completion under PREFIX (/usr/local), staged
#                   under DESTDIR; make uninstall removes them
#   make docs       regenerate every example output in README.md and man/* from the program,
#                   and docs/demo-plot.png (tests/docs/; tests/e2e/docs.sh checks them)
#   make check      build with -Werror, run every test; again under ASan+UBSan+LSan (gcc)
#                   and under clang's UBSan (float-cast-overflow); memcheck
#   make bench      run the benchmarks in bench/ (slow; prints tables)
#   make fuzz       run each libFuzzer target FUZZ_SECONDS (default 60; clang)
#   make soak       record SOAK_SECONDS (default 3600) at 1 ms with marks; checks RSS, marks, samples
#   make valgrind   memcheck over representative commands (needs valgrind)
#
# Sources are found by wildcard: src/STAGE/*.c and src/STAGE/CONCERN/*.c (util,
# trace, record/{gpu,proc,host,marks,metrics}, analyze/{energy,breakdown,windows,samples},
# report, builtin) make up libflinch.a, src/flinch.c is the entry point, sim/*.c
# is the simulated NVML, tests/unit/test_*.c are unit tests (one binary each,
# linked against libflinch.a). Every src/ folder is on the include path, so a
# header is included by its bare name wherever it lives.

BUILD   ?= build
CC      ?= cc
OPT     ?= -O2 -g
WERROR  ?=
SAN     ?=
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Wpedantic
SRC_DIRS := src nvtx cuda $(patsubst %/,%,$(sort $(dir $(wildcard src/*/*.c src/*/*.h src/*/*/*.c src/*/*/*.h))))
SRC_INC  := $(addprefix -I,$(SRC_DIRS))
ALL_CFLAGS = $(CSTD) $(WARN) $(WERROR) $(OPT) $(SAN) $(SRC_INC) -Iinclude -MMD -MP $(CFLAGS)
LDLIBS  := -ldl -lm -lpthread

# nvtx/nvtx_filter.c is in libflinch.a too: `flinch record --nvtx=FILTER`
# checks the filter with the bridge's own parser.
LIB_SRC  := $(wildcard src/*/*.c src/*/*/*.c) nvtx/nvtx_filter.c
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
SIM_SRC  := $(wildcard sim/*.c)
SIM_OBJ  := $(SIM_SRC:%.c=$(BUILD)/pic/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/%)

SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang's UBSan catches what gcc's misses (a double beyond long's range cast
# to long: float-cast-overflow); the clang build of `make check` carries it.
CLANG_SANFLAGS := -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all \
                  -fno-omit-frame-pointer

.PHONY: all tests demo demo-python docs check check-plain check-asan check-clang bench fuzz soak valgrind clean

NVTX_SRC := $(wildcard nvtx/*.c)
NVTX_OBJ := $(NVTX_SRC:%.c=$(BUILD)/pic-hidden/%.o)

# The CUDA injection library: cuda/*.c with the NVTX bridge's channel to
# the recorder (nvtx_emit.c, nvtx_writer.c), whose drop reports it labels "cuda".
CUDA_SRC := $(wildcard cuda/*.c) nvtx/nvtx_emit.c nvtx/nvtx_writer.c
CUDA_OBJ := $(CUDA_SRC:%.c=$(BUILD)/pic-cuda/%.o)
CUDA_SAN_OBJ := $(CUDA_SRC:%.c=$(BUILD)/pic-cuda-san/%.o)

# The real CUPTI headers, when installed: test_cupti_abi checks cupti_abi.h against them.
CUPTI_INC := $(firstword $(foreach d,$(CUDA_HOME)/extras/CUPTI/include $(CUDA_HOME)/include \
               /usr/local/cuda/extras/CUPTI/include /usr/local/cuda/include,\
               $(if $(wildcard $(d)/cupti_activity.h),$(d))))

all: $(BUILD)/flinch $(BUILD)/sim/libnvidia-ml.so.1 $(BUILD)/sim-legacy/libnvidia-ml.so.1 \
     $(BUILD)/libflinch_nvtx.so $(BUILD)/libflinch_cuda.so $(BUILD)/sim-cupti/libcupti.so.13

tests: all $(UNIT_BIN) $(HELPER_BIN) $(BUILD)/tests/libflinch_cuda_san.so

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

# The bridge is built without $(SAN): it is loaded into applications that
# are not sanitized (the ASan runtime must come first in a process).
$(BUILD)/pic-hidden/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out $(SAN),$(ALL_CFLAGS)) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/libflinch.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/flinch: $(BUILD)/src/flinch.o $(BUILD)/libflinch.a
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(LDLIBS)

# The NVTX bridge, loaded by applications through NVTX_INJECTION64_PATH
# (`flinch record --nvtx`): only InitializeInjectionNvtx2 is exported.
$(BUILD)/libflinch_nvtx.so: $(NVTX_OBJ)
	$(CC) $(filter-out $(SAN),$(ALL_CFLAGS)) -shared -fvisibility=hidden -Wl,-soname,libflinch_nvtx.so -Wl,-z,nodelete $^ -o $@ -lpthread

# The CUDA injection library, loaded by the CUDA driver through
# CUDA_INJECTION64_PATH (`flinch record --cuda`): only InitializeInjection is
# exported. Built without $(SAN), as the NVTX bridge; the tests also load a
# sanitized copy into their sanitized stand-in application. Its few bytes of
# thread-local data (nvtx_emit.c's) are initial-exec, from glibc's static TLS
# room for dlopen'ed libraries: dynamic TLS made LeakSanitizer's exit-time
# scan crash ("Tracer caught signal 11", a bogus DTLS range of the writer
# thread) in 2 of 3 runs of a sanitized application on a loaded machine.
$(BUILD)/pic-cuda/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out $(SAN),$(ALL_CFLAGS)) -DNVTX_EMIT_SOURCE='"cuda"' -ftls-model=initial-exec -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/pic-cuda-san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DNVTX_EMIT_SOURCE='"cuda"' -ftls-model=initial-exec -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/libflinch_cuda.so: $(CUDA_OBJ)
	$(CC) $(filter-out $(SAN),$(ALL_CFLAGS)) -shared -fvisibility=hidden -Wl,-soname,libflinch_cuda.so -Wl,-z,nodelete $^ -o $@ -ldl -lpthread

$(BUILD)/tests/libflinch_cuda_san.so: $(CUDA_SAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -fvisibility=hidden -Wl,-z,nodelete $^ -o $@ -ldl -lpthread

# The simulated CUPTI (sim/cupti/, see sim/SCENARIO.md "CUPTI"), named like CUDA 13's.
$(BUILD)/sim-cupti/libcupti.so.13: $(wildcard sim/cupti/*.c)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MF $@.d -fPIC -shared -Wl,-soname,libcupti.so.13 $(filter %.c,$^) -o $@ -lpthread

$(BUILD)/tests/test_cupti_abi: CFLAGS += $(if $(CUPTI_INC),-DHAVE_CUPTI_HEADERS -isystem $(CUPTI_INC))

# The simulated NVML: a shared object with NVML's ABI, named like the real one so
# that LD_LIBRARY_PATH=build/sim or --nvml-lib build/sim/libnvidia-ml.so.1 loads it.
$(BUILD)/sim/libnvidia-ml.so.1: $(SIM_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libnvidia-ml.so.1 $^ -o $@ -lm -lpthread

# The same simulator as an old driver would export it: no _v2 symbols, no
# energy counter, no field values, no ClocksEventReasons (see sim/SCENARIO.md).
$(BUILD)/sim-legacy/libnvidia-ml.so.1: $(SIM_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MF $@.d -DSIM_LEGACY_ABI -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 $(SIM_SRC) -o $@ -lm -lpthread

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libflinch.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $< $(BUILD)/libflinch.a -o $@ $(LDLIBS)

# tracecheck reads traces with flinch's own reader, so it links libflinch.a.
$(BUILD)/tests/tracecheck: tests/helpers/tracecheck.c $(BUILD)/libflinch.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< $(BUILD)/libflinch.a -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< -o $@ $(LDLIBS)

demo: all
	@sh tests/demo.sh $(BUILD)

# demo-python: a Python server annotated only with flinch.window, analyzed per range
demo-python: all
	@sh tests/demo_python.sh $(BUILD)

# docs: the example outputs in README.md and the manual pages rewritten from
# the program's own output on the simulator (tests/docs/examples.sh), and
# the README's picture (tests/docs/demo_plot.sh, needs chromium). Run it
# after changing any output; tests/e2e/docs.sh fails until it is run.
docs: all
	@sh tests/docs/examples.sh $(BUILD)
	@sh tests/docs/demo_plot.sh $(BUILD)

# check: the plain build with -Werror; the same under gcc's ASan+UBSan with
# LeakSanitizer on (a leak fails the command); and, when clang is present,
# a clang -Werror build with clang's UBSan (float-cast-overflow included);
# then every test against each build, JOBS at a time (default: the CPUs),
# the timing-sensitive ones alone (tests/run.sh, TESTING.md).
# The three builds compile on every CPU (one at a time they took ~4 of
# make check's minutes on 2 cores).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check:
	@sh tests/setup-deps.sh
	$(MAKE) --no-print-directory -j$(CHECK_JOBS) BUILD=build WERROR=-Werror tests
	$(MAKE) --no-print-directory -j$(CHECK_JOBS) BUILD=build-asan WERROR=-Werror OPT="-O1 -g" SAN="$(SANFLAGS)" tests
	@if command -v clang >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory -j$(CHECK_JOBS) BUILD=build-clang CC=clang WERROR=-Werror OPT="-O1 -g" \
	    SAN="$(CLANG_SANFLAGS)" tests; fi
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  sh tests/run.sh build build-asan $$(test -x build-clang/flinch && echo build-clang)

bench: all
	@sh bench/run.sh $(BUILD)

# fuzz: libFuzzer targets (clang) for the trace reader, the CSV reader
# against a reference, the CSV writer-reader round trip and the mark-line parser, each run FUZZ_SECONDS from its
# seed corpus in tests/fuzz/corpus/ (see TESTING.md).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := $(CSTD) -DCSV_BUF_INIT=64 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(SRC_INC) -Iinclude
FUZZ_BIN     := build-fuzz/fuzz_trace_reader build-fuzz/fuzz_csv_reader build-fuzz/fuzz_csv_roundtrip \
                build-fuzz/fuzz_mark_line

# the readers' row cap made small, so the fuzzer reaches it (the round trip
# keeps the real one: it writes rows up to the writer's CSV_ROW_MAX)
build-fuzz/fuzz_trace_reader build-fuzz/fuzz_csv_reader: FUZZ_CFLAGS += -DCSV_RECORD_MAX=1024
build-fuzz/fuzz_trace_reader: tests/fuzz/fuzz_trace_reader.c src/trace/trace_reader.c src/trace/csv_reader.c src/trace/trace_number.c src/trace/trace_schema.c src/trace/mark_line.c
build-fuzz/fuzz_csv_reader: tests/fuzz/fuzz_csv_reader.c src/trace/csv_reader.c
build-fuzz/fuzz_csv_roundtrip: tests/fuzz/fuzz_csv_roundtrip.c src/trace/csv_writer.c src/trace/csv_reader.c src/util/diag.c \
                               src/util/utf8.c src/trace/trace_append.c src/trace/trace_schema.c
build-fuzz/fuzz_mark_line: tests/fuzz/fuzz_mark_line.c src/trace/mark_line.c
$(FUZZ_BIN): $(wildcard src/*/*.h src/*/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(filter %.c,$^) -o $@ -lm -lpthread

fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# soak: SOAK_SECONDS (default one hour) of recording at 1 ms on the simulated
# GPU with marks from several writers; RSS, marks and sample count checked;
# then the CUDA injection library under ThreadSanitizer (tests/cuda_tsan.sh).
SOAK_SECONDS ?= 3600
soak: tests
	@sh tests/soak.sh $(SOAK_SECONDS) $(BUILD)
	@sh tests/cuda_tsan.sh

# valgrind: memcheck (zero errors, zero definite/indirect leaks) over a few
# representative commands; see tests/valgrind.sh.
valgrind: tests
	@sh tests/valgrind.sh $(BUILD)

# install: the binary, the C header and the NVTX bridge under PREFIX,
# staged under DESTDIR when given (a package build: make install
# DESTDIR=/tmp/pkg PREFIX=/usr). Nothing is installed that `make` did not
# build; run `make` first as yourself, then `sudo make install`.
#   PREFIX/bin/flinch
#   PREFIX/include/flinch_mark.h            header-only C client
#   PREFIX/lib/flinch/libflinch_nvtx.so     `flinch record --nvtx` looks in ../lib/flinch/
#   PREFIX/lib/flinch/libflinch_cuda.so     `flinch record --cuda` too
#   PREFIX/share/man/manN/*.N               the manual pages (man/*.[157], roff source
#                                           installed as it is; `flinch help CMD` shows them)
#   PREFIX/share/bash-completion/completions/flinch   bash completion (completion/flinch.bash)
#   PYTHON_SITE/flinch.py                   the Python helper: the directory
#                                           under PREFIX on $(PYTHON)'s sys.path
#                                           (Debian's python3 and PREFIX=/usr/local:
#                                           /usr/local/lib/python3.X/dist-packages),
#                                           else PREFIX/lib/python3.X/site-packages;
#                                           skipped without python3
PREFIX  ?= /usr/local
PYTHON  ?= python3
PYTHON_SITE ?= $(shell $(PYTHON) -c 'import os, sys, sysconfig; p = os.path.normpath("$(PREFIX)"); \
  c = [d for d in sys.path if d.startswith(p + "/lib/") and d.rstrip("/").endswith(("site-packages", "dist-packages"))]; \
  print(c[0] if c else sysconfig.get_path("purelib", "posix_prefix", vars={"base": p, "platbase": p}))' 2>/dev/null)
DESTDIR ?=
INSTALL ?= install
MAN_PAGES := $(wildcard man/*.1 man/*.5 man/*.7)
MAN_DIR   := $(PREFIX)/share/man
BASH_COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions
INSTALL_FILES := $(DESTDIR)$(PREFIX)/bin/flinch $(DESTDIR)$(PREFIX)/include/flinch_mark.h \
                 $(DESTDIR)$(PREFIX)/lib/flinch/libflinch_nvtx.so \
                 $(DESTDIR)$(PREFIX)/lib/flinch/libflinch_cuda.so \
                 $(foreach p,$(MAN_PAGES),$(DESTDIR)$(MAN_DIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p))) \
                 $(DESTDIR)$(BASH_COMPLETION_DIR)/flinch \
                 $(if $(PYTHON_SITE),$(DESTDIR)$(PYTHON_SITE)/flinch.py)

.PHONY: install uninstall
install: $(BUILD)/flinch $(BUILD)/libflinch_nvtx.so $(BUILD)/libflinch_cuda.so
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/flinch
	$(INSTALL) -m 0755 $(BUILD)/flinch $(DESTDIR)$(PREFIX)/bin/flinch
	$(INSTALL) -m 0644 include/flinch_mark.h $(DESTDIR)$(PREFIX)/include/flinch_mark.h
	$(INSTALL) -m 0755 $(BUILD)/libflinch_nvtx.so $(DESTDIR)$(PREFIX)/lib/flinch/libflinch_nvtx.so
	$(INSTALL) -m 0755 $(BUILD)/libflinch_cuda.so $(DESTDIR)$(PREFIX)/lib/flinch/libflinch_cuda.so
	@for p in $(MAN_PAGES); do s=$${p##*.}; \
	  $(INSTALL) -d $(DESTDIR)$(MAN_DIR)/man$$s && \
	  $(INSTALL) -m 0644 $$p $(DESTDIR)$(MAN_DIR)/man$$s/$${p##*/} || exit 1; done
	$(INSTALL) -d $(DESTDIR)$(BASH_COMPLETION_DIR)
	$(INSTALL) -m 0644 completion/flinch.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/flinch
	@if [ -n "$(PYTHON_SITE)" ]; then \
	  $(INSTALL) -d $(DESTDIR)$(PYTHON_SITE) && \
	  $(INSTALL) -m 0644 python/flinch.py $(DESTDIR)$(PYTHON_SITE)/flinch.py && \
	  echo "install: flinch.py -> $(DESTDIR)$(PYTHON_SITE)"; \
	  $(PYTHON) -c 'import sys; sys.exit("$(PYTHON_SITE)" not in sys.path)' 2>/dev/null || \
	    echo "install: $(PYTHON_SITE) is not on $(PYTHON)'s sys.path: add it to PYTHONPATH, or pip install ./python"; \
	else echo "install: no $(PYTHON): flinch.py not installed (pip install ./python)"; fi

uninstall:
	rm -f $(INSTALL_FILES)
	-rmdir $(DESTDIR)$(PREFIX)/lib/flinch 2>/dev/null

clean:
	rm -rf build build-asan build-clang build-fuzz build-tsan-cuda

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
