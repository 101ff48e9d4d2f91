#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check.sh - mutants of the library's code that its tests must kill.
#
# Each mutant is the library built with one -DXS_MUTATE_* flag, which
# selects a plausible bug kept in the source under #ifdef (grep for the
# flag); each test listed with it must FAIL against that build - and fail,
# not hang: a test still running after $XS_MUTANT_TIMEOUT seconds (default
# 300) counts as not killing the mutant. The correct build's run of the
# same tests is `make check`. Builds go to build-mut-<name>/ (make O=...).
# Prints TAP; exits non-zero if a mutant survives. Run by `make
# check-mutants`.
set -uo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/scripts/tap.sh"
limit=${XS_MUTANT_TIMEOUT:-300}

# flag|tests that must fail against it
mutants=(
	# The tree barrier (barrier.c) releases on its first wave, with
	# continuations still pending.
	"BARRIER_EARLY|barrier-termination-random-trees barrier-waits-for-stolen-frames"
	# It releases when one wave's sums agree (no four-counter rule).
	"BARRIER_TWO_COUNTER|barrier-termination-random-trees barrier-waits-for-stolen-frames"
)
total=0
for m in "${mutants[@]}"; do
	read -ra tests <<<"${m#*|}"
	total=$((total + ${#tests[@]}))
done
echo "1..$total"
cd "$src"
for m in "${mutants[@]}"; do
	flag=${m%%|*}
	read -ra tests <<<"${m#*|}"
	out=build-mut-$(tr 'A-Z_' 'a-z-' <<<"$flag")
	log=$(make --no-print-directory O="$out" CFLAGS="-O2 -g -DXS_MUTATE_$flag" \
		"${tests[@]/#/$out/tests/}" 2>&1)
	built=$?
	for t in "${tests[@]}"; do
		what="$t kills mutant $flag"
		if ((built)); then
			result 0 "$what" "build failed" "$log"
			continue
		fi
		run=$(timeout "$limit" "$out/tests/$t" 2>&1)
		s=$?
		case $s in
		0) result 0 "$what" "the test passed against the mutant" "$run" ;;
		124 | 137) result 0 "$what" "the test hung ($(describe $s) after $limit s)" "$run" ;;
		*) result 1 "$what" ;;
		esac
	done
done
exit $failed
