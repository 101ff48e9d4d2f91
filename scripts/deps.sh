#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# deps.sh - install the Debian packages that building and testing xsched need.
#
# Idempotent and silent when everything is installed; otherwise runs
# `apt-get update` and installs only what is missing (as root, or via sudo).
# To add a dependency, add a line to PACKAGES.
#
# deps.sh --system also installs SYSTEM_PACKAGES, what make check-system
# needs to boot its guests (scripts/check-system.sh).
set -euo pipefail

PACKAGES=(
	build-essential   # gcc, g++, make, binutils
	clang             # the second compiler every commit must build with
	libnuma-dev       # NUMA memory placement (the drop-in's allocator), tests' kernel view
	libhwloc-dev      # the machine's topology and device locality (libxsched/topo)
	libtbb-dev        # oneTBB, a baseline of the benchmarks
	libomp-dev        # LLVM libomp, a baseline of the benchmarks
	libomp-14-dev     # omp-tools.h (the drop-in's OMPT), libarcher.so (tests/gomp/ompt-archer.sh)
	linux-source-6.1  # tools/testing/selftests/kselftest_harness.h
	xz-utils          # to unpack linux-source
	r-cran-matrix     # .mtx test matrices (tests/cuda/cuda-*, xsched-spmv-bench)
	libbpf-dev        # xschedd: BPF skeletons load and attach through libbpf
	bpftool           # vmlinux.h from the kernel's BTF, BPF skeletons
	liburing-dev      # xschedd: its one io_uring event loop
	libcap-dev        # xschedd: drops every capability it no longer needs
	systemd           # systemd-analyze verify of packaging/xschedd.service
	libncurses-dev    # xsched-top's screen (tools/xsched-top)
	tmux              # tests/obs/xsched-top-tui-keys drives the screen through it
	libcairo2-dev     # xsched-trace plot draws its timeline with cairo
	libotf2-trace-dev # xsched-trace otf2 writes OTF2 archives through libotf2
	otf2-tools        # tests/obs/xsched-trace-otf2.sh reads them back with otf2-print
	libopenblas0-pthread # xsched-bench --dgemm: threaded OpenBLAS baseline, and its kernel
	libblis4-pthread  # xsched-bench --dgemm: threaded BLIS baseline
	# --- install, packaging, system service ---
	groff-base        # tests/system/man-pages.sh: groff -man -ww lints man/
	debhelper         # make deb: debian/rules (dh), dh-sequence-*
	lintian           # make deb: the packages' lint
	pkg-config        # tests/system/install-destdir.sh: xsched.pc; make deb: Build-Depends
	dpkg-dev          # make install: dpkg-architecture (multiarch LIBDIR); make deb
	libclang-rt-14-dev # make fuzz: libFuzzer (libclang_rt.fuzzer) and clang's sanitizer runtimes
	spin              # make check-models (tests/models) and tests/core/rescue-claim-model.sh: Promela
	gcc-12-source     # tests/gomp/libgomp-testsuite.sh: gcc 12's own libgomp testsuite
	libmetis-dev      # xsched-affinity, xsched-bench --affinity: METIS partitions affinity graphs
	openmpi-bin libopenmpi-dev mpich libmpich-dev # libxsched-mpi is built against both MPIs, its tests run both (libxsched/mpi/)
)

SYSTEM_PACKAGES=(
	qemu-system-x86   # the guests of make check-system
	mmdebstrap        # their Debian 12 image
	e2fsprogs         # mkfs.ext4 -d: the image's root file system
)
if [[ ${1:-} == --system ]]; then
	PACKAGES+=("${SYSTEM_PACKAGES[@]}")
elif (($#)); then
	echo "deps.sh: unknown argument \"$1\" (only --system)" >&2
	exit 2
fi

if ! command -v dpkg-query >/dev/null; then
	echo "deps.sh: not a Debian system; install the equivalents of: ${PACKAGES[*]}" >&2
	exit 0
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null) || true
	[[ $status == installed ]] || missing+=("$pkg")
done
((${#missing[@]})) || exit 0

echo "deps.sh: installing ${missing[*]}" >&2
sudo=()
if ((EUID != 0)); then
	command -v sudo >/dev/null || {
		echo "deps.sh: not root and no sudo; please install: ${missing[*]}" >&2
		exit 1
	}
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq </dev/null
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
