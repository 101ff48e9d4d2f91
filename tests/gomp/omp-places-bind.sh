#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Under the drop-in, OMP_PLACES and OMP_PROC_BIND bind the threads where
# OpenMP 5.2 (10.1.3) puts them, the primary thread included, nested teams
# within their parent's partition, as GNU libgomp does.
#
# A gcc -fopenmp probe prints the places (omp_get_place_proc_ids), the
# initial thread's place and affinity mask before any region, then for
# every thread of a team (or of each nested team) omp_get_place_num(), its
# real mask (sched_getaffinity) and its place partition
# (omp_get_partition_place_nums); a region may carry a proc_bind clause.
#
#   explicit places of CPUs 0 and 1 (every form: lists, intervals, strides,
#   bare numbers, '!' in a place and before one; close, spread, primary,
#   master, true, lists per level, the clause): the output must be the one
#   the spec requires, written below, both under the system libgomp and
#   under the drop-in. Skipped where CPU 0 or 1 is not ours.
#
#   abstract names on this machine, OMP_PROC_BIND alone, OMP_PROC_BIND=false,
#   OMP_DISPLAY_AFFINITY: the drop-in prints what libgomp prints. An
#   XSCHED_BIND in the environment (a parent's drop-in sets it) changes
#   nothing.
#
#   synthetic machines (XSCHED_SYSFS_ROOT: tools/xsched-mksysfs 2s2n4c2t
#   with two LLCs per node, and the hand-written tests/machines/2s2n4c),
#   drop-in only: their CPUs need not exist, so nothing is bound there and
#   the masks are not printed; the places, each thread's place and its
#   partition must be those libgomp's algorithm gives (abstract names
#   ordered by lowest CPU, threads core by core, NUMA domains by number).
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-probe-env.sh"

# ENV...|ARGS|EXPECTED lines separated by ';'. ARGS: inner team size (0:
# no nested region) and the proc_bind clause of the outer region.
explicit=(
	"OMP_PLACES={1},{0} OMP_PROC_BIND=close OMP_NUM_THREADS=2|0 none|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=1 mask=0 partition=0-1"
	"OMP_PLACES={0},{1} OMP_NUM_THREADS=2|0 none|places=2:{0},{1};initial place=0 mask=0;thread 0 place=0 mask=0 partition=0-1;thread 1 place=1 mask=1 partition=0-1"
	"OMP_PLACES={1},{0} OMP_PROC_BIND=true OMP_NUM_THREADS=2|0 none|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=1 mask=0 partition=0-1"
	"OMP_PLACES={0:2} OMP_NUM_THREADS=2|0 none|places=1:{0-1};initial place=0 mask=0-1;thread 0 place=0 mask=0-1 partition=0;thread 1 place=0 mask=0-1 partition=0"
	"OMP_PLACES={0:2:1,!0},{0} OMP_NUM_THREADS=2|0 none|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=1 mask=0 partition=0-1"
	"OMP_PLACES={0},{1},!{0} OMP_NUM_THREADS=2|0 none|places=1:{1};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0;thread 1 place=0 mask=1 partition=0"
	"OMP_PLACES={1}:2:-1 OMP_PROC_BIND=close OMP_NUM_THREADS=3|0 none|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=1 mask=0 partition=0-1;thread 2 place=0 mask=1 partition=0-1"
	"OMP_PLACES=1:2:-1 OMP_NUM_THREADS=2|0 none|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=1 mask=0 partition=0-1"
	"OMP_PLACES=0,1 OMP_PROC_BIND=spread OMP_NUM_THREADS=2|0 none|places=2:{0},{1};initial place=0 mask=0;thread 0 place=0 mask=0 partition=0;thread 1 place=1 mask=1 partition=1"
	"OMP_PLACES={0},{1} OMP_PROC_BIND=master OMP_NUM_THREADS=2|0 none|places=2:{0},{1};initial place=0 mask=0;thread 0 place=0 mask=0 partition=0-1;thread 1 place=0 mask=0 partition=0-1"
	"OMP_PLACES={1},{0} OMP_PROC_BIND=primary OMP_NUM_THREADS=2|0 none|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=0 mask=1 partition=0-1"
	"OMP_PLACES={0},{1} OMP_PROC_BIND=close OMP_NUM_THREADS=4|0 none|places=2:{0},{1};initial place=0 mask=0;thread 0 place=0 mask=0 partition=0-1;thread 1 place=0 mask=0 partition=0-1;thread 2 place=1 mask=1 partition=0-1;thread 3 place=1 mask=1 partition=0-1"
	"OMP_PLACES={0},{1} OMP_PROC_BIND=spread OMP_NUM_THREADS=3|0 none|places=2:{0},{1};initial place=0 mask=0;thread 0 place=0 mask=0 partition=0;thread 1 place=1 mask=1 partition=1;thread 2 place=0 mask=0 partition=0"
	"OMP_PLACES={0},{1} OMP_PROC_BIND=spread,close OMP_NUM_THREADS=2|2 none|places=2:{0},{1};initial place=0 mask=0;thread 0.0 place=0 mask=0 partition=0;thread 0.1 place=0 mask=0 partition=0;thread 1.0 place=1 mask=1 partition=1;thread 1.1 place=1 mask=1 partition=1"
	"OMP_PLACES={1},{0} OMP_PROC_BIND=close,close OMP_NUM_THREADS=2|2 none|places=2:{1},{0};initial place=0 mask=1;thread 0.0 place=0 mask=1 partition=0-1;thread 0.1 place=1 mask=0 partition=0-1;thread 1.0 place=1 mask=0 partition=0-1;thread 1.1 place=0 mask=1 partition=0-1"
	"OMP_PLACES={1},{0} OMP_PROC_BIND=close OMP_NUM_THREADS=2|0 spread|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0;thread 1 place=1 mask=0 partition=1"
	"OMP_PLACES={1},{0} OMP_PROC_BIND=spread OMP_NUM_THREADS=2|0 primary|places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=0 mask=1 partition=0-1"
)
# ENV...|ARGS: the drop-in must print what libgomp prints.
as_libgomp=(
	"OMP_PROC_BIND=true|0 none"
	"OMP_PROC_BIND=close OMP_NUM_THREADS=3|0 none"
	"OMP_PLACES=threads OMP_PROC_BIND=close|0 none"
	"OMP_PLACES=cores OMP_PROC_BIND=spread|0 none"
	"OMP_PLACES=sockets|0 none"
	"OMP_PLACES=ll_caches OMP_NUM_THREADS=2|0 none"
	"OMP_PLACES=numa_domains OMP_PROC_BIND=master OMP_NUM_THREADS=2|0 none"
	"OMP_PLACES=threads(1) OMP_NUM_THREADS=2|0 none"
	"OMP_PROC_BIND=false OMP_PLACES=threads|0 none"
	"OMP_PLACES=threads OMP_PROC_BIND=spread,close OMP_NUM_THREADS=2|2 none"
)

