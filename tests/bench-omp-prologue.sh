# SPDX-License-Identifier: MIT
# Sourced by the tests of xsched-bench's OpenMP cells: src, build, bench
# (xsched-bench), omp (xsched-bench-omp) and scripts/tap.sh's helpers; the
# test is skipped, naming what is missing, when the bench, its OpenMP child
# or the drop-in is not built.
src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
bench=$build/xsched-bench
omp=$build/xsched-bench-omp
. "$src/scripts/tap.sh"

if [[ ! -x $bench || ! -x $omp || ! -e $build/libxsched-gomp.so.1 ]]; then
	echo "1..0 # SKIP $bench, xsched-bench-omp or libxsched-gomp.so.1 not built (make)"
	exit 4
fi
