# SPDX-License-Identifier: MIT
#
# xsched - top-level Makefile.
#
# What is built comes from ./Kbuild and libxsched/gomp/Kbuild (object and
# program lists, kernel style); how it is built is all here. `make help`
# lists the targets.
#
#   make                      build/libxsched.so, build/libxsched.a, tools, benchmarks
#   make check                install missing deps, build, run every test (KTAP)
#   make check TESTS="a b"    run only tests a and b
#   make check SANITIZE=thread            the same under ThreadSanitizer,
#   make check SANITIZE=address,undefined or ASan+UBSan, in build-<sanitizer>/
#   make check-concurrency SANITIZE=thread  only tests-concurrency-y
#   make run                  build, run a 2-minute subset of the benchmark table
#   make run FULL=1           the full table (make bench: xsched-bench's defaults)
#   make run / make bench BENCH_ARGS=...  build/xsched-bench with those arguments
#   make fuzz FUZZ_SECONDS=N  libFuzzer targets of every parser, N s each (tests/fuzz)
#   make check-models         spin verifies the protocol models (tests/models)
#   make check-mutants        the tests kill every -DXS_MUTATE_* build (tests/mutants)
#   make check-nostats        the termination tests, statistics compiled out (build-nostats/)
#   make soak SOAK_TASKS=N    the long run: stops, hogs, daemon restarts (tests/soak)
#   make V=1                  show the commands
#   make install [PREFIX=/usr/local DESTDIR=]  and uninstall (packaging/install.mk)
#   make deb                  the Debian packages, into build/deb/
#   make check-system         them under systemd in a QEMU/KVM guest, 2 and 4 NUMA nodes
#   make CC=clang             any C11 compiler; warnings are errors with both

# ---------------------------------------------------------------------------
# Object and program lists

libxsched-y :=
libxsched-ldlibs-y :=
libxsched-gomp-y :=
tests-y :=
tests-concurrency-y :=
tools-y :=
bench-y :=
bench-cxx-y :=
bench-ldlibs-y :=
bench-omp-y :=
bench-omp-cxx-y :=
bench-omp-ldlibs-y :=
include Kbuild
include libxsched/gomp/Kbuild

# ---------------------------------------------------------------------------
# Configuration

# The version lives in the public header; the SONAME carries the major.
xs-version = $(shell sed -n 's/^\#define XSCHED_VERSION_$(1) *\([0-9]*\).*/\1/p' include/xsched.h)
VERSION_MAJOR := $(call xs-version,MAJOR)
VERSION_MINOR := $(call xs-version,MINOR)
SONAME := libxsched.so.$(VERSION_MAJOR)
SOFILE := $(SONAME).$(VERSION_MINOR)

# C++ objects are built by the C++ compiler of the same family as $(CC).
ifeq ($(origin CXX),default)
CXX := $(if $(findstring clang,$(CC)),clang++,g++)
endif

# $(call cc-option,FLAG): FLAG if $(CC) accepts it.
cc-option = $(shell $(CC) -Werror $(1) -c -x c /dev/null -o /dev/null 2>/dev/null && echo $(1))

# Output directory: build/, or build-<sanitizers>/ so instrumented objects
# never mix with plain ones.
comma := ,
ifdef SANITIZE
O ?= build-$(subst $(comma),-,$(SANITIZE))
CFLAGS ?= -O1 -g -fno-omit-frame-pointer
xs-flags := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
# Instrumented builds are debug builds: the invariant checks under
# XS_DEBUG (victim tables, hybrid loops' claim words) run in them too.
xs-flags += -DXS_DEBUG
# gcc's flow analysis at -O1 with instrumentation reports variables as maybe
# uninitialized that the -O2 build proves initialized; the plain build is
# where this warning is an error.
xs-flags += $(call cc-option,-Wno-error=maybe-uninitialized)
# Likewise its -O1 inlining with instrumentation sizes snprintf's buffers
# where the -O2 build does not, and reports truncations of messages that
# the plain build checks.
xs-flags += $(call cc-option,-Wno-error=format-truncation)
ifneq ($(findstring thread,$(SANITIZE)),)
# gcc warns at every inlined atomic_thread_fence() that TSan does not model
# fences: a limit of the checker (orderings made only by a fence are not
# seen, which can cause false reports), not an error in the code.
xs-flags += $(call cc-option,-Wno-tsan)
endif
else
O ?= build
CFLAGS ?= -O2 -g
xs-flags :=
# Sanitizer runtimes are not linked into shared objects (clang), so only
# plain builds can insist that libxsched.so resolves every symbol.
xs-so-ldflags := -Wl,--no-undefined
endif
CXXFLAGS ?= $(CFLAGS)

