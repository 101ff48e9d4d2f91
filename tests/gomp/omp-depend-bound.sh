#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The drop-in's bound on pending tasks with dependences (libxsched/gomp/
# task.c, xg_deps_bound(): XG_DEPS_QUEUED_MAX = 4096 per thread), at 2
# threads: one thread creates 20000 tasks in a `single`, each depend(inout)
# on one of 8 variables, each task longer than its creation. Past 8192
# created and not completed, the creator runs a new task itself once its
# predecessors completed: it never has more than 8192 created and not
# completed when it creates one (it had 19 999 without the bound). And the
# bound leaves a lookahead: the creator gets more than 128 ahead (the
# earlier bound of 64 per thread, which left the other thread idle in
# sparselu), as it does in its first few hundred microseconds. The
# dependences still hold: the tasks on each variable run one at a time in
# creation order, and the sums are right. A team of one thread runs every
# task at once: never more than 0.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"
. "${XS_SRCDIR:-.}/scripts/tap.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_NUM_THREADS LD_PRELOAD

echo "TAP version 13"
echo "1..4"
cat >"$tmp/bound.c" <<'C'
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 20000, V = 8 };

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	long x[V] = { 0 }, next[V] = { 0 };
	int done = 0, most = 0, inorder = 1;
	volatile double sink = 0;

#pragma omp parallel num_threads(threads)
#pragma omp single
	for (int i = 0; i < N; i++) {
		int d;

#pragma omp atomic read
		d = done;
		if (i - d > most)
			most = i - d;
#pragma omp task firstprivate(i) depend(inout : x[i % V]) shared(x, next, done, sink, inorder)
		{
			int v = i % V;

			/* The tasks on x[v] run one at a time, in creation order. */
			if (next[v] != i / V)
				inorder = 0;
			next[v]++;
			for (int k = 0; k < 3000; k++)
				sink = sink + k;
			x[v] += i;
#pragma omp atomic
			done++;
		}
	}
	for (int v = 0; v < V; v++) {
		long want = 0;

		for (int i = v; i < N; i += V)
			want += i;
		if (x[v] != want)
			inorder = 0;
	}
	printf("most_pending=%d ordered=%d done=%d\n", most, inorder, done);
	return 0;
}
C
if ! gcc -fopenmp -O2 -Wall -Wextra -Werror -o "$tmp/bound" "$tmp/bound.c" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$tmp/out"; }

timeout 120 env LD_PRELOAD="$build/libxsched-gomp.so.1" "$tmp/bound" 2 >"$tmp/out" 2>&1
sed 's/^/# 2 threads: /' "$tmp/out"
most=$(field most_pending)
result "$([ -n "$most" ] && [ "$most" -le 8192 ] && echo 1 || echo 0)" \
	"2 threads: at most 4096 x 2 tasks created and not completed (${most:-no output})"
result "$([ -n "$most" ] && [ "$most" -gt 128 ] && echo 1 || echo 0)" \
	"2 threads: more than 128 tasks created ahead (${most:-no output})"
result "$(grep -q "ordered=1 done=20000" "$tmp/out" && echo 1 || echo 0)" \
	"2 threads: each variable's tasks ran in creation order, sums right"

timeout 120 env LD_PRELOAD="$build/libxsched-gomp.so.1" "$tmp/bound" 1 >"$tmp/out" 2>&1
sed 's/^/# 1 thread: /' "$tmp/out"
result "$(grep -q "most_pending=0 ordered=1 done=20000" "$tmp/out" && echo 1 || echo 0)" \
	"1 thread: every task ran at once, in order"
exit $failed
