#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# mutexinoutset on the drop-in is a set, not a chain: members of one set
# exclude each other but do not wait for each other, so a member whose other
# dependence is slow does not hold back a later member (libgomp orders them
# like inout, which OpenMP allows but does not require). Exclusion itself
# and the dependences on what comes before and after a set are checked by
# the corpus (tests/omp/depend.c), under both runtimes.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_NUM_THREADS LD_PRELOAD

echo "TAP version 13"
echo "1..2"
cat >"$tmp/sets.c" <<'C'
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

/* A (in: y, slow to become ready) and B are one mutexinoutset set on x. */
int main(void)
{
	int x = 0, y = 0, inside = 0, most = 0;
	double a_start = 0, b_end = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
	{
#pragma omp task depend(out : y)
		{
			usleep(200000);
			y = 1;
		}
#pragma omp task depend(mutexinoutset : x) depend(in : y)
		{
			int now;
#pragma omp atomic capture
			now = ++inside;
			if (now > most)
				most = now;
			a_start = omp_get_wtime();
			x += y;
#pragma omp atomic
			inside--;
		}
#pragma omp task depend(mutexinoutset : x)
		{
			int now;
#pragma omp atomic capture
			now = ++inside;
			if (now > most)
				most = now;
			x += 10;
			b_end = omp_get_wtime();
#pragma omp atomic
			inside--;
		}
#pragma omp task depend(in : x)
		printf("x=%d\n", x);
	}
	printf("exclusive=%d b_first=%d\n", most == 1, b_end < a_start);
	return 0;
}
C
if ! gcc -fopenmp -O2 -Wall -Wextra -Werror -o "$tmp/sets" "$tmp/sets.c" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi
timeout 60 env LD_PRELOAD="$build/libxsched-gomp.so.1" "$tmp/sets" >"$tmp/out" 2>&1
cat "$tmp/out" | sed 's/^/# /'
failed=0
if grep -qx "x=11" "$tmp/out" && grep -q "exclusive=1" "$tmp/out"; then
	echo "ok 1 a set's members exclude each other, and what follows waits for all"
else
	echo "not ok 1 a set's members exclude each other, and what follows waits for all"
	failed=1
fi
if grep -q "b_first=1" "$tmp/out"; then
	echo "ok 2 a member does not wait for an earlier member of its set"
else
	echo "not ok 2 a member does not wait for an earlier member of its set"
	failed=1
fi
exit $failed