# The kernel's kselftest harness, extracted once from linux-source into a
# cache outside the tree by scripts/kselftest-setup.sh.
KSELFTEST_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/xsched/kselftest
KSELFTEST_HDR := $(KSELFTEST_DIR)/kselftest_harness.h

# Flags every object gets; CFLAGS/CXXFLAGS/LDFLAGS stay the user's to set.
xs-cppflags := -D_GNU_SOURCE -Iinclude -Ilibxsched -MMD -MP
# omp-tools.h, the OMPT interface's header (libxsched/gomp/ompt.c): LLVM's,
# from libomp-dev. It lives in clang's resource directory, which cannot go
# on the include path (its stddef.h and stdatomic.h would shadow gcc's), so
# the one file is named; OMP_TOOLS_H=path overrides the search.
OMP_TOOLS_H ?= $(firstword $(wildcard /usr/include/omp-tools.h \
	/usr/lib/llvm-*/lib/clang/*/include/omp-tools.h))
xs-cppflags += $(if $(OMP_TOOLS_H),-DXG_OMP_TOOLS_H='"$(OMP_TOOLS_H)"')
xs-warnings := -Wall -Wextra -Werror
XS_CFLAGS := -std=gnu11 -fPIC -pthread $(xs-warnings) $(xs-flags) $(xs-cppflags) $(CFLAGS)
XS_CXXFLAGS := -std=c++17 -fPIC -pthread $(xs-warnings) $(xs-flags) $(xs-cppflags) $(CXXFLAGS)
XS_LDFLAGS := -pthread $(xs-flags) $(LDFLAGS)

# Every test gets tests/xs_test.h (the harness plus a leak check under ASan)
# first, whether it includes that or kselftest_harness.h. The harness is a
# system header: its 6.1 internals are not -Wextra clean. Its macros expand
# in the tests into functions whose `variant` parameter most tests never use
# and into `for (...) ;` after every ASSERT/EXPECT, which clang reports there.
# The headers the tests share stay in tests/, found with -Itests from the
# tests' folders (tests/<area>/).
test-flags := -isystem $(KSELFTEST_DIR) -include tests/xs_test.h -Itests \
	-Wno-unused-parameter -Wno-empty-body

# ---------------------------------------------------------------------------
# Quiet commands, kernel style: "  CC      libxsched/queue/spsc.o"; V=1 shows them.

ifeq ($(V),1)
Q :=
cmd = $(cmd_$(1))
else
Q := @
cmd = @printf '  %-7s %s\n' $(quiet_cmd_$(1)) $(@:$(O)/%=%); $(cmd_$(1))
endif

quiet_cmd_cc := CC
      cmd_cc = $(CC) $(XS_CFLAGS) $(prog-flags) -c -o $@ $<
quiet_cmd_cxx := CXX
      cmd_cxx = $(CXX) $(XS_CXXFLAGS) $(prog-flags) -c -o $@ $<
quiet_cmd_ar := AR
      cmd_ar = rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)
quiet_cmd_so := LD
      cmd_so = $(CC) $(XS_LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=$(filter %.map,$^) $(xs-so-ldflags) \
		-o $@ $(filter %.o,$^) $(libxsched-ldlibs-y)
quiet_cmd_ln := LN
      cmd_ln = ln -sf $(<F) $@
quiet_cmd_link := LD
      cmd_link = $(prog-linker) $(XS_LDFLAGS) $(prog-flags) -o $@ \
		$(filter %.o,$^) $(O)/libxsched.a $(libxsched-ldlibs-y) $(prog-ldlibs)

# ---------------------------------------------------------------------------
# The library

lib-objs := $(addprefix $(O)/libxsched/,$(libxsched-y))
lib-files := $(O)/libxsched.a $(O)/$(SOFILE) $(O)/$(SONAME) $(O)/libxsched.so

$(O)/libxsched.a: $(lib-objs)
	$(call cmd,ar)

$(O)/$(SOFILE): $(lib-objs) libxsched/libxsched.map
	$(call cmd,so)

$(O)/$(SONAME): $(O)/$(SOFILE)
	$(call cmd,ln)

$(O)/libxsched.so: $(O)/$(SONAME)
	$(call cmd,ln)

# The libgomp drop-in: the library's objects and libxsched/gomp's in one
# shared object with gcc's libgomp ABI and symbol versions (its .map), plus
# gomp/libgomp.so.1 so that a directory on LD_LIBRARY_PATH serves it under
# libgomp's name. Its SONAME is libgomp.so.1: preloaded, it then satisfies
# a program's DT_NEEDED libgomp.so.1 itself, so the system libgomp is not
# loaded at all (its constructor would pin the main thread for OMP_PLACES).
GOMP_SONAME := libgomp.so.1
GOMP_FILE := libxsched-gomp.so.1
gomp-objs := $(addprefix $(O)/libxsched/gomp/,$(libxsched-gomp-y))
gomp-files := $(if $(gomp-objs),$(O)/$(GOMP_FILE) $(O)/libxsched-gomp.so $(O)/gomp/libgomp.so.1)

quiet_cmd_gomp_so := LD
      cmd_gomp_so = $(CC) $(XS_LDFLAGS) -shared -Wl,-soname,$(GOMP_SONAME) \
		-Wl,--version-script=$(filter %.map,$^) $(xs-so-ldflags) \
		-o $@ $(filter %.o,$^) $(libxsched-ldlibs-y)

$(O)/$(GOMP_FILE): $(lib-objs) $(gomp-objs) libxsched/gomp/libxsched-gomp.map
	$(call cmd,gomp_so)

$(O)/libxsched-gomp.so: $(O)/$(GOMP_FILE)
	$(call cmd,ln)

$(O)/gomp/libgomp.so.1: $(O)/$(GOMP_FILE)
	@mkdir -p $(@D)
	$(Q)ln -sf ../$(GOMP_FILE) $@

# ---------------------------------------------------------------------------
# Programs: one mechanism for tools, benchmarks and tests.
#
# $(call program,NAME,C-OBJS,CXX-OBJS,FLAGS,LDLIBS) links $(O)/NAME from the
# objects (paths from the top of the tree), libxsched.a and LDLIBS. FLAGS go
# to compiling those objects and to the link. A program with C++ objects is
# linked by $(CXX) with oneTBB, which is what our C++ code is there for.
# A program without objects is not built.

define program
ifneq ($(strip $(2) $(3)),)
$(O)/$(1): $(addprefix $(O)/,$(2) $(3)) $(O)/libxsched.a
$(O)/$(1): private prog-linker := $(if $(strip $(3)),$$(CXX),$$(CC))
$(O)/$(1): private prog-ldlibs := $(5) $(if $(strip $(3)),-ltbb)
$(addprefix $(O)/,$(1) $(2) $(3)): private prog-flags := $(4)
programs += $(O)/$(1)
all-objs += $(addprefix $(O)/,$(2) $(3))
endif
endef

programs :=
all-objs := $(lib-objs) $(gomp-objs)

# tools-y += NAME: build/NAME from NAME-y objects, or from tools/NAME.c.
$(foreach t,$(tools-y),$(eval $(call program,$(t),$(or $($(t)-y),tools/$(t).o),$($(t)-cxx-y),,$($(t)-ldlibs-y))))
tool-programs := $(addprefix $(O)/,$(tools-y))

$(eval $(call program,xsched-bench,$(bench-y),$(bench-cxx-y),,$(bench-ldlibs-y)))
$(eval $(call program,xsched-bench-omp,$(bench-omp-y),$(bench-omp-cxx-y),-fopenmp,$(bench-omp-ldlibs-y)))
bench-programs := $(filter $(O)/xsched-bench $(O)/xsched-bench-omp,$(programs))

# tests-y += AREA/NAME: build/tests/NAME from tests/AREA/NAME.c (object
# build/tests/AREA/NAME.o); AREA/NAME.sh: tests/AREA/NAME.sh runs from the
# source tree. A test's name leaves out its folder: build/tests/NAME, make
# check TESTS=NAME and the KTAP lines do not change when a test moves, and
# two tests cannot share a name. A test still registered as NAME is
# tests/NAME.c. tests-concurrency-y names are tests too.
all-tests := $(sort $(tests-y) $(tests-concurrency-y))
c-tests := $(filter-out %.sh,$(all-tests))
$(foreach n,$(sort $(notdir $(all-tests))),$(if $(word 2,$(filter $(n) %/$(n),$(all-tests))),\
	$(error test name '$(n)' registered twice: $(filter $(n) %/$(n),$(all-tests)))))
$(foreach t,$(c-tests),$(eval $(call program,tests/$(notdir $(t)),tests/$(t).o,,$(test-flags),)))
test-programs := $(addprefix $(O)/tests/,$(notdir $(c-tests)))
$(patsubst %,$(O)/tests/%.o,$(c-tests)): | $(KSELFTEST_HDR)

$(programs):
	$(call cmd,link)

# ---------------------------------------------------------------------------
# Objects

$(O)/%.o: %.c $(O)/.flags
	@mkdir -p $(@D)
	$(call cmd,cc)

$(O)/%.o: %.cc $(O)/.flags
	@mkdir -p $(@D)
	$(call cmd,cxx)

$(O)/%.o: %.cpp $(O)/.flags
	@mkdir -p $(@D)
	$(call cmd,cxx)

# Rebuild everything when the compiler or the flags change (CC=clang after
# a gcc build): $(O)/.flags is rewritten only when its content would differ.
flags-now := $(CC) $(CXX) $(XS_CFLAGS) $(XS_CXXFLAGS) $(XS_LDFLAGS) $(test-flags)
$(O)/.flags: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = '$(flags-now)' ] || printf '%s\n' '$(flags-now)' >$@

$(KSELFTEST_HDR):
	$(Q)scripts/kselftest-setup.sh $(KSELFTEST_DIR)

# ---------------------------------------------------------------------------
# The CUDA module: its own object lists (libxsched/cuda/Kbuild) and rules;
# built whenever nvcc is found, its GPU tests skip without a GPU.

-include libxsched/cuda/cuda.mk
-include daemon/daemon.mk
-include tests/fuzz/fuzz.mk
-include tests/soak/soak.mk
-include libxsched/mpi/mpi.mk

# Header dependencies (-MMD) of every object, those the .mk files above
# add included: read before them, the fuzz targets' objects were never
# rebuilt when a header changed (a stale struct size in build-fuzz).
-include $(all-objs:.o=.d)

# Promela models of the lock-less protocols, checked exhaustively by spin;
# each mutation (a -D broken variant) must fail (tests/models/check.sh).
.PHONY: check-models
check-models:
	$(Q)scripts/deps.sh
	$(Q)tests/models/check.sh

# Mutants of the library (-DXS_MUTATE_* builds in build-mut-*/) that its
# tests must kill, failing rather than hanging (tests/mutants/check.sh).
.PHONY: check-mutants
check-mutants:
	$(Q)scripts/deps.sh
	$(Q)tests/mutants/check.sh

# The termination tests against a library without statistics: built with
# -DXS_NO_STATS (xs_counter_inc/add compile to nothing, atomics.h) in
# build-nostats/. The barrier counts with counts of its own (core/barrier.h),
# so these must pass there as in build/.
nostats-tests := barrier-termination-random-trees barrier-waits-for-stolen-frames \
	frames-random-trees-checksum runtime-fib-checksum
.PHONY: check-nostats
check-nostats:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc)) \
		O=build-nostats CFLAGS="-O2 -g -DXS_NO_STATS" kselftest \
		$(nostats-tests:%=build-nostats/tests/%)
	$(Q)XS_SRCDIR=$(CURDIR) XS_BUILDDIR=$(abspath build-nostats) \
		scripts/run-tests.sh $(nostats-tests:%=build-nostats/tests/%)

