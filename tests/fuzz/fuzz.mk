# tests/fuzz/fuzz.mk - libFuzzer targets of every parser of outside input.
# Included by the top-level Makefile after its rules (tests/fuzz/README.md).
#
#   make fuzz FUZZ_SECONDS=N   build build-fuzz/fuzz/NAME (clang,
#                              -fsanitize=fuzzer,address,undefined) and run
#                              each target N seconds (default 60) from its
#                              seeds; new inputs go to build-fuzz/corpus/NAME,
#                              crashes to build-fuzz/crashes/
#   make fuzz FUZZ_TARGETS="a b"  only those targets
#   make fuzz FUZZ_RUNS=N      stop each after N executions (or FUZZ_SECONDS)
#   make tests / check         also build $(O)/fuzz/replay-NAME, which
#                              tests/fuzz/fuzz-corpus-replays.sh runs over
#                              tests/fuzz/corpus/NAME/ (no libFuzzer needed)
#
# fuzz-targets: tests/fuzz/NAME.c each; fuzz-NAME-y: the objects (paths from
# the top of the tree) it needs beyond libxsched.a; fuzz-NAME-ldlibs.

fuzz-targets := daemon-request daemon-state top-pages trace-json mtx options omp-env topology \
	affinity-files shared-readers

fuzz-daemon-request-y := daemon/request.o
fuzz-top-pages-y := $(addprefix tools/xsched-top/,pages.o daemon.o snap.o text.o guard.o jobs.o)
fuzz-shared-readers-y := $(fuzz-top-pages-y)
fuzz-trace-json-y := tools/common/json.o tools/xsched-trace/trace.o
fuzz-trace-json-ldlibs := -lm
fuzz-mtx-y := libxsched/cuda/mtx.o libxsched/cuda/csr.o
fuzz-mtx-ldlibs := -lm
fuzz-omp-env-y := $(addprefix libxsched/gomp/,$(libxsched-gomp-y))

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(fuzz-targets)
FUZZ_O := build-fuzz

fuzz-objs = $(addprefix $(O)/,tests/fuzz/$(1).o $(fuzz-$(1)-y))

quiet_cmd_fuzz_link := LD
      cmd_fuzz_link = $(CC) $(XS_LDFLAGS) $(fuzz-link-flags) -o $@ $(filter %.o,$^) \
		$(O)/libxsched.a $(libxsched-ldlibs-y) $(fuzz-ldlibs)

# $(O)/fuzz/replay-NAME: the target with tests/fuzz/replay.c's main, any build.
define fuzz-replay
$(O)/fuzz/replay-$(1): $(call fuzz-objs,$(1)) $(O)/tests/fuzz/replay.o $(O)/libxsched.a
	@mkdir -p $$(@D)
	$$(call cmd,fuzz_link)
$(O)/fuzz/replay-$(1): private fuzz-ldlibs := $(fuzz-$(1)-ldlibs)
$(O)/fuzz/replay-$(1): private fuzz-link-flags :=
all-objs += $(call fuzz-objs,$(1))
endef
$(foreach t,$(fuzz-targets),$(eval $(call fuzz-replay,$(t))))
all-objs += $(O)/tests/fuzz/replay.o

# $(FUZZ_O)/fuzz/NAME: linked with libFuzzer's main (only in build-fuzz).
define fuzz-target
$(O)/fuzz/$(1): $(call fuzz-objs,$(1)) $(O)/libxsched.a
	@mkdir -p $$(@D)
	$$(call cmd,fuzz_link)
$(O)/fuzz/$(1): private fuzz-ldlibs := $(fuzz-$(1)-ldlibs)
$(O)/fuzz/$(1): private fuzz-link-flags := -fsanitize=fuzzer
endef
$(foreach t,$(fuzz-targets),$(eval $(call fuzz-target,$(t))))

.PHONY: fuzz fuzz-build fuzz-replay
fuzz-replay: $(addprefix $(O)/fuzz/replay-,$(fuzz-targets))
tests: fuzz-replay

fuzz-build: $(addprefix $(O)/fuzz/,$(FUZZ_TARGETS))

# clang's libFuzzer: -fsanitize=fuzzer-no-link instruments every object
# (libxsched.a included), -fsanitize=fuzzer at the link adds its main.
fuzz:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc)) \
		O=$(FUZZ_O) CC=clang SANITIZE=fuzzer-no-link,address,undefined \
		FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz-build
	$(Q)FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run.sh $(FUZZ_O) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# $(O)/fuzz/seed-runtime: writes a page and a profile for make-seeds.sh.
$(O)/fuzz/seed-runtime: $(O)/tests/fuzz/seed-runtime.o $(O)/libxsched.a
	@mkdir -p $(@D)
	$(call cmd,fuzz_link)
all-objs += $(O)/tests/fuzz/seed-runtime.o
