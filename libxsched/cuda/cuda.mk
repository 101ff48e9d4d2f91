# libxsched/cuda/cuda.mk - build of the CUDA module. Run make from the
# repository root. Either included by the top-level Makefile, after its
# configuration section (it reuses O, SANITIZE, KSELFTEST_DIR/_HDR and
# test-flags when they are defined):
#
#     -include libxsched/cuda/cuda.mk
#     all: cuda
#     tests: cuda-tests
#     (check: run $(XS_CUDA_TESTS) with the other tests)
#
# or used on its own:  make -f libxsched/cuda/cuda.mk cuda-check [O=dir]
#
# Products, in $(O) (default build):
#   libxsched-cuda-host.a   host half: CSR/COO, Matrix Market reader, RMAT,
#                           heuristic, CPU references (gcc only, always)
#   libxsched-cuda-simt.a   the host SIMT emulator (tests/simt/) with the
#                           module's kernels built for it (C++, no nvcc;
#                           not in SANITIZE builds)
#   libxsched-cuda.so       the module (only when nvcc is found); links
#                           $(O)/libxsched.so (rpath $$ORIGIN), which a
#                           standalone run builds with the top Makefile
#   tests/cuda-*            tests: tests-cuda-host-y always,
#                           tests-cuda-simt-y unless SANITIZE, tests-cuda-y
#                           only with nvcc (they SKIP without a GPU)
#   xsched-spmv-bench       SpMV vs cuSPARSE (only with nvcc)
#   xsched-sync-bench       sync server vs global locks (only with nvcc)
# A SANITIZE build instruments the host half and its tests and skips the
# device half (nvcc objects are not instrumented; CI has no GPU anyway)
# and the emulator (fibers switch stacks behind the sanitizers' backs).
#
# Everything defined here is prefixed (XS_CUDA_*, cuda-*) so that it cannot
# collide with the including Makefile.

XS_CUDA_SAVED_GOAL := $(.DEFAULT_GOAL)

XS_CUDA_DIR := libxsched/cuda
XS_CUDA_O := $(or $(O),build)
XS_CUDA_BUILD := $(XS_CUDA_O)/cuda

include $(XS_CUDA_DIR)/Kbuild

# nvcc: $(NVCC) if given, else on PATH, else the default CUDA location.
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) \
		    $(wildcard /usr/local/cuda/bin/nvcc))
ifdef SANITIZE
XS_CUDA_NVCC :=
XS_CUDA_SKIP_WHY := SANITIZE=$(SANITIZE) build
XS_CUDA_SKIP_WHAT := , and the SIMT emulator tests
else
XS_CUDA_NVCC := $(NVCC)
XS_CUDA_SKIP_WHY := nvcc not found (set NVCC=...)
XS_CUDA_SKIP_WHAT :=
endif
XS_CUDA_HOME := $(patsubst %/bin/nvcc,%,$(XS_CUDA_NVCC))
XS_CUDA_LIBDIR := $(firstword $(wildcard $(XS_CUDA_HOME)/lib64) \
			      $(XS_CUDA_HOME)/lib)

# Real code for the two architectures we target, nothing else: keeps the
# nvcc time of CI small.
XS_CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90
XS_NVCCFLAGS ?= -std=c++17 -O3 $(XS_CUDA_ARCH) -Xcompiler -fPIC,-Wall \
		-Iinclude -MMD -MP
XS_CUDA_CC := $(or $(CC),cc)
XS_CUDA_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -D_GNU_SOURCE \
		  -Iinclude -MMD -MP $(xs-flags)

# kselftest harness: the top-level Makefile's (KSELFTEST_HDR, test-flags),
# else the same cache and setup script on our own.
ifndef KSELFTEST_HDR
KSELFTEST_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/xsched/kselftest
KSELFTEST_HDR := $(KSELFTEST_DIR)/kselftest_harness.h
$(KSELFTEST_HDR):
	scripts/kselftest-setup.sh $(KSELFTEST_DIR)
endif
XS_CUDA_TEST_CFLAGS := $(XS_CUDA_CFLAGS) \
	$(or $(test-flags),-isystem $(KSELFTEST_DIR) -Itests -Wno-unused-parameter)

# The SIMT emulator: the kernel headers compiled by the host C++ compiler
# with -DXS_SIMT (libxsched/cuda/device.cuh then includes tests/simt/simt.h).
XS_CUDA_CXX := $(or $(CXX),c++)
XS_CUDA_SIMT_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -fPIC \
	-Wno-unknown-pragmas -DXS_SIMT -Iinclude -I$(XS_CUDA_DIR) -Itests/simt \
	-MMD -MP

