#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A deep tree of tiny untied tasks with taskwait spreads over the team
# (libxsched/gomp/task.c: every deferred task is a frame a thief can take),
# at 2 threads. The tree is uts-like: one long spine (the heavy tail of a
# binomial tree with 8 children a node), each spine node with 7 leaf
# children and one child that continues the spine, a task each, then a
# taskwait. The test checks that an idle thread is given work from deep
# in the tree, not only from its first levels:
#  - at depth DEEP the spine node keeps creating leaves until the other
#    thread has run some task at depth >= DEEP (or a 20 s deadline
#    passes, so that a run without it ends); then the spine goes on to
#    depth SPINE;
#  - both threads ran tasks at depth >= DEEP, and every task ran once
#    (the tasks counted equal the tasks created).
# Only executions are counted, per thread; nothing is timed. When tasks
# whose ancestors held 16 frames on their thread ran their children at
# once, in serial order, the thread holding the spine ran all of it
# alone (the other found nothing to take below the first levels) and this
# failed after the deadline: 0 deep tasks on one thread, over 10^8 on the
# other.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"
. "${XS_SRCDIR:-.}/scripts/tap.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_NUM_THREADS LD_PRELOAD

echo "TAP version 13"
echo "1..3"
cat >"$tmp/tree.c" <<'C'
#include <omp.h>
#include <stdio.h>

enum { SPINE = 2000, DEEP = 200, LEAVES = 7 };

static long created, ran, deep_ran[2];
static double deadline;

static long deep_ran_by(int t)
{
	long c;

#pragma omp atomic read
	c = deep_ran[t];
	return c;
}

/* A task at @depth starts on the calling thread. */
static void count(int depth)
{
	int me = omp_get_thread_num();

#pragma omp atomic
	ran++;
	if (depth >= DEEP) {
#pragma omp atomic
		deep_ran[me]++;
	}
}

static void node(int depth)
{
	int me = omp_get_thread_num();

	count(depth);
	if (depth == SPINE)
		return;
	for (int i = 0; i < LEAVES || (depth == DEEP && !deep_ran_by(1 - me) &&
				       omp_get_wtime() < deadline); i++) {
#pragma omp atomic
		created++;
#pragma omp task untied firstprivate(depth)
		count(depth + 1);
	}
#pragma omp atomic
	created++;
#pragma omp task untied firstprivate(depth)
	node(depth + 1);
#pragma omp taskwait
}

int main(void)
{
	deadline = omp_get_wtime() + 20;
#pragma omp parallel num_threads(2)
#pragma omp single
	{
#pragma omp atomic
		created++;
#pragma omp task untied
		node(0);
#pragma omp taskwait
	}
	printf("created=%ld ran=%ld deep0=%ld deep1=%ld\n", created, ran, deep_ran[0],
	       deep_ran[1]);
	return 0;
}
C
if ! gcc -fopenmp -O2 -Wall -Wextra -Werror -o "$tmp/tree" "$tmp/tree.c" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$tmp/out"; }

timeout 120 env LD_PRELOAD="$build/libxsched-gomp.so.1" "$tmp/tree" >"$tmp/out" 2>&1
status=$?
sed 's/^/# /' "$tmp/out"
result "$((status == 0))" "the tree runs to its end ($(describe $status))"
created=$(field created) ran=$(field ran)
result "$([ -n "$created" ] && [ "$created" = "$ran" ] && echo 1 || echo 0)" \
	"every task ran once (created ${created:-?}, ran ${ran:-?})"
d0=$(field deep0) d1=$(field deep1)
result "$([ "${d0:-0}" -gt 0 ] && [ "${d1:-0}" -gt 0 ] && echo 1 || echo 0)" \
	"both threads ran tasks deep in the tree (${d0:-?} and ${d1:-?})"
exit $failed