# Synthetic machines, drop-in only: MACHINE|ENV...|ARGS|EXPECTED.
cores16=$(for k in {0..15}; do printf '%s{%d,%d}' "$([[ $k != 0 ]] && echo ,)" "$k" $((k + 16)); done)
synthetic=(
	"m|OMP_PLACES=threads(6) OMP_PROC_BIND=close OMP_NUM_THREADS=2|0 none|places=6:{0},{16},{1},{17},{2},{18};initial place=0;thread 0 place=0 partition=0-5;thread 1 place=1 partition=0-5"
	"m|OMP_PLACES=cores(4) OMP_NUM_THREADS=2|0 none|places=4:{0,16},{1,17},{2,18},{3,19};initial place=0;thread 0 place=0 partition=0-3;thread 1 place=1 partition=0-3"
	"m|OMP_PLACES=sockets OMP_PROC_BIND=spread OMP_NUM_THREADS=2|0 none|places=2:{0-7,16-23},{8-15,24-31};initial place=0;thread 0 place=0 partition=0;thread 1 place=1 partition=1"
	"m|OMP_PLACES=ll_caches OMP_PROC_BIND=spread OMP_NUM_THREADS=4|0 none|places=8:{0-1,16-17},{2-3,18-19},{4-5,20-21},{6-7,22-23},{8-9,24-25},{10-11,26-27},{12-13,28-29},{14-15,30-31};initial place=0;thread 0 place=0 partition=0-1;thread 1 place=2 partition=2-3;thread 2 place=4 partition=4-5;thread 3 place=6 partition=6-7"
	"m|OMP_PLACES=numa_domains OMP_PROC_BIND=close OMP_NUM_THREADS=6|0 none|places=4:{0-3,16-19},{4-7,20-23},{8-11,24-27},{12-15,28-31};initial place=0;thread 0 place=0 partition=0-3;thread 1 place=1 partition=0-3;thread 2 place=2 partition=0-3;thread 3 place=3 partition=0-3;thread 4 place=0 partition=0-3;thread 5 place=1 partition=0-3"
	"m|OMP_PLACES=cores OMP_PROC_BIND=spread OMP_NUM_THREADS=3|0 none|places=16:$cores16;initial place=0;thread 0 place=0 partition=0-5;thread 1 place=6 partition=6-10;thread 2 place=11 partition=11-15"
	"m|OMP_PLACES=cores OMP_PROC_BIND=spread,close OMP_NUM_THREADS=2|2 none|places=16:$cores16;initial place=0;thread 0.0 place=0 partition=0-7;thread 0.1 place=1 partition=0-7;thread 1.0 place=8 partition=8-15;thread 1.1 place=9 partition=8-15"
	"m|OMP_PLACES=cores(4) OMP_PROC_BIND=primary OMP_NUM_THREADS=3|0 none|places=4:{0,16},{1,17},{2,18},{3,19};initial place=0;thread 0 place=0 partition=0-3;thread 1 place=0 partition=0-3;thread 2 place=0 partition=0-3"
	"m|OMP_PLACES=cores(8) OMP_PROC_BIND=close OMP_NUM_THREADS=2|0 spread|places=8:{0,16},{1,17},{2,18},{3,19},{4,20},{5,21},{6,22},{7,23};initial place=0;thread 0 place=0 partition=0-3;thread 1 place=4 partition=4-7"
	"m|OMP_PLACES={0:4}:4:4 OMP_NUM_THREADS=2|0 none|places=4:{0-3},{4-7},{8-11},{12-15};initial place=0;thread 0 place=0 partition=0-3;thread 1 place=1 partition=0-3"
	"m|OMP_PLACES={0:8,!3,!5},{31}:3:-8,!{23} OMP_NUM_THREADS=2|0 none|places=3:{0-2,4,6-7},{31},{15};initial place=0;thread 0 place=0 partition=0-2;thread 1 place=1 partition=0-2"
	"m|OMP_PLACES=0:4:8 OMP_PROC_BIND=spread OMP_NUM_THREADS=2|0 none|places=4:{0},{8},{16},{24};initial place=0;thread 0 place=0 partition=0-1;thread 1 place=2 partition=2-3"
	"h|OMP_PLACES=sockets OMP_NUM_THREADS=2|0 none|places=2:{0-3,8-11},{4-7,12-15};initial place=0;thread 0 place=0 partition=0-1;thread 1 place=1 partition=0-1"
	"h|OMP_PLACES=numa_domains OMP_PROC_BIND=spread OMP_NUM_THREADS=2|0 none|places=4:{0-1,8-9},{2-3,10-11},{4-5,12-13},{6-7,14-15};initial place=0;thread 0 place=0 partition=0-1;thread 1 place=2 partition=2-3"
)