XS_CUDA_HOST_OBJS := $(addprefix $(XS_CUDA_BUILD)/,$(cuda-host-y))
XS_CUDA_DEV_OBJS := $(addprefix $(XS_CUDA_BUILD)/,$(cuda-dev-y))
XS_CUDA_HOST_LIB := $(XS_CUDA_O)/libxsched-cuda-host.a
XS_CUDA_SO := $(XS_CUDA_O)/libxsched-cuda.so
XS_CUDA_LIBXSCHED := $(XS_CUDA_O)/libxsched.so
# A test registered as AREA/NAME is tests/AREA/NAME.c, built into
# tests/NAME (as in the top-level Makefile).
XS_CUDA_HOST_TESTS := $(addprefix $(XS_CUDA_O)/tests/,$(notdir $(tests-cuda-host-y)))
XS_CUDA_SIMT_OBJS := $(addprefix $(XS_CUDA_BUILD)/simt/,$(cuda-simt-y))
XS_CUDA_SIMT_LIB := $(XS_CUDA_O)/libxsched-cuda-simt.a
XS_CUDA_SIMT_TESTS := $(addprefix $(XS_CUDA_O)/tests/,$(notdir $(tests-cuda-simt-y)))
XS_CUDA_DEV_TESTS := $(addprefix $(XS_CUDA_O)/tests/,$(notdir $(filter-out %.sh,$(tests-cuda-y))))
XS_CUDA_SH_TESTS := $(addprefix tests/,$(filter %.sh,$(tests-cuda-y)))
XS_CUDA_BENCH := $(XS_CUDA_O)/xsched-spmv-bench $(XS_CUDA_O)/xsched-sync-bench

ifdef SANITIZE
XS_CUDA_HOST_ALL := $(XS_CUDA_HOST_LIB)
XS_CUDA_HOST_CHECKS := $(XS_CUDA_HOST_TESTS)
else
XS_CUDA_HOST_ALL := $(XS_CUDA_HOST_LIB) $(XS_CUDA_SIMT_LIB)
XS_CUDA_HOST_CHECKS := $(XS_CUDA_HOST_TESTS) $(XS_CUDA_SIMT_TESTS)
endif
ifneq ($(XS_CUDA_NVCC),)
XS_CUDA_ALL := $(XS_CUDA_HOST_ALL) $(XS_CUDA_SO) $(XS_CUDA_BENCH)
XS_CUDA_TESTS := $(XS_CUDA_HOST_CHECKS) $(XS_CUDA_DEV_TESTS) \
		 $(XS_CUDA_SH_TESTS)
else
XS_CUDA_ALL := $(XS_CUDA_HOST_ALL)
XS_CUDA_TESTS := $(XS_CUDA_HOST_CHECKS)
endif

.PHONY: cuda cuda-tests cuda-check cuda-clean cuda-nvcc-note cuda-libxsched

# libxsched.so: the including Makefile has its rule (it defines SOFILE);
# on our own we ask that Makefile every time, so that a change to
# libxsched is picked up. Its timestamp moves only when it was relinked,
# and only then is libxsched-cuda.so relinked.
ifeq ($(origin SOFILE),undefined)
$(XS_CUDA_LIBXSCHED): cuda-libxsched
	@:
cuda-libxsched:
	@+$(MAKE) --no-print-directory -f Makefile O=$(XS_CUDA_O) \
		$(XS_CUDA_LIBXSCHED)
endif

cuda: cuda-nvcc-note $(XS_CUDA_ALL)

cuda-tests: cuda $(XS_CUDA_TESTS)

cuda-nvcc-note:
ifeq ($(XS_CUDA_NVCC),)
	@echo "cuda: $(XS_CUDA_SKIP_WHY): skipping libxsched-cuda.so," \
	      "its tests and benchmarks$(XS_CUDA_SKIP_WHAT)"
else
	@true
endif

$(XS_CUDA_BUILD)/%.o: $(XS_CUDA_DIR)/%.c
	@mkdir -p $(@D)
	$(XS_CUDA_CC) $(XS_CUDA_CFLAGS) -c $< -o $@

$(XS_CUDA_BUILD)/%.o: $(XS_CUDA_DIR)/%.cu
	@mkdir -p $(@D)
	$(XS_CUDA_NVCC) $(XS_NVCCFLAGS) -c $< -o $@