# make install / uninstall / deb: packaging/install.mk
include packaging/install.mk

# ---------------------------------------------------------------------------
# Targets

.DEFAULT_GOAL := all
.PHONY: all lib tools tests kselftest bench run check check-concurrency \
	check-run check-concurrency-run deps \
	readme-options man-options clean help FORCE

all: lib tools $(bench-programs) cuda daemon

all lib tools tests kselftest:
	@:

kselftest: $(KSELFTEST_HDR)

lib: $(lib-files) $(gomp-files)

tools: $(tool-programs)

tests: $(test-programs) cuda-tests daemon-tests

bench: all $(O)/xsched-bench
	$(O)/xsched-bench $(BENCH_ARGS)

# The main job on a fresh machine: dependencies first (as for check), then
# build, start xschedd when it can, run the benchmark table, stop xschedd
# (scripts/run-main.sh).
run:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc)) all
	$(Q)XS_RUN_FULL=$(FULL) scripts/run-main.sh $(O) $(BENCH_ARGS)

ifeq ($(filter $(O)/xsched-bench,$(bench-programs)),)
$(O)/xsched-bench:
	@echo >&2 "xsched-bench has no objects yet: add bench-y += tools/bench/... to Kbuild"
	@false
endif

deps:
	$(Q)scripts/deps.sh

