#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-affinity end to end: record a program's xs_parallel_for() loop,
# show and plan the graph, replay the schedule in xs_parallel_for() and in
# the drop-in's schedule(runtime) loop (every iteration once, the same
# result, no fallback message), and a schedule for another machine (3
# workers) is named stale and its loops run hybrid with the right result;
# show --graph gives a schedule's cut on a graph (a sampled recording's
# plan on the full graph) and names a graph of another loop.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tool=$build/xsched-affinity
dropin=$build/libxsched-gomp.so.1
cc=${OMP_CORPUS_CC:-gcc}

. "$src/scripts/tap.sh"
echo "TAP version 13"
if [[ ! -x $tool || ! -f $build/libxsched.a || ! -f $dropin ]]; then
	echo "1..0 # SKIP $tool, libxsched.a or the drop-in not built"
	exit 4
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..10"

cat >"$tmp/rec.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "xsched.h"

static double *x, *y;

static void body(void *arg, int64_t first, uint64_t count)
{
	(void)arg;
	for (int64_t i = first; i < first + (int64_t)count; i++)
		y[i] = x[(i * 7) % 2048] + x[(i * 7 + 1) % 2048];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4096;
	struct xs_runtime *rt;
	double sum = 0;

	x = mmap(NULL, 2048 * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	y = mmap(NULL, (size_t)n * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 2048; i++)
		x[i] = i;
	xs_affinity_region_add(x, 2048 * 8);
	xs_affinity_region_add(y, (size_t)n * 8);
	rt = xs_runtime_create(0);
	if (!rt || xs_parallel_for(rt, 0, n, 1, NULL, body, NULL))
		return 1;
	xs_runtime_destroy(rt);
	for (long i = 0; i < n; i++)
		sum += y[i];
	printf("%.1f\n", sum);
	return 0;
}
EOF
cat >"$tmp/omp.c" <<'EOF'
#include <omp.h>
#include <stdio.h>

static int hits[4096];

int main(void)
{
	omp_sched_t kind;
	int chunk, bad = 0;

#pragma omp parallel for schedule(runtime)
	for (int i = 0; i < 4096; i++)
		__atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4096; i++)
		bad += hits[i] != 1;
	omp_get_schedule(&kind, &chunk);
	printf("bad=%d kind=%d\n", bad, (int)kind);
	return 0;
}
EOF
if ! "$cc" -O1 -I"$src/include" "$tmp/rec.c" "$build/libxsched.a" -lnuma -lhwloc -pthread \
	-o "$tmp/rec" 2>"$tmp/cc.err" || ! "$cc" -O1 -fopenmp "$tmp/omp.c" -o "$tmp/omp" \
	2>>"$tmp/cc.err"; then
	result 0 "test programs build" "$(cat "$tmp/cc.err")"
	exit 1
fi
export XSCHED_WORKERS=2 OMP_NUM_THREADS=2

"$tool" record -o "$tmp/g" -- "$tmp/rec" 4096 >"$tmp/out" 2>"$tmp/err"
s=$?
result $((s == 0 && $(grep -c "4096 iterations, 4096 logical threads" "$tmp/out") == 1)) \
	"record writes the graph of the loop" "$(describe $s)" "$(cat "$tmp/out" "$tmp/err")"

"$tool" show "$tmp/g" >"$tmp/out" 2>&1
result $(($? == 0 && $(grep -c "^graph $tmp/g: loop of 4096 iterations" "$tmp/out") == 1)) \
	"show describes the graph" "$(cat "$tmp/out")"

"$tool" plan "$tmp/g" -o "$tmp/s" --dense-ratio 0.9 >"$tmp/out" 2>&1
s=$?
"$tool" show "$tmp/s" >>"$tmp/out" 2>&1
result $((s == 0 && $(grep -c "^  worker [01]: " "$tmp/out") == 2)) \
	"plan writes a schedule for 2 workers" "$(cat "$tmp/out")"

want=$(XSCHED_LOOP_SCHEDULE=static "$tmp/rec" 4096 2>&1)
got=$(XSCHED_LOOP_SCHEDULE=affinity XSCHED_AFFINITY_FILE="$tmp/s" "$tmp/rec" 4096 2>&1)
result $([[ $? == 0 && $got == "$want" ]] && echo 1 || echo 0) \
	"xs_parallel_for replays it: same result, no message" "static: $want" "affinity: $got"

got=$(LD_PRELOAD=$dropin XSCHED_LOOP_SCHEDULE=affinity XSCHED_AFFINITY_FILE="$tmp/s" \
	"$tmp/omp" 2>&1)
result $([[ $got == "bad=0 kind=6" ]] && echo 1 || echo 0) \
	"the drop-in's schedule(runtime) loop replays a 4096-iteration schedule" "$got"

"$tool" plan "$tmp/g" -o "$tmp/s3" --workers 3 >/dev/null 2>&1
got=$(XSCHED_LOOP_SCHEDULE=affinity XSCHED_AFFINITY_FILE="$tmp/s3" "$tmp/rec" 4096 2>&1)
result $([[ $got == *"$tmp/s3: planned for 3 workers, this loop has 2 threads; it runs hybrid"* &&
	$got == *"$want" ]] && echo 1 || echo 0) \
	"a schedule for 3 workers is named and its loop runs hybrid" "$got"

got=$(XSCHED_LOOP_SCHEDULE=affinity XSCHED_AFFINITY_FILE="$tmp/g" "$tmp/rec" 4096 2>&1)
result $([[ $got == *"$tmp/g: is an xsched affinity graph"*"not an affinity schedule"* &&
	$got == *"$want" ]] && echo 1 || echo 0) \
	"a graph given as the schedule is named and rejected" "$got"

"$tool" plan "$tmp/g" -o "$tmp/x" --dense-ratio 2 >"$tmp/out" 2>&1
s=$?
result $((s == 2 && $(grep -c -- "--dense-ratio '2': expected a number in \[0, 1\]" "$tmp/out") == 1)) \
	"a bad --dense-ratio is named with its range" "$(describe $s)" "$(cat "$tmp/out")"

XSCHED_AFFINITY_SAMPLE=4 "$tool" record -o "$tmp/g4" -- "$tmp/rec" 4096 >/dev/null 2>&1
"$tool" plan "$tmp/g4" -o "$tmp/s4" >/dev/null 2>&1
"$tool" show "$tmp/s4" --graph "$tmp/g" >"$tmp/out" 2>&1
s=$?
result $((s == 0 && $(grep -Ec "^  on graph $tmp/g \(DenseRatio 0.9, edge weight [1-9][0-9]*\): \
this schedule cuts [0-9.]+% between workers, the static split [0-9.]+%$" "$tmp/out") == 1)) \
	"show --graph: a sampled recording's plan on the full graph" "$(describe $s)" \
	"$(cat "$tmp/out")"

XSCHED_AFFINITY_GRANULE=2 "$tool" record -o "$tmp/g2" -- "$tmp/rec" 4096 >/dev/null 2>&1
"$tool" show "$tmp/s" --graph "$tmp/g2" >"$tmp/out" 2>&1
s=$?
result $((s == 1 && $(grep -c "$tmp/g2: a loop of 4096 iterations in 2048 logical threads, \
the schedule's is 4096 in 4096: not the same loop" "$tmp/out") == 1)) \
	"show --graph names a graph of another loop" "$(describe $s)" "$(cat "$tmp/out")"
exit $failed
