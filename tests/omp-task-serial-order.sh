#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The drop-in's bound on queued tasks (libxsched/gomp/task.c, XG_QUEUED_MAX
# = 64): a thread that creates 4000 tasks in a loop at 2 threads never has
# more than the bound, plus what a thief moved out and has not started,
# created and not yet started (before the bound, the 256-slot queue filled);
# and while it creates them, the tasks it runs itself start in the order it
# created them, also past the bound, where new tasks run undeferred: it
# runs its queued elder siblings first, as the serial program would.
# (libgomp runs a new task ahead of its queued siblings past its own bound,
# so this is the drop-in's property, not the corpus's.) Tasks a thief took
# and the creator takes back at the taskwait are the scheduler core's
# business and are not checked here.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_NUM_THREADS LD_PRELOAD

echo "TAP version 13"
echo "1..2"
cat >"$tmp/order.c" <<'C'
#include <omp.h>
#include <stdio.h>

#define N 4000

static int seq[N];

int main(void)
{
	int ran = 0, ordered = 1, creator = -1, most = 0, started = 0, creating = 1;
	volatile double sink = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
	{
		creator = omp_get_thread_num();
		for (int i = 0; i < N; i++) {
			int s;

#pragma omp atomic read
			s = started;
			if (i - s > most)
				most = i - s;
#pragma omp task firstprivate(i) shared(ran, started, sink, creating)
			{
#pragma omp atomic
				started++;
				int c;

#pragma omp atomic read
				c = creating;
				if (omp_get_thread_num() == creator && c)
					seq[ran++] = i;
				for (int k = 0; k < 2000; k++)
					sink = sink + k;
			}
		}
#pragma omp atomic write
		creating = 0;
#pragma omp taskwait
	}
	for (int k = 1; k < ran; k++)
		if (seq[k] <= seq[k - 1])
			ordered = 0;
	printf("ran_by_creator=%d ordered=%d most_waiting=%d\n", ran, ordered, most);
	return 0;
}
C
if ! gcc -fopenmp -O2 -Wall -Wextra -Werror -o "$tmp/order" "$tmp/order.c" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi
timeout 60 env LD_PRELOAD="$build/libxsched-gomp.so.1" "$tmp/order" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
failed=0
most=$(sed -n 's/.*most_waiting=\([0-9]*\).*/\1/p' "$tmp/out")
# 64 queued, and up to 64 more that a thief moved to its queue (XSCHED_DLB
# steal sizes are at most 64) and has not started yet.
if [ -n "$most" ] && [ "$most" -le 128 ]; then
	echo "ok 1 at most the bound of tasks wait ($most)"
else
	echo "not ok 1 at most the bound of tasks wait (${most:-no output})"
	failed=1
fi
if grep -q "ordered=1" "$tmp/out"; then
	echo "ok 2 while creating, the creator runs its tasks in the order it created them"
else
	echo "not ok 2 while creating, the creator runs its tasks in the order it created them"
	failed=1
fi
exit $failed
