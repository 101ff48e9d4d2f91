# daemon/daemon.mk - build of xschedd, its BPF programs and its tests.
# Included by the top-level Makefile after its configuration and rules
# (it uses O, XS_CFLAGS, test-flags, KSELFTEST_HDR, the quiet-command
# machinery and the $(O)/%.o rule):
#
#     -include daemon/daemon.mk
#     all: daemon
#     tests: daemon-tests
#
# Its tests join the Makefile's test list (all-tests), so `make check` runs
# them and `make check TESTS=name` finds them.
#
# Products, in $(O) (default build):
#   bpf/vmlinux.h          `bpftool btf dump` of /sys/kernel/btf/vmlinux
#   bpf/NAME.bpf.o         clang -target bpf, CO-RE
#   bpf/NAME.skel.h        bpftool gen skeleton
#   xschedd                the daemon (libbpf, liburing, libcap; libxsched.a
#                          for the topology and victim tables)
#   tests/NAME             tests-daemon-y (from tests/AREA/NAME.c)
# Nothing generated is committed. Without kernel BTF, bpftool or clang the
# daemon and its tests are not built and `make` says why.
#
# Everything defined here is prefixed (XS_DAEMON_*, daemon-*) so that it
# cannot collide with the including Makefile.

XS_DAEMON_SAVED_GOAL := $(.DEFAULT_GOAL)

daemon-bpf-y :=
xschedd-y :=
tests-daemon-y :=
include daemon/Kbuild

XS_DAEMON_O := $(or $(O),build)
XS_DAEMON_BTF ?= /sys/kernel/btf/vmlinux
XS_DAEMON_BPFTOOL ?= $(firstword $(shell command -v bpftool 2>/dev/null) \
				 $(wildcard /usr/sbin/bpftool))
XS_DAEMON_CLANG ?= $(shell command -v clang 2>/dev/null)
XS_DAEMON_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
			-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')

XS_DAEMON_SKIP_WHY :=
ifeq ($(wildcard $(XS_DAEMON_BTF)),)
XS_DAEMON_SKIP_WHY := no kernel BTF at $(XS_DAEMON_BTF)
endif
ifeq ($(XS_DAEMON_BPFTOOL),)
XS_DAEMON_SKIP_WHY := bpftool not found (scripts/deps.sh installs it)
endif
ifeq ($(XS_DAEMON_CLANG),)
XS_DAEMON_SKIP_WHY := clang not found (scripts/deps.sh installs it)
endif

XS_DAEMON_BPF_DIR := $(XS_DAEMON_O)/bpf
XS_DAEMON_VMLINUX := $(XS_DAEMON_BPF_DIR)/vmlinux.h
XS_DAEMON_BPF_OBJS := $(addprefix $(XS_DAEMON_BPF_DIR)/,$(addsuffix .bpf.o,$(daemon-bpf-y)))
XS_DAEMON_SKELS := $(XS_DAEMON_BPF_OBJS:.bpf.o=.skel.h)
XS_DAEMON_OBJS := $(addprefix $(XS_DAEMON_O)/,$(xschedd-y))
XS_DAEMON_LIB_OBJS := $(filter-out %/main.o,$(XS_DAEMON_OBJS))
XS_DAEMON_BIN := $(XS_DAEMON_O)/xschedd
XS_DAEMON_LDLIBS := -lbpf -luring -lcap
# A test registered as AREA/NAME is tests/AREA/NAME.c, its object
# tests/AREA/NAME.o and its program tests/NAME (as in the Makefile).
XS_DAEMON_C_ENTRIES := $(filter-out %.sh,$(tests-daemon-y))
XS_DAEMON_C_TESTS := $(addprefix $(XS_DAEMON_O)/tests/,$(notdir $(XS_DAEMON_C_ENTRIES)))
XS_DAEMON_C_TEST_OBJS := $(patsubst %,$(XS_DAEMON_O)/tests/%.o,$(XS_DAEMON_C_ENTRIES))
# BPF_PROG() expands into functions with a ctx parameter most programs
# do not use, hence -Wno-unused-parameter. -mcpu=v3: compare-and-swap
# (Linux 5.12).
XS_DAEMON_BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(XS_DAEMON_ARCH) \
	-Wall -Wextra -Werror -Wno-unused-parameter -I$(XS_DAEMON_BPF_DIR) -Ibpf -Iinclude