echo "TAP version 13"
echo "1..$((5 + 2 * ${#explicit[@]} + ${#as_libgomp[@]} + ${#synthetic[@]}))"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

cat >"$out/places-probe.c" <<'EOF'
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 16

struct rec {
	int set, place;
	char mask[256], part[256];
};
static struct rec recs[MAXT][MAXT];
static int nomask;

/* ids[0..n) ascending as ranges: "0-3,8" */
static void ranges(char *s, size_t size, const int *ids, int n)
{
	size_t at = 0;

	s[0] = '\0';
	for (int i = 0; i < n && at + 24 < size; i++) {
		int j = i;

		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		at += (size_t)snprintf(s + at, size - at, j > i ? "%s%d-%d" : "%s%d",
				       at ? "," : "", ids[i], ids[j]);
		i = j;
	}
}

static void mask_text(char *s, size_t size)
{
	static __thread int ids[CPU_SETSIZE];
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(s, size, "?");
		return;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			ids[n++] = c;
	ranges(s, size, ids, n);
}

static void record(struct rec *r)
{
	static __thread int ids[4096];
	int n = omp_get_partition_num_places();

	mask_text(r->mask, sizeof(r->mask));
	r->place = omp_get_place_num();
	omp_get_partition_place_nums(ids);
	ranges(r->part, sizeof(r->part), ids, n);
	r->set = 1;
}