$(XS_CUDA_HOST_LIB): $(XS_CUDA_HOST_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(XS_CUDA_BUILD)/simt/%.o: tests/simt/%.cc
	@mkdir -p $(@D)
	$(XS_CUDA_CXX) $(XS_CUDA_SIMT_CXXFLAGS) -c $< -o $@

$(XS_CUDA_SIMT_LIB): $(XS_CUDA_SIMT_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# Static cudart (nvcc's default): no libcudart needed at run time, and with
# no driver every runtime call fails cleanly. cuSPARSE is found through
# ldconfig or the rpath, libxsched.so next to us ($ORIGIN).
$(XS_CUDA_SO): $(XS_CUDA_HOST_OBJS) $(XS_CUDA_DEV_OBJS) \
	       $(XS_CUDA_DIR)/xsched-cuda.map $(XS_CUDA_LIBXSCHED)
	@mkdir -p $(@D)
	$(XS_CUDA_NVCC) -shared -o $@ $(XS_CUDA_HOST_OBJS) $(XS_CUDA_DEV_OBJS) \
		-Xlinker --version-script=$(XS_CUDA_DIR)/xsched-cuda.map \
		-Xlinker -soname=libxsched-cuda.so -Xlinker --no-undefined \
		-Xlinker -rpath='$$ORIGIN' -L$(XS_CUDA_O) -lxsched \
		-Xlinker -rpath=$(XS_CUDA_LIBDIR) -L$(XS_CUDA_LIBDIR) -lcusparse

# Each test program from its source, tests/AREA/NAME.c, its header
# dependencies in tests/AREA/NAME.d where an object of that source would be:
# a test that moves leaves its old list, which names the old source, unread.
XS_CUDA_TEST_ENTRIES := $(tests-cuda-host-y) $(tests-cuda-simt-y) $(filter-out %.sh,$(tests-cuda-y))
define xs-cuda-test
$(XS_CUDA_O)/tests/$(notdir $(1)): tests/$(1).c
$(XS_CUDA_O)/tests/$(notdir $(1)): private XS_CUDA_TEST_SRC := tests/$(1).c
$(XS_CUDA_O)/tests/$(notdir $(1)): private XS_CUDA_TEST_DEP := $(XS_CUDA_O)/tests/$(1).d
endef
$(foreach t,$(XS_CUDA_TEST_ENTRIES),$(eval $(call xs-cuda-test,$(t))))
XS_CUDA_TEST_SRC_FLAGS = $(XS_CUDA_TEST_SRC) -MF $(XS_CUDA_TEST_DEP)

$(XS_CUDA_HOST_TESTS): $(XS_CUDA_HOST_LIB) | $(KSELFTEST_HDR)
	@mkdir -p $(@D) $(dir $(XS_CUDA_TEST_DEP))
	$(XS_CUDA_CC) $(XS_CUDA_TEST_CFLAGS) $(XS_CUDA_TEST_SRC_FLAGS) -o $@ $(XS_CUDA_HOST_LIB) -lm

$(XS_CUDA_SIMT_TESTS): $(XS_CUDA_SIMT_LIB) $(XS_CUDA_HOST_LIB) | $(KSELFTEST_HDR)
	@mkdir -p $(@D) $(dir $(XS_CUDA_TEST_DEP))
	$(XS_CUDA_CC) $(XS_CUDA_TEST_CFLAGS) $(XS_CUDA_TEST_SRC_FLAGS) -o $@ $(XS_CUDA_SIMT_LIB) \
		$(XS_CUDA_HOST_LIB) -lstdc++ -lm

$(XS_CUDA_DEV_TESTS): $(XS_CUDA_SO) | $(KSELFTEST_HDR)
	@mkdir -p $(@D) $(dir $(XS_CUDA_TEST_DEP))
	$(XS_CUDA_CC) $(XS_CUDA_TEST_CFLAGS) -pthread $(XS_CUDA_TEST_SRC_FLAGS) -o $@ \
		-L$(XS_CUDA_O) -lxsched-cuda -lxsched -Wl,-rpath,'$$ORIGIN/..' -lm

$(XS_CUDA_BENCH): $(XS_CUDA_O)/%: tools/cuda/%.c $(XS_CUDA_SO)
	@mkdir -p $(@D)
	$(XS_CUDA_CC) $(XS_CUDA_CFLAGS) $< -o $@ -L$(XS_CUDA_O) -lxsched-cuda \
		-Wl,-rpath,'$$ORIGIN' -lm

# Run every CUDA test through the project's KTAP runner (exit status 4 of a
# test is a kselftest SKIP, not a failure).
cuda-check: cuda-tests
	XS_SRCDIR=$(CURDIR) XS_BUILDDIR=$(abspath $(XS_CUDA_O)) \
		scripts/run-tests.sh $(XS_CUDA_TESTS)

cuda-clean:
	rm -rf $(XS_CUDA_BUILD) $(XS_CUDA_HOST_LIB) $(XS_CUDA_SO) \
		$(XS_CUDA_SIMT_LIB) $(XS_CUDA_HOST_TESTS) $(XS_CUDA_SIMT_TESTS) \
		$(XS_CUDA_DEV_TESTS) $(XS_CUDA_BENCH)

-include $(XS_CUDA_HOST_OBJS:.o=.d) $(XS_CUDA_DEV_OBJS:.o=.d) \
	 $(XS_CUDA_SIMT_OBJS:.o=.d) $(XS_CUDA_TEST_ENTRIES:%=$(XS_CUDA_O)/tests/%.d)

.DEFAULT_GOAL := $(XS_CUDA_SAVED_GOAL)
