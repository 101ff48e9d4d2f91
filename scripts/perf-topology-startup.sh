#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# perf-topology-startup.sh - what a runtime's start-up costs, side by side for
# two builds of libxsched (e.g. before and after a topology change):
#
#   scripts/perf-topology-startup.sh BUILD_A BUILD_B [ROUNDS] [LOOPS]
#
# Links one create/destroy loop (xs_runtime_create(2) + xs_runtime_destroy,
# daemon off, no stats page) against BUILD_A/libxsched.a and BUILD_B/
# libxsched.a, then runs them alternately, A B A B ..., ROUNDS times (default
# 7) and prints each one's minimum microseconds per create/destroy over the
# rounds, the first create of a process (which pays hwloc's one load) apart
# from the rest. Both builds must link with the same libraries (-lhwloc is
# harmless for a build that does not use it).
set -euo pipefail

a=${1:?usage: $0 BUILD_A BUILD_B [ROUNDS] [LOOPS]}
b=${2:?usage: $0 BUILD_A BUILD_B [ROUNDS] [LOOPS]}
rounds=${3:-7}
loops=${4:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/loop.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 200;
	double t0 = now_us(), first, rest;
	struct xs_runtime *rt = xs_runtime_create(2);

	if (!rt)
		return 1;
	xs_runtime_destroy(rt);
	first = now_us() - t0;
	t0 = now_us();
	for (int i = 0; i < loops; i++) {
		rt = xs_runtime_create(2);
		if (!rt)
			return 1;
		xs_runtime_destroy(rt);
	}
	rest = (now_us() - t0) / loops;
	printf("%.1f %.1f\n", first, rest);
	return 0;
}
C
libs="-lnuma -lhwloc -lpthread -lm"
for v in a b; do
	dir=${!v}
	cc -O2 -Iinclude "$tmp/loop.c" "$dir/libxsched.a" $libs -o "$tmp/loop-$v"
done
export XSCHED_DAEMON=off XSCHED_STATS_PAGE=0
best_a_first=1e18 best_a=1e18 best_b_first=1e18 best_b=1e18
for ((r = 0; r < rounds; r++)); do
	for v in a b; do
		read -r first rest < <("$tmp/loop-$v" "$loops")
		eval "best_${v}_first=\$(awk -v x=\"\$best_${v}_first\" -v y=$first 'BEGIN{print (y<x)?y:x}')"
		eval "best_${v}=\$(awk -v x=\"\$best_${v}\" -v y=$rest 'BEGIN{print (y<x)?y:x}')"
	done
done
printf '%-40s %14s %14s\n' build "first (us)" "then (us)"
printf '%-40s %14s %14s\n' "$a" "$best_a_first" "$best_a"
printf '%-40s %14s %14s\n' "$b" "$best_b_first" "$best_b"
