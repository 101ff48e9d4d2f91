# SPDX-License-Identifier: MIT
# Sourced by the tests that build a small gcc -fopenmp probe and run it
# under the system libgomp and the drop-in, comparing what each prints:
# the drop-in guard (omp-preload-guard.sh), then the paths they share -
# src, build, dropin (the drop-in), cc (OMP_CORPUS_CC, default gcc), out
# (build/tests/<test name>, for the probe binaries) and tmp (removed at
# exit) - and an environment with no OpenMP, libgomp, libomp or xsched
# variable and no LD_PRELOAD, so that each case sets exactly what it tests.
. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
dropin=$build/libxsched-gomp.so.1
out=$build/tests/$(basename "$0" .sh)
cc=${OMP_CORPUS_CC:-gcc}

while read -r var; do
	unset "$var"
done < <(compgen -e | grep -E '^(OMP|GOMP|KMP|XSCHED)_')
unset LD_PRELOAD

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
