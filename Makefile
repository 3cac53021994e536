# gtr: read Go execution traces from the command line.
# `make help` lists the targets.

CC       ?= cc
SHARED   ?= $(abspath ../shared)
GO_DIR   ?= /opt/gtr-go
GO_VERSIONS ?= 1.15 1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27
BUILD    ?= build

WARN     := -Wall -Wextra -Wshadow -Wvla -Wstrict-prototypes -Wmissing-prototypes
CSTD     := -std=c11 -D_GNU_SOURCE
OPT      ?= -O2 -g
CFLAGS_ALL = $(CSTD) $(OPT) $(WARN) -pthread $(EXTRA_CFLAGS)
LDLIBS   := -pthread -lxxhash -luring -lz -lzstd -lm

LIB_SRC  := $(wildcard core/*/*.c io/*.c simd/*.c)
LIB_SRC  := $(filter-out core/cli/main.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: gotraces-test all run test unit difftest clitest viewstest deps go corpora bench arm64-test asan ubsan tsan sanitize fuzz help clean slurm-test
.PHONY: all run test unit difftest clitest viewstest faults deps go corpora bench arm64-test asan ubsan tsan sanitize fuzz help clean slurm-test

all: $(BUILD)/gtr ## build the gtr binary (build/gtr)

# The library and the binary keep to ISO C11 (-Wpedantic), so that every
# compiler takes them; the tests use Criterion's macros, which do not.
$(BUILD)/%.o: %.c $(wildcard core/*/*.h io/*.h simd/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wpedantic -I. -c $< -o $@

# The page of `gtr report`: core/report/report.html as a C array (od, from coreutils).
$(BUILD)/gen/html_template.h: core/report/report.html
	@mkdir -p $(dir $@)
	@{ echo '/* Made from core/report/report.html by the Makefile: edit that file. */'; \
	  echo 'static const unsigned char gtr_html_tpl[] = {'; \
	  od -An -v -tu1 $< | sed -e 's/^ *//' -e 's/  */,/g' -e 's/$$/,/'; \
	  echo '0};'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/core/report/html_report.o: $(BUILD)/gen/html_template.h
$(BUILD)/core/report/html_report.o: CFLAGS_ALL += -I$(BUILD)/gen

$(BUILD)/libgtr.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/gtr: $(BUILD)/core/cli/main.o $(BUILD)/libgtr.a
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libgtr.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -I. -o $@ $< $(BUILD)/libgtr.a $(LDLIBS) -lcriterion

RUN_TRACE ?= corpora/traces/greedy-coarse-go1.26.trace

run: deps all ## build, then run gtr greedy on a bundled trace
	$(BUILD)/gtr greedy -n 5 $(RUN_TRACE)

deps: ## install the Debian packages gtr builds with, when missing
	@tests/deps.sh

go: ## install the Go toolchains the tests use as oracles (into GO_DIR)
	@tests/go.sh "$(SHARED)" "$(GO_DIR)" $(GO_VERSIONS)

test: deps go ## build and run every test: unit, differential, CLI (tests/README.md)
	@$(MAKE) --no-print-directory all $(TEST_BIN)
	@BUILD=$(BUILD) GO_DIR=$(GO_DIR) tests/run.sh $(TEST_BIN)

slurm-test: deps all ## check as a Slurm job array on a single-node cluster started here (root; installs slurm-wlm, munge)
	@SLURMTEST_REQUIRED=1 tests/slurmtest.sh $(BUILD)/gtr corpora/traces/*.trace

viewstest: deps go all ## tasks, regions, mmu, goroutine against internal/trace on every trace and every MMU variant
	@GTR_VIEWS_FULL=1 GTR_ORACLE_DIR=$(CURDIR)/build/oracle tests/viewstest.sh $(BUILD)/gtr $(GO_DIR) \
		corpora/traces/*.trace tests/data/*.trace $(GO_DIR)/go-1.15/src/internal/trace/testdata/*_good \
		$(GO_DIR)/go-1.27/src/internal/trace/internal/tracev1/testdata/*_good

pproftest: deps go all ## gtr pprof against go tool trace -pprof on every corpus trace
	@tests/pproftest.sh $(BUILD)/gtr $(GO_DIR) corpora/traces/*.trace
.PHONY: pproftest

gatetest: deps go all ## the CI gate on real programs in full: 5 programs run 2 x 10 times unchanged, every pair compared, 3 regressions
	@GATETEST_FULL=1 GTR_ROOT=$(CURDIR) tests/gatetest.sh $(BUILD)/gtr $(GO_DIR)
.PHONY: gatetest

faults: all ## the fault suite in full: shrinking files, kill -9, concurrent updates, many rounds
	@FAULTS_FULL=1 GTR_ROOT=$(CURDIR) tests/faults.sh $(BUILD)/gtr corpora/traces/*.trace

BENCH_BIN := $(BUILD)/bench/measure $(BUILD)/bench/kernels $(BUILD)/bench/floor

$(BUILD)/bench/%: bench/%.c $(BUILD)/libgtr.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -I. -o $@ $< $(BUILD)/libgtr.a $(LDLIBS)

bench: deps go ## throughput and memory on big generated traces, against go tool trace (bench/README.md)
	@case "$(OPT) $(EXTRA_CFLAGS)" in *sanitize*) echo "make bench: not with sanitizers" >&2; exit 2;; esac
	@$(MAKE) --no-print-directory all $(BENCH_BIN)
	@BUILD=$(BUILD) GO_DIR=$(GO_DIR) bench/run.sh

# arm64: the library and the unit tests cross-compiled (gcc-aarch64-linux-gnu,
# Debian's multiarch libraries), run under qemu-user; exit 77 when qemu
# cannot run here. ARM64_QUICK=1 runs the kernel tests only.
arm64-test: ## build for arm64, run the unit tests under qemu-user (ARM64_QUICK=1: kernels only)
	@tests/arm64.sh

gotraces-test: deps go all ## Go's trace test programs (testprog), every one with every Go 1.22+, plain and stress
	@GTR_ROOT=$(CURDIR) GTR_GO_DIR=$(GO_DIR) tests/gotraces.sh $(BUILD)/gtr $(GO_DIR) full

corpora: go ## run the corpus programs under every Go toolchain, writing corpora/traces
	corpora/make-traces.sh $(GO_DIR) corpora/traces $(GO_VERSIONS)
	corpora/check-traces.sh $(GO_DIR) corpora/traces

# tests/faults.sh, part of the tests, counts the sanitizer reports of every
# process it starts (killed, cut-off and failing ones too) as failures.
asan: ## run the tests under AddressSanitizer (+ leak checks)
	$(MAKE) test BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		EXTRA_CFLAGS="-fsanitize=address -fno-sanitize-recover=all"

ubsan: ## run the tests under UndefinedBehaviorSanitizer
	$(MAKE) test BUILD=build-ubsan OPT="-O1 -g" \
		EXTRA_CFLAGS="-fsanitize=undefined -fno-sanitize-recover=all"

# Criterion cannot run under ThreadSanitizer (its test runner fails to map
# its arena: Snaipe/Criterion#274), so `make tsan` runs every suite but the
# unit tests; the threaded path (check's workers, -j 1 to 8) is driven
# through the command line by tests/checktest.sh.
tsan: ## run the tests under ThreadSanitizer (all but the Criterion unit tests)
	$(MAKE) test BUILD=build-tsan OPT="-O1 -g" EXTRA_CFLAGS="-fsanitize=thread" TEST_BIN=

sanitize: ## run the tests once under AddressSanitizer and UndefinedBehaviorSanitizer together
	$(MAKE) test BUILD=build-sanitize OPT="-O1 -g -fno-omit-frame-pointer" \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"

# Fuzzing: libFuzzer with clang, the library built with the sanitizers.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_v1 fuzz_v2 fuzz_cli fuzz_scan
FUZZ_BUILD   := build-fuzz
FUZZ_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_trace.h tests/fuzz/fuzz_modes.h $(BUILD)/libgtr.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -I. -o $@ $< $(BUILD)/libgtr.a $(LDLIBS)

fuzz: ## run each fuzz target for FUZZ_SECONDS (default 60; clang and libFuzzer installed when missing)
	@tests/fuzz-deps.sh
	@$(MAKE) --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) OPT="-O1 -g" \
		EXTRA_CFLAGS="$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link" \
		$(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/%)
	@GO_DIR=$(GO_DIR) tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 12

clean: ## remove build outputs
	rm -rf build build-asan build-ubsan build-tsan build-sanitize build-fuzz build-arm64
