# libxsched/mpi/mpi.mk - build of libxsched-mpi, the PMPI interposition
# layer (docs/mpi.md), once per MPI, and of its tests. Included by the
# top-level Makefile after its configuration and rules (it uses O,
# CFLAGS, SANITIZE, the quiet-command machinery and $(CC)):
#
#     -include libxsched/mpi/mpi.mk
#
# and wires itself in: `all` builds `mpi`, `tests` builds `mpi-tests`, its
# tests join all-tests (so `make check` runs them and `make check
# TESTS=name` finds them), and what it could not build joins the
# not-built list that `make check` prints.
#
# Products, in $(O) (default build):
#   libxsched-mpi-<mpi>.so       for each MPI of mpi-flavours-y whose
#                                mpicc.<mpi> is found (openmpi, mpich)
#   mpi/<mpi>/NAME.o             its objects
#   tests/mpi/<mpi>/NAME         the MPI test programs (mpi-progs-y, and
#                                mpi-omp-progs-y with -fopenmp)
#   bench/mpi/<mpi>/NAME[-libomp] hybrid benchmark programs (mpi-bench-y)
#   xsched-mpi-bench             their runner (tools/bench/mpi/)
#   tests/NAME                   helpers without MPI (mpi-host-progs-y), and
#                                the unit tests of the MPI-free files
#                                (tests-mpi-unit-y: every build, SANITIZE
#                                too, and in tests-concurrency-y)
# A library is built against the MPI's own mpi.h and links that MPI's
# libmpi (libmpi.so.40 for Open MPI, libmpich.so.12 for MPICH): their
# handle types differ, so one build cannot serve both. Nothing is built in
# SANITIZE builds: an instrumented library preloaded into an uninstrumented
# MPI program does not start (ASan must come first, TSan dies).
#
# Everything defined here is prefixed (XS_MPI_*, mpi-*) so that it cannot
# collide with the including Makefile.

XS_MPI_SAVED_GOAL := $(.DEFAULT_GOAL)

mpi-y :=
mpi-flavours-y :=
mpi-progs-y :=
mpi-omp-progs-y :=
mpi-host-progs-y :=
mpi-bench-y :=
tests-mpi-y :=
tests-mpi-unit-y :=
include libxsched/mpi/Kbuild

XS_MPI_O := $(or $(O),build)
XS_MPI_PROG_CFLAGS := -std=gnu11 -fPIC -pthread -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude \
	$(or $(CFLAGS),-O2 -g)
XS_MPI_CFLAGS := $(XS_MPI_PROG_CFLAGS) -Ilibxsched -MMD -MP

# mpicc.<mpi> of each flavour, or empty.
$(foreach f,$(mpi-flavours-y),$(eval XS_MPI_CC_$(f) := $(shell command -v mpicc.$(f) 2>/dev/null)))

ifdef SANITIZE
XS_MPI_BUILT :=
XS_MPI_SKIP_WHY := SANITIZE=$(SANITIZE) build: an instrumented library cannot be preloaded into uninstrumented MPI programs
XS_MPI_NOT_BUILT := libxsched-mpi and its $(words $(tests-mpi-y)) tests: $(XS_MPI_SKIP_WHY);
else
XS_MPI_BUILT := $(foreach f,$(mpi-flavours-y),$(if $(XS_MPI_CC_$(f)),$(f)))
XS_MPI_MISSING := $(filter-out $(XS_MPI_BUILT),$(mpi-flavours-y))
XS_MPI_SKIP_WHY := $(if $(XS_MPI_BUILT),,no mpicc.openmpi or mpicc.mpich (scripts/deps.sh installs them))
XS_MPI_NOT_BUILT := $(foreach f,$(XS_MPI_MISSING),libxsched-mpi-$(f).so: mpicc.$(f) not found (scripts/deps.sh installs it);)
endif

XS_MPI_LIBS := $(foreach f,$(XS_MPI_BUILT),$(XS_MPI_O)/libxsched-mpi-$(f).so)
XS_MPI_PROGS := $(foreach f,$(XS_MPI_BUILT),$(addprefix $(XS_MPI_O)/tests/mpi/$(f)/,$(mpi-progs-y) \
	$(mpi-omp-progs-y)))
# A test or helper registered as AREA/NAME is tests/AREA/NAME.c, built into
# tests/NAME (as in the top-level Makefile).
XS_MPI_HOST_PROGS := $(addprefix $(XS_MPI_O)/tests/,$(notdir $(mpi-host-progs-y)))
# clang with libomp: the benchmark's LLVM OpenMP baseline (mpicc with
# OMPI_CC / MPICH_CC=clang).
XS_MPI_LIBOMP := $(shell printf 'int main(void){return 0;}' | clang -fopenmp -x c - \
	-o /dev/null 2>/dev/null && echo yes)
XS_MPI_BENCH := $(foreach f,$(XS_MPI_BUILT),$(addprefix $(XS_MPI_O)/bench/mpi/$(f)/,$(mpi-bench-y) \
	$(if $(XS_MPI_LIBOMP),$(addsuffix -libomp,$(mpi-bench-y))))) \
	$(if $(XS_MPI_BUILT),$(XS_MPI_O)/xsched-mpi-bench)
XS_MPI_ALL_OBJS := $(foreach f,$(XS_MPI_BUILT),$(addprefix $(XS_MPI_O)/mpi/$(f)/,$(mpi-y)))

.PHONY: mpi mpi-tests mpi-unit-tests mpi-note

all: mpi
tests: mpi-tests mpi-unit-tests
check-run: not-built += $(XS_MPI_NOT_BUILT)