static void team(int inner)
{
	int t = omp_get_thread_num();

	if (t >= MAXT)
		return;
	if (inner) {
#pragma omp parallel num_threads(inner)
		if (omp_get_thread_num() < MAXT)
			record(&recs[t][omp_get_thread_num()]);
	} else {
		record(&recs[t][0]);
	}
}

int main(int argc, char **argv)
{
	int inner = argc > 1 ? atoi(argv[1]) : 0;
	const char *clause = argc > 2 ? argv[2] : "none";
	char text[4096];
	int ids[4096];

	nomask = getenv("XS_PROBE_NOMASK") != NULL;
	printf("places=%d:", omp_get_num_places());
	for (int p = 0; p < omp_get_num_places(); p++) {
		omp_get_place_proc_ids(p, ids);
		ranges(text, sizeof(text), ids, omp_get_place_num_procs(p));
		printf("%s{%s}", p ? "," : "", text);
	}
	mask_text(text, sizeof(text));
	printf("\ninitial place=%d", omp_get_place_num());
	printf(nomask ? "\n" : " mask=%s\n", text);
	/* XS_PROBE_REPEAT: the same region again (OMP_DISPLAY_AFFINITY shows
	 * a thread's affinity again only when it changed) */
	for (int r = getenv("XS_PROBE_REPEAT") ? atoi(getenv("XS_PROBE_REPEAT")) : 1; r > 1; r--) {
#pragma omp parallel
		team(inner);
	}
	if (!strcmp(clause, "spread")) {
#pragma omp parallel proc_bind(spread)
		team(inner);
	} else if (!strcmp(clause, "close")) {
#pragma omp parallel proc_bind(close)
		team(inner);
	} else if (!strcmp(clause, "primary")) {
#pragma omp parallel proc_bind(master)
		team(inner);
	} else {
#pragma omp parallel
		team(inner);
	}
	for (int i = 0; i < MAXT; i++)
		for (int j = 0; j < MAXT; j++) {
			if (!recs[i][j].set)
				continue;
			printf(inner ? "thread %d.%d" : "thread %d", i, j);
			printf(" place=%d", recs[i][j].place);
			if (!nomask)
				printf(" mask=%s", recs[i][j].mask);
			printf(" partition=%s\n", recs[i][j].part);
		}
	return 0;
}
EOF
bin=$out/places-probe
"$cc" -fopenmp -O2 -Wall -Wextra -Werror -o "$bin" "$out/places-probe.c" >"$tmp/cc" 2>&1
compiled=$((!$?))
result $compiled "places-probe.c compiles" "$(head -n 10 "$tmp/cc")"

machine=$tmp/machine
"$src/tools/xsched-mksysfs" --spec 2s2n4c2t --llc-per-node 2 "$machine" >"$tmp/mk" 2>&1
made=$((!$?))
result $made "xsched-mksysfs --spec 2s2n4c2t --llc-per-node 2" "$(cat "$tmp/mk")"

# run RUNTIME ENV... -- ARGS...: the probe's stdout and stderr in $tmp.
run() {
	local runtime=$1 preload=() envs=()
	shift
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	[[ $runtime == xsched-gomp ]] && preload=("LD_PRELOAD=$dropin")
	(
		# timeout outside env: the places bind the probe only
		timeout -k 5 60 env "${envs[@]}" "${preload[@]}" "$bin" "$@" </dev/null \
			>"$tmp/stdout" 2>"$tmp/stderr"
		exit $?
	) 2>/dev/null
	status=$?
}

not_run() {
	if ((!compiled)); then
		echo "places-probe.c did not compile"
	elif [[ ! -f $dropin ]]; then
		echo "$dropin was not built (it is part of make: build/libxsched-gomp.so.1)"
	fi
}

# check NAME EXPECTED: the last run printed EXPECTED (lines split at ';').
check() {
	local name=$1 want=$2 diag=()
	((status == 0)) || diag+=("$(describe $status)")
	tr ';' '\n' <<<"$want" >"$tmp/want"
	if ! diff -u "$tmp/want" "$tmp/stdout" >"$tmp/diff"; then
		diag+=("output differs from what the spec requires (- expected, + got):" "$(tail -n +3 "$tmp/diff")")
	fi
	((${#diag[@]})) && [[ -s $tmp/stderr ]] && diag+=("stderr:" "$(head -n 5 "$tmp/stderr")")
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
}

ours=$(taskset -p $$ 2>/dev/null | sed 's/.*: //')
have01=0
[[ -n $ours ]] && (((16#${ours: -1} & 3) == 3)) && have01=1

for c in "${explicit[@]}"; do
	IFS='|' read -r envs args want <<<"$c"
	read -ra envs <<<"$envs"
	read -ra args <<<"$args"
	for runtime in libgomp xsched-gomp; do
		name="$runtime ${envs[*]} (probe ${args[*]})"
		why=$(not_run)
		if [[ -n $why ]]; then
			result 0 "$name" "$why"
			continue
		fi
		if ((!have01)); then
			echo "ok $((n += 1)) $name # SKIP CPUs 0 and 1 are not both in this process's affinity mask ($ours)"
			continue
		fi
		run $runtime "${envs[@]}" -- "${args[@]}"
		check "$name" "$want"
	done
done

# OMP_DISPLAY_AFFINITY shows each thread's real mask, once for three
# regions alike.
for runtime in libgomp xsched-gomp; do
	name="$runtime OMP_DISPLAY_AFFINITY=true OMP_PLACES={1},{0}, 3 regions: thread 0 shows CPU 1, thread 1 CPU 0, once"
	why=$(not_run)
	if [[ -n $why ]]; then
		result 0 "$name" "$why"
		continue
	fi
	if ((!have01)); then
		echo "ok $((n += 1)) $name # SKIP CPUs 0 and 1 are not both in this process's affinity mask ($ours)"
		continue
	fi
	run $runtime OMP_DISPLAY_AFFINITY=true "OMP_AFFINITY_FORMAT=thread %n affinity %A" \
		"OMP_PLACES={1},{0}" OMP_NUM_THREADS=2 XS_PROBE_REPEAT=3 -- 0 none
	diag=()
	((status == 0)) || diag+=("$(describe $status)")
	got=$(sort "$tmp/stderr" | tr '\n' ';')
	[[ $got == "thread 0 affinity 1;thread 1 affinity 0;" ]] ||
		diag+=("stderr: '$got', expected 'thread 0 affinity 1;thread 1 affinity 0;'")
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
done

# XSCHED_BIND inherited from a parent whose drop-in set it (a shell run
# with LD_PRELOAD) must not stop the binding: the places still bind.
name="xsched-gomp XSCHED_BIND=compact (inherited) OMP_PLACES={1},{0}: the places bind"
why=$(not_run)
if [[ -n $why ]]; then
	result 0 "$name" "$why"
elif ((!have01)); then
	echo "ok $((n += 1)) $name # SKIP CPUs 0 and 1 are not both in this process's affinity mask ($ours)"
else
	run xsched-gomp XSCHED_BIND=compact "OMP_PLACES={1},{0}" OMP_NUM_THREADS=2 -- 0 none
	check "$name" "places=2:{1},{0};initial place=0 mask=1;thread 0 place=0 mask=1 partition=0-1;thread 1 place=1 mask=0 partition=0-1"
fi

for c in "${as_libgomp[@]}"; do
	IFS='|' read -r envs args <<<"$c"
	read -ra envs <<<"$envs"
	read -ra args <<<"$args"
	name="xsched-gomp ${envs[*]} (probe ${args[*]}): as libgomp"
	why=$(not_run)
	if [[ -n $why ]]; then
		result 0 "$name" "$why"
		continue
	fi
	run libgomp "${envs[@]}" -- "${args[@]}"
	if ((status != 0)); then
		echo "ok $((n += 1)) $name # SKIP libgomp: $(describe $status): $(head -n 2 "$tmp/stderr")"
		continue
	fi
	want=$(tr '\n' ';' <"$tmp/stdout")
	run xsched-gomp "${envs[@]}" -- "${args[@]}"
	check "$name" "${want%;}"
done

for c in "${synthetic[@]}"; do
	IFS='|' read -r which envs args want <<<"$c"
	read -ra envs <<<"$envs"
	read -ra args <<<"$args"
	root=$machine
	[[ $which == h ]] && root=$src/tests/machines/2s2n4c
	name="xsched-gomp on $([[ $which == h ]] && echo tests/machines/2s2n4c || echo 2s2n4c2t) ${envs[*]} (probe ${args[*]})"
	why=$(not_run)
	((made)) || why="no synthetic machine"
	if [[ -n $why ]]; then
		result 0 "$name" "$why"
		continue
	fi
	run xsched-gomp XSCHED_SYSFS_ROOT="$root" XS_PROBE_NOMASK=1 "${envs[@]}" -- "${args[@]}"
	check "$name" "$want"
done
exit $failed