.PHONY: daemon daemon-tests daemon-note

ifeq ($(XS_DAEMON_SKIP_WHY),)

daemon: $(XS_DAEMON_BIN)
daemon-tests: daemon $(XS_DAEMON_C_TESTS)
all-tests += $(tests-daemon-y)

$(XS_DAEMON_VMLINUX):
	@mkdir -p $(@D)
	$(call cmd,daemon_vmlinux)
quiet_cmd_daemon_vmlinux := GEN
      cmd_daemon_vmlinux = $(XS_DAEMON_BPFTOOL) btf dump file $(XS_DAEMON_BTF) format c \
		>$@.tmp && mv $@.tmp $@

$(XS_DAEMON_BPF_DIR)/%.bpf.o: bpf/%.bpf.c bpf/%_bpf.h include/xsched/abi.h $(XS_DAEMON_VMLINUX)
	$(call cmd,daemon_bpf)
quiet_cmd_daemon_bpf := BPF
      cmd_daemon_bpf = $(XS_DAEMON_CLANG) $(XS_DAEMON_BPF_CFLAGS) -c $< -o $@

$(XS_DAEMON_BPF_DIR)/%.skel.h: $(XS_DAEMON_BPF_DIR)/%.bpf.o
	$(call cmd,daemon_skel)
quiet_cmd_daemon_skel := SKEL
      cmd_daemon_skel = $(XS_DAEMON_BPFTOOL) gen skeleton $< name $(*F)_bpf >$@.tmp && \
		mv $@.tmp $@

# Kept: make would delete them as intermediates of the skeletons.
.SECONDARY: $(XS_DAEMON_BPF_OBJS)

# The skeletons are generated headers: every daemon object waits for them.
$(XS_DAEMON_OBJS): private prog-flags := -I$(XS_DAEMON_BPF_DIR) -Ibpf -Idaemon
$(XS_DAEMON_OBJS): | $(XS_DAEMON_SKELS)

$(XS_DAEMON_BIN): $(XS_DAEMON_OBJS) $(O)/libxsched.a
$(XS_DAEMON_BIN): private prog-linker := $(CC)
$(XS_DAEMON_BIN): private prog-ldlibs := $(XS_DAEMON_LDLIBS)
$(XS_DAEMON_BIN): private prog-flags :=
$(XS_DAEMON_BIN):
	$(call cmd,link)

# Tests: the harness flags, the daemon's headers, its objects but main.o.
$(XS_DAEMON_C_TEST_OBJS): private prog-flags := $(test-flags) -I$(XS_DAEMON_BPF_DIR) \
	-Ibpf -Idaemon
$(XS_DAEMON_C_TEST_OBJS): | $(KSELFTEST_HDR) $(XS_DAEMON_SKELS)
$(foreach t,$(XS_DAEMON_C_ENTRIES),$(eval $(XS_DAEMON_O)/tests/$(notdir $(t)): $(XS_DAEMON_O)/tests/$(t).o))
$(XS_DAEMON_C_TESTS): $(XS_DAEMON_LIB_OBJS) $(O)/libxsched.a
$(XS_DAEMON_C_TESTS): private prog-linker := $(CC)
$(XS_DAEMON_C_TESTS): private prog-ldlibs := $(XS_DAEMON_LDLIBS)
$(XS_DAEMON_C_TESTS): private prog-flags :=
$(XS_DAEMON_C_TESTS):
	$(call cmd,link)

-include $(XS_DAEMON_OBJS:.o=.d) $(XS_DAEMON_C_TEST_OBJS:.o=.d)

else

daemon: daemon-note
daemon-tests: daemon-note
daemon-note:
	@echo "daemon: $(XS_DAEMON_SKIP_WHY): skipping xschedd and its tests"

endif

.DEFAULT_GOAL := $(XS_DAEMON_SAVED_GOAL)