# Unit tests of the files that need no MPI: the project's compiler and
# flags (sanitizers included), the harness, no libxsched.
XS_MPI_UNIT_TESTS := $(addprefix $(XS_MPI_O)/tests/,$(notdir $(tests-mpi-unit-y)))
XS_MPI_UNIT_OBJS := $(patsubst %,$(XS_MPI_O)/tests/%.o,$(tests-mpi-unit-y))
all-tests += $(tests-mpi-unit-y)
tests-concurrency-y += $(tests-mpi-unit-y)
mpi-unit-tests: $(XS_MPI_UNIT_TESTS)
$(XS_MPI_UNIT_OBJS): private prog-flags := $(test-flags)
$(XS_MPI_UNIT_OBJS): | $(KSELFTEST_HDR)
$(foreach t,$(tests-mpi-unit-y),$(eval $(XS_MPI_O)/tests/$(notdir $(t)): $(XS_MPI_O)/tests/$(t).o))
$(XS_MPI_UNIT_TESTS):
	$(call cmd,mpi_unit_link)
quiet_cmd_mpi_unit_link := LD
      cmd_mpi_unit_link = $(CC) $(XS_LDFLAGS) -o $@ $(filter %.o,$^)
-include $(XS_MPI_UNIT_OBJS:.o=.d)

quiet_cmd_mpi_cc := MPICC
      cmd_mpi_cc = $(XS_MPI_THIS_CC) $(XS_MPI_CFLAGS) -c -o $@ $<
quiet_cmd_mpi_so := LD
      cmd_mpi_so = $(XS_MPI_THIS_CC) -shared -pthread -Wl,-soname,$(@F) \
		-Wl,--version-script=$(filter %.map,$^) -Wl,--no-undefined \
		-o $@ $(filter %.o,$^)
quiet_cmd_mpi_prog := MPICC
      cmd_mpi_prog = $(XS_MPI_THIS_CC) $(XS_MPI_PROG_CFLAGS) -o $@ $< -pthread

ifneq ($(XS_MPI_BUILT),)

mpi: $(XS_MPI_LIBS) $(XS_MPI_BENCH)
mpi-tests: mpi $(XS_MPI_PROGS) $(XS_MPI_HOST_PROGS)
all-tests += $(tests-mpi-y)

# One library, its objects and its test programs per MPI.
define xs-mpi-flavour
$(XS_MPI_O)/mpi/$(1)/%.o: libxsched/mpi/%.c $(O)/.flags
	@mkdir -p $$(@D)
	$$(call cmd,mpi_cc)
$(XS_MPI_O)/mpi/$(1)/%.o: private XS_MPI_THIS_CC := $(XS_MPI_CC_$(1))

$(XS_MPI_O)/libxsched-mpi-$(1).so: $(addprefix $(XS_MPI_O)/mpi/$(1)/,$(mpi-y)) \
		libxsched/mpi/libxsched-mpi.map
	$$(call cmd,mpi_so)
$(XS_MPI_O)/libxsched-mpi-$(1).so: private XS_MPI_THIS_CC := $(XS_MPI_CC_$(1))

$(XS_MPI_O)/tests/mpi/$(1)/%: tests/mpi/%.c $(O)/.flags
	@mkdir -p $$(@D)
	$$(call cmd,mpi_prog)
$(XS_MPI_O)/tests/mpi/$(1)/%: private XS_MPI_THIS_CC := $(XS_MPI_CC_$(1))
$(addprefix $(XS_MPI_O)/tests/mpi/$(1)/,$(mpi-omp-progs-y)): private XS_MPI_PROG_CFLAGS += -fopenmp

$(XS_MPI_O)/bench/mpi/$(1)/%-libomp: tools/bench/mpi/%.c $(O)/.flags
	@mkdir -p $$(@D)
	$$(call cmd,mpi_prog)
$(XS_MPI_O)/bench/mpi/$(1)/%-libomp: private XS_MPI_THIS_CC := OMPI_CC=clang MPICH_CC=clang \
	$(XS_MPI_CC_$(1))
$(XS_MPI_O)/bench/mpi/$(1)/%: tools/bench/mpi/%.c $(O)/.flags
	@mkdir -p $$(@D)
	$$(call cmd,mpi_prog)
$(XS_MPI_O)/bench/mpi/$(1)/%: private XS_MPI_THIS_CC := $(XS_MPI_CC_$(1))
$(XS_MPI_O)/bench/mpi/$(1)/%: private XS_MPI_PROG_CFLAGS += -fopenmp
endef
$(foreach f,$(XS_MPI_BUILT),$(eval $(call xs-mpi-flavour,$(f))))

$(foreach t,$(mpi-host-progs-y),$(eval $(XS_MPI_O)/tests/$(notdir $(t)): tests/$(t).c))
$(XS_MPI_HOST_PROGS): $(O)/.flags
	@mkdir -p $(@D)
	$(call cmd,mpi_host)
quiet_cmd_mpi_host := CC
      cmd_mpi_host = $(CC) $(XS_MPI_PROG_CFLAGS) -o $@ $(filter %.c,$^)

$(XS_MPI_O)/xsched-mpi-bench: tools/bench/mpi/xsched-mpi-bench.sh
	@mkdir -p $(@D)
	$(call cmd,mpi_script)
quiet_cmd_mpi_script := GEN
      cmd_mpi_script = install -m 755 $< $@

-include $(XS_MPI_ALL_OBJS:.o=.d)

else

mpi: mpi-note
mpi-tests: mpi-note
mpi-note:
	@echo "mpi: $(XS_MPI_SKIP_WHY): skipping libxsched-mpi and its tests"

endif

.DEFAULT_GOAL := $(XS_MPI_SAVED_GOAL)