# check runs in two makes so that what can be built and tested is decided
# after the dependencies are installed: scripts/deps.sh first, then a fresh
# $(MAKE) reads the Makefiles again (bpftool, clang, nvcc found now) and runs
# check-run or check-concurrency-run. The build uses every CPU unless -j was
# given. TESTS names may leave out the .sh and the folder (tests/<area>/).
# The last lines of the run list every skipped test and component with the
# reason (scripts/run-tests.sh, XS_NOT_BUILT).
check-run: check-tests = $(or $(TESTS),$(all-tests))
check-concurrency-run: check-tests = $(or $(TESTS),$(tests-concurrency-y))
test-name = $(or $(filter $(1) $(1).sh %/$(1) %/$(1).sh,$(all-tests)),$(error unknown test '$(1)' (see tests-y in Kbuild)))
test-path = $(if $(filter %.sh,$(1)),tests/$(1),$(O)/tests/$(notdir $(1)))

# What this make could not build, "component: reason" items separated by ';'.
not-built = $(if $(XS_DAEMON_SKIP_WHY),xschedd and its $(words $(tests-daemon-y)) tests: $(XS_DAEMON_SKIP_WHY);)$(if $(XS_CUDA_NVCC),,libxsched-cuda.so and its GPU tests: $(XS_CUDA_SKIP_WHY);)

check check-concurrency:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory $@-run

check-run check-concurrency-run:
	$(Q)$(MAKE) --no-print-directory $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc)) \
		kselftest all tests
	$(Q)XS_SRCDIR=$(CURDIR) XS_BUILDDIR=$(abspath $(O)) SANITIZE=$(SANITIZE) \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0$(if $(LSAN_OPTIONS),:$(LSAN_OPTIONS)) \
		XS_NOT_BUILT='$(if $(TESTS),,$(not-built))' \
		scripts/run-tests.sh $(foreach t,$(check-tests),$(call test-path,$(call test-name,$(t)))) \
			$(if $(TESTS)$(filter check-concurrency-run,$@),,$(XS_CUDA_TESTS))

readme-options: tools
	$(Q)scripts/check-readme-options.sh --update $(O)/xsched-options README.md

# xsched(7)'s ENVIRONMENT entries from the same table.
man-options: tools
	$(Q)scripts/man-options.sh $(O)/xsched-options man/xsched.7

clean:
	$(Q)rm -rf build build-*/ $(O)

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile
	@echo "Kbuild: $(words $(libxsched-y)) library objects, $(words $(all-tests)) tests," \
		"tools: $(or $(tools-y),none)"

FORCE:
