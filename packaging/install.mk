# packaging/install.mk - make install / make uninstall, the pkg-config
# files and make deb. Included by the top-level Makefile after the program
# lists and daemon/daemon.mk, libxsched/cuda/cuda.mk (it uses O, SONAME,
# SOFILE, GOMP_FILE, tool-programs, XS_DAEMON_BIN, XS_CUDA_SO).
#
#   make install   [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=...] ...
#   make uninstall (the same variables: removes exactly what install put)
#   make deb       dpkg-buildpackage -b -us -uc, the .debs in $(O)/deb/
#   make check-system  the .debs under systemd in a QEMU guest, and the
#                  NUMA tests on 2- and 4-node guests
#
# Layout (every directory can be set on the command line):
#   $(LIBDIR)            libxsched.so.M.m, .so.M, .so, .a, pkgconfig/xsched.pc
#                        (libxsched-cuda.so and xsched-cuda.pc when built)
#   $(PKGLIBDIR)         the libgomp drop-in: libxsched-gomp.so.1 and the
#                        link libgomp.so.1. A directory of its own, which
#                        ldconfig does not scan: only xsched-run (which
#                        finds it relative to itself, a path compiled in)
#                        and an explicit LD_LIBRARY_PATH reach it, so other
#                        OpenMP programs keep gcc's libgomp.
#   $(INCLUDEDIR)        xsched.h, xsched/abi.h, xsched/abi_pread.h,
#                        xsched/stats_page.h, xsched/stats_page_file.h,
#                        xsched/proc_start.h, xsched/task_inline.h,
#                        xsched/task_typed.h
#                        (xsched/cuda.h with libxsched-cuda.so)
#   $(BINDIR)            xsched-run, xsched-top, xsched-trace, xsched-options
#   $(SBINDIR)           xschedd
#   $(UNITDIR)           xschedd.service, its paths set to SBINDIR, SYSCONFDIR
#   $(SYSCONFDIR)/default/xschedd   the settings (kept if it exists)
#   $(MANDIR)/man{1,3,7,8}          man/*.[1378]
#   $(COMPLETIONSDIR)    bash completion, one file per tool and xschedd
#
# Everything defined here is prefixed (install-*, XS_INST_*) or is one of
# the GNU-style directory variables.

PREFIX ?= /usr/local
# Debian's multiarch directory (lib/x86_64-linux-gnu) where dpkg says one;
# ld.so searches it under /usr and /usr/local alike. Asked once, and only
# when a rule needs it (dpkg-architecture takes a good part of a second):
# $(call xs-inst-once,VAR,COMMAND) memoizes COMMAND's output in VAR.
xs-inst-once = $(eval $(1) := $$(shell $(2)))$($(1))
XS_INST_MULTIARCH = $(call xs-inst-once,XS_INST_MULTIARCH,\
	$(if $(DEB_HOST_MULTIARCH),echo $(DEB_HOST_MULTIARCH),\
	dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null))
LIBDIR ?= $(PREFIX)/lib$(if $(XS_INST_MULTIARCH),/$(XS_INST_MULTIARCH))
PKGLIBDIR ?= $(LIBDIR)/xsched
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
COMPLETIONSDIR ?= $(PREFIX)/share/bash-completion/completions
# xschedd reads /etc/default/xschedd whatever the prefix; a prefix of its
# own (/opt/xsched) gets its own etc/.
SYSCONFDIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),/etc,$(PREFIX)/etc)
# The unit follows PREFIX: systemd's own directory (pkg-config systemd)
# for /usr, $(PREFIX)/lib/systemd/system otherwise, which systemd also
# reads for /usr/local and which stays inside any other prefix.
XS_INST_UNITDIR = $(call xs-inst-once,XS_INST_UNITDIR,\
	pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),$(or $(XS_INST_UNITDIR),/lib/systemd/system),$(PREFIX)/lib/systemd/system)

INSTALL ?= install
XS_INST_D = $(DESTDIR)

# xsched-run finds the drop-in at this path relative to its own directory
# (a relative path, so that a tree installed under DESTDIR, or moved as a
# whole, works too). It is compiled in: a change of BINDIR or PKGLIBDIR
# rebuilds xsched-run.
XS_INST_GOMP_REL = $(call xs-inst-once,XS_INST_GOMP_REL,\
	realpath -m --relative-to=$(BINDIR) $(PKGLIBDIR))
$(O)/tools/xsched-run/main.o: private prog-flags = -DXS_RUN_GOMP_DIR='"$(XS_INST_GOMP_REL)"'
$(O)/tools/xsched-run/main.o: $(O)/.install-paths
$(O)/.install-paths: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = '$(XS_INST_GOMP_REL)' ] || \
		printf '%s\n' '$(XS_INST_GOMP_REL)' >$@

# The products, by where they go. The tools are the installed ones of
# tools-y: the benchmarks' helpers (xschedd-bench) stay in the tree.
XS_INST_TOOLS := $(filter-out $(O)/xschedd-bench,$(tool-programs))
XS_INST_HEADERS := include/xsched.h include/xsched/abi.h include/xsched/stats_page.h \
	include/xsched/abi_pread.h include/xsched/stats_page_file.h include/xsched/proc_start.h \
	include/xsched/task_inline.h include/xsched/task_typed.h
XS_INST_CUDA := $(if $(filter $(XS_CUDA_SO),$(XS_CUDA_ALL)),$(XS_CUDA_SO))
XS_INST_DAEMON := $(if $(XS_DAEMON_SKIP_WHY),,$(XS_DAEMON_BIN))
XS_INST_MAN := $(wildcard man/*.[1378])
# packaging/completions/xsched serves every tool: a copy under each name,
# as bash-completion loads completions/COMMAND on first use.
XS_INST_COMPLETIONS := $(notdir $(XS_INST_TOOLS)) $(if $(XS_INST_DAEMON),xschedd)

# pkg-config files, written from the directories above.
quiet_cmd_pc := GEN
      cmd_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION_MAJOR).$(VERSION_MINOR)|' \
		-e 's|@LIBS_PRIVATE@|$(libxsched-ldlibs-y)|' $< >$@.tmp && mv $@.tmp $@

$(O)/xsched.pc $(O)/xsched-cuda.pc: $(O)/%.pc: packaging/%.pc.in $(O)/.install-dirs
	$(call cmd,pc)

$(O)/xschedd.service: packaging/xschedd.service $(O)/.install-dirs
	$(Q)sed -e 's|/usr/sbin/xschedd|$(SBINDIR)/xschedd|g' \
		-e 's|/etc/default/xschedd|$(SYSCONFDIR)/default/xschedd|g' $< >$@

XS_INST_DIRS = $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(SBINDIR) $(SYSCONFDIR)
$(O)/.install-dirs: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = '$(XS_INST_DIRS)' ] || printf '%s\n' '$(XS_INST_DIRS)' >$@

.PHONY: install uninstall deb install-dirs check-system

# Into the live system (no DESTDIR), the dynamic linker's cache must learn
# of the library, or the first program linked with -lxsched exits 127:
# ldconfig when we may, else one line saying to run it. A staged install
# (DESTDIR, packages) leaves that to whoever installs the stage.
xs-inst-ldconfig = $(if $(DESTDIR),,@if [ -w /etc/ld.so.cache ] || [ ! -e /etc/ld.so.cache -a -w /etc ]; \
	then ldconfig && echo "  LDCONFIG $(LIBDIR)"; \
	else echo "make: run ldconfig as root, so that programs find $(SONAME) in $(LIBDIR)"; fi)

# NAME=value lines of the directories install uses (for tests, scripts).
install-dirs:
	@printf '%s\n' PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) PKGLIBDIR=$(PKGLIBDIR) \
		BINDIR=$(BINDIR) SBINDIR=$(SBINDIR) INCLUDEDIR=$(INCLUDEDIR) \
		MANDIR=$(MANDIR) PKGCONFIGDIR=$(PKGCONFIGDIR) SYSCONFDIR=$(SYSCONFDIR) \
		UNITDIR=$(UNITDIR) COMPLETIONSDIR=$(COMPLETIONSDIR)

install: lib tools daemon $(XS_INST_CUDA) $(O)/xsched.pc $(O)/xschedd.service \
	 $(if $(XS_INST_CUDA),$(O)/xsched-cuda.pc)
	$(INSTALL) -d $(XS_INST_D)$(LIBDIR) $(XS_INST_D)$(PKGLIBDIR) \
		$(XS_INST_D)$(PKGCONFIGDIR) $(XS_INST_D)$(INCLUDEDIR)/xsched \
		$(XS_INST_D)$(BINDIR) $(XS_INST_D)$(MANDIR)
	$(INSTALL) -m 0644 $(O)/$(SOFILE) $(XS_INST_D)$(LIBDIR)/
	ln -sf $(SOFILE) $(XS_INST_D)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(XS_INST_D)$(LIBDIR)/libxsched.so
	$(INSTALL) -m 0644 $(O)/libxsched.a $(XS_INST_D)$(LIBDIR)/
	$(INSTALL) -m 0644 $(O)/xsched.pc $(XS_INST_D)$(PKGCONFIGDIR)/
	$(INSTALL) -m 0644 $(O)/$(GOMP_FILE) $(XS_INST_D)$(PKGLIBDIR)/
	ln -sf $(GOMP_FILE) $(XS_INST_D)$(PKGLIBDIR)/libgomp.so.1
	$(INSTALL) -m 0644 include/xsched.h $(XS_INST_D)$(INCLUDEDIR)/
	$(INSTALL) -m 0644 $(filter include/xsched/%,$(XS_INST_HEADERS)) \
		$(XS_INST_D)$(INCLUDEDIR)/xsched/
	$(INSTALL) -m 0755 $(XS_INST_TOOLS) $(XS_INST_D)$(BINDIR)/
ifneq ($(XS_INST_CUDA),)
	$(INSTALL) -m 0644 $(XS_INST_CUDA) $(XS_INST_D)$(LIBDIR)/
	$(INSTALL) -m 0644 include/xsched/cuda.h $(XS_INST_D)$(INCLUDEDIR)/xsched/
	$(INSTALL) -m 0644 $(O)/xsched-cuda.pc $(XS_INST_D)$(PKGCONFIGDIR)/
endif
ifneq ($(XS_INST_DAEMON),)
	$(INSTALL) -d $(XS_INST_D)$(SBINDIR) $(XS_INST_D)$(UNITDIR) \
		$(XS_INST_D)$(SYSCONFDIR)/default
	$(INSTALL) -m 0755 $(XS_INST_DAEMON) $(XS_INST_D)$(SBINDIR)/
	$(INSTALL) -m 0644 $(O)/xschedd.service $(XS_INST_D)$(UNITDIR)/
	[ -e $(XS_INST_D)$(SYSCONFDIR)/default/xschedd ] || \
		$(INSTALL) -m 0644 packaging/xschedd.default \
			$(XS_INST_D)$(SYSCONFDIR)/default/xschedd
endif
	set -e; for p in $(XS_INST_MAN); do \
		s=$${p##*.}; $(INSTALL) -d $(XS_INST_D)$(MANDIR)/man$$s; \
		$(INSTALL) -m 0644 $$p $(XS_INST_D)$(MANDIR)/man$$s/; done
	$(INSTALL) -d $(XS_INST_D)$(COMPLETIONSDIR)
	set -e; for t in $(XS_INST_COMPLETIONS); do \
		$(INSTALL) -m 0644 packaging/completions/xsched $(XS_INST_D)$(COMPLETIONSDIR)/$$t; done
	$(call xs-inst-ldconfig)

# Removes what install put, and the directories of our own (PKGLIBDIR,
# INCLUDEDIR/xsched) when they are then empty; shared directories
# (bin, lib, man1) stay. /etc/default/xschedd is removed only when it is
# still the file install put there: an edited one is the administrator's.
uninstall:
	rm -f $(addprefix $(XS_INST_D)$(LIBDIR)/,$(SOFILE) $(SONAME) libxsched.so \
		libxsched.a libxsched-cuda.so)
	rm -f $(addprefix $(XS_INST_D)$(PKGCONFIGDIR)/,xsched.pc xsched-cuda.pc)
	rm -f $(addprefix $(XS_INST_D)$(PKGLIBDIR)/,$(GOMP_FILE) libgomp.so.1)
	rm -f $(addprefix $(XS_INST_D)$(INCLUDEDIR)/,$(XS_INST_HEADERS:include/%=%)) \
		$(XS_INST_D)$(INCLUDEDIR)/xsched/cuda.h
	rm -f $(addprefix $(XS_INST_D)$(BINDIR)/,$(notdir $(XS_INST_TOOLS)))
	rm -f $(XS_INST_D)$(SBINDIR)/xschedd $(XS_INST_D)$(UNITDIR)/xschedd.service
	rm -f $(addprefix $(XS_INST_D)$(COMPLETIONSDIR)/,$(XS_INST_COMPLETIONS) xschedd)
	! cmp -s packaging/xschedd.default $(XS_INST_D)$(SYSCONFDIR)/default/xschedd || \
		rm -f $(XS_INST_D)$(SYSCONFDIR)/default/xschedd
	set -e; for p in $(notdir $(XS_INST_MAN)); do \
		rm -f $(XS_INST_D)$(MANDIR)/man$${p##*.}/$$p; done
	! [ -d $(XS_INST_D)$(PKGLIBDIR) ] || rmdir $(XS_INST_D)$(PKGLIBDIR)
	! [ -d $(XS_INST_D)$(INCLUDEDIR)/xsched ] || rmdir $(XS_INST_D)$(INCLUDEDIR)/xsched
	$(call xs-inst-ldconfig)

# The Debian packages (debian/), built from a copy of this tree's files
# (git's list: tracked and new, not ignored) in $(O)/deb/src, so that
# dpkg-buildpackage writes its .debs into $(O)/deb/ and nothing beside
# the tree. lintian then fails the target on any error or warning
# (debian/*.lintian-overrides explain the few it may not report).
deb:
	rm -rf $(O)/deb && mkdir -p $(O)/deb/src
	git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t $(O)/deb/src
	cd $(O)/deb/src && dpkg-buildpackage -b -us -uc
	lintian --fail-on error,warning $(O)/deb/*.changes
	@ls $(O)/deb/*.deb

# The .debs on a Debian 12 guest with systemd as PID 1 and the NUMA tests
# on guests with 2 and 4 nodes (scripts/check-system.sh: QEMU with KVM
# when a probe shows that it boots, else TCG when that fits the budget,
# else SKIP; without /dev/kvm it SKIPs unless XS_SYSTEM_TCG=1). QEMU and
# mmdebstrap are installed only where a guest may run. The guest image is
# built once into ~/.cache/xsched/system/.
check-system:
	$(Q)scripts/deps.sh $(if $(or $(filter 1,$(XS_SYSTEM_TCG)),$(wildcard /dev/kvm)),--system)
	$(Q)$(MAKE) --no-print-directory kselftest
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)scripts/check-system.sh $(O)
