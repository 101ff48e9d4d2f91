#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Under the libgomp drop-in every OpenMP task is counted: a gcc -fopenmp
# program creates a known number of explicit tasks - small ones (frames on
# the worker's deque, GOMP_task's fast path), nested ones joined by
# taskwait, a task tree deeper than the drop-in's depth bound (whose deep
# tasks run included), tasks with a block too large for a frame, tasks
# with dependences, undeferred if(0) tasks - and, once they are done and
# the program waits, the statistics pages of its process, as `xsched-top
# --json` reads them, add up to exactly that many tasks executed and
# created. With frames (XSCHED_DLB=ws) and without (slb: descriptors).
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
prog_pid=
cleanup() {
	[[ -n $prog_pid ]] && kill "$prog_pid" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset LD_PRELOAD OMP_NUM_THREADS XSCHED_PROFILE XSCHED_STATS_PAGE

echo "TAP version 13"
echo "1..2"
. "$src/scripts/tap.sh"

cat >"$tmp/tasks.c" <<'C'
#include <stdio.h>
#include <unistd.h>

#define PARENTS 50
#define CHILDREN 20
#define LARGE 30
#define CHAIN 40
#define UNDEFERRED 25
#define TREE 20

/* A binary tree of tasks TREE levels deep: two tasks per call with n >= 2
 * (fib's shape); returns fib(n). */
static long tree(int n)
{
	long x, y;

	if (n < 2)
		return n;
#pragma omp task shared(x)
	x = tree(n - 1);
#pragma omp task shared(y)
	y = tree(n - 2);
#pragma omp taskwait
	return x + y;
}

static long tree_tasks(int n)
{
	return n < 2 ? 0 : 2 + tree_tasks(n - 1) + tree_tasks(n - 2);
}

int main(void)
{
	long sum = 0, fib = 0;
	int dep = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
	{
		for (int i = 0; i < PARENTS; i++) {
#pragma omp task
			{
				for (int j = 0; j < CHILDREN; j++) {
#pragma omp task
					{
#pragma omp atomic
						sum += j;
					}
				}
#pragma omp taskwait
			}
		}
		for (int i = 0; i < LARGE; i++) {
			char block[512];

			for (int k = 0; k < (int)sizeof(block); k++)
				block[k] = (char)(i + k);
#pragma omp task firstprivate(block)
			{
#pragma omp atomic
				sum += block[1] - block[0];
			}
		}
		for (int i = 0; i < CHAIN; i++) {
#pragma omp task depend(inout: dep)
			dep++;
		}
		for (int i = 0; i < UNDEFERRED; i++) {
#pragma omp task if(0)
			{
#pragma omp atomic
				sum += 1;
			}
		}
#pragma omp taskwait
		fib = tree(TREE);
	}
	/* Every task done. */
	printf("%d %ld %d %ld %ld\n", (int)getpid(), sum, dep, fib,
	       PARENTS * (1 + CHILDREN) + LARGE + CHAIN + UNDEFERRED + tree_tasks(TREE));
	fflush(stdout);
	getchar();
	return 0;
}
C
if ! gcc -fopenmp -O2 -o "$tmp/tasks" "$tmp/tasks.c" 2>"$tmp/cc.err"; then
	sed 's/^/# /' "$tmp/cc.err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi

for dlb in ws slb; do
	rm -f "$tmp/in" "$tmp/out"
	mkfifo "$tmp/in" "$tmp/out"
	XSCHED_DLB=$dlb LD_PRELOAD=$build/libxsched-gomp.so.1 "$tmp/tasks" <"$tmp/in" \
		>"$tmp/out" 2>"$tmp/err" &
	prog_pid=$!
	exec 3>"$tmp/in"
	read -r pid sum dep fib total <"$tmp/out" || pid=
	ok=0
	got=
	if [[ -n $pid ]]; then
		# The pages are final one publication period after the workers
		# idle.
		sleep 0.35
		"$build/xsched-top" --json -n 1 -p "$pid" >"$tmp/top" 2>"$tmp/top.err"
		got=$(python3 - "$pid" "$tmp/top" <<'PY'
import json, sys
pid = int(sys.argv[1])
snap = json.load(open(sys.argv[2]))
procs = [p for p in snap["processes"] if p["pid"] == pid]
print(len(procs), sum(p["tasks_executed"] for p in procs),
      sum(p["tasks_created"] for p in procs))
PY
)
		[[ $got =~ ^[1-9][0-9]*\ $total\ $total$ && $sum == $((50 * 190 + 30 + 25)) &&
			$dep == 40 && $fib == 6765 ]] && ok=1
	fi
	result $ok "XSCHED_DLB=$dlb: the pages show every drop-in task executed and created" \
		"program: pid '$pid' sum '${sum:-}' dep '${dep:-}' fib '${fib:-}' tasks '${total:-}'" \
		"pages, executed, created: '$got'" "$(cat "$tmp/err" "$tmp/top.err" 2>/dev/null)" \
		"$(cut -c1-2000 "$tmp/top" 2>/dev/null)"
	echo >&3
	exec 3>&-
	wait "$prog_pid" 2>/dev/null
	prog_pid=
done
exit $failed
