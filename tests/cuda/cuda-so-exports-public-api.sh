#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# libxsched-cuda.so exports exactly the functions declared in
# include/xsched/cuda.h, at version XSCHED_CUDA_0.1
# (libxsched/cuda/xsched-cuda.map), and nothing else: no CUDA runtime, no
# C++ or kernel symbols leak out of the static cudart it carries.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
so=$build/libxsched-cuda.so

echo "TAP version 13"
if [[ ! -f $so ]]; then
	echo "1..0 # SKIP $so not built (no nvcc)"
	exit 4
fi
echo "1..3"

. "$src/scripts/tap-exports.sh"
check_exports "$so" "$src/include/xsched/cuda.h" XSCHED_CUDA_0.1
exit $failed
