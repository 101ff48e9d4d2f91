#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# OMP_DISPLAY_ENV=true prints, under the drop-in, exactly what GNU libgomp
# prints for the same environment: the default OMP_WAIT_POLICY (libgomp's
# default spins a while and then sleeps, and it says PASSIVE), ACTIVE and
# PASSIVE when set, OMP_PROC_BIND lists (SPREAD,CLOSE; MASTER for primary),
# places as libgomp writes them ({0:2}), the ICVs a list of thread counts
# sets (every level active), and the rest of the block.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-probe-env.sh"

cases=(
	""
	"OMP_WAIT_POLICY=active"
	"OMP_WAIT_POLICY=passive"
	"OMP_PROC_BIND=spread,close OMP_PLACES=threads(1)"
	"OMP_PROC_BIND=primary,spread"
	"OMP_PLACES=threads OMP_PROC_BIND=true"
	"OMP_NUM_THREADS=3,2 OMP_SCHEDULE=guided,4 OMP_DYNAMIC=true OMP_STACKSIZE=4M OMP_THREAD_LIMIT=8"
)

echo "TAP version 13"
echo "1..$((1 + ${#cases[@]}))"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

cat >"$out/display-env.c" <<'PROG'
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int n = 0;

#pragma omp parallel
#pragma omp atomic
	n++;
	printf("%d\n", n > 0);
	return 0;
}
PROG
bin=$out/display-env
"$cc" -fopenmp -O2 -Wall -Wextra -Werror -o "$bin" "$out/display-env.c" >"$tmp/cc" 2>&1
compiled=$((!$?))
result $compiled "display-env.c compiles" "$(head -n 10 "$tmp/cc")"

for c in "${cases[@]}"; do
	read -ra envs <<<"$c"
	name="OMP_DISPLAY_ENV=true ${c:-(nothing else set)}: the drop-in prints what libgomp prints"
	if ((!compiled)) || [[ ! -f $dropin ]]; then
		result 0 "$name" "the program or $dropin was not built"
		continue
	fi
	timeout -k 5 60 env "${envs[@]}" OMP_DISPLAY_ENV=true "$bin" >/dev/null 2>"$tmp/libgomp"
	s1=$?
	timeout -k 5 60 env "${envs[@]}" OMP_DISPLAY_ENV=true LD_PRELOAD="$dropin" "$bin" \
		>/dev/null 2>"$tmp/dropin"
	s2=$?
	diag=()
	((s1 == 0)) || diag+=("libgomp: $(describe $s1)")
	((s2 == 0)) || diag+=("drop-in: $(describe $s2)")
	diff -u "$tmp/libgomp" "$tmp/dropin" >"$tmp/diff" ||
		diag+=("the displays differ (- libgomp, + drop-in):" "$(tail -n +3 "$tmp/diff")")
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
done
exit $failed
