#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Under the drop-in, XSCHED_DAEMON=required with no xschedd reachable ends
# the program at its first parallel region with exit status 1 and lines
# naming XSCHED_DAEMON and the directory, as xs_runtime_create() refuses a
# native program (tests/daemon/xschedd-client-required-names-variable.c); it does
# not fall back to one thread and exit 0. With XSCHED_DAEMON=auto in the
# same place the program runs to its end on its own tables.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-probe-env.sh"
mkdir -p "$tmp/none"

echo "TAP version 13"
echo "1..4"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

cat >"$out/region.c" <<'PROG'
#include <omp.h>
#include <stdio.h>

int main(void)
{
	printf("before\n");
	fflush(stdout);
#pragma omp parallel
#pragma omp single
	printf("region\n");
	printf("after\n");
	return 0;
}
PROG
bin=$out/region
"$cc" -fopenmp -O2 -Wall -Wextra -Werror -o "$bin" "$out/region.c" >"$tmp/cc" 2>&1
compiled=$((!$?))
result $compiled "region.c compiles" "$(head -n 10 "$tmp/cc")"

for threads in 2 1; do
	name="XSCHED_DAEMON=required, no xschedd, OMP_NUM_THREADS=$threads: exit 1 naming XSCHED_DAEMON"
	if ((!compiled)) || [[ ! -f $dropin ]]; then
		result 0 "$name" "the program or $dropin was not built"
		continue
	fi
	timeout -k 5 60 env XSCHED_DAEMON=required XSCHED_RUNTIME_DIR="$tmp/none" \
		OMP_NUM_THREADS=$threads LD_PRELOAD="$dropin" "$bin" >"$tmp/out" 2>"$tmp/err"
	s=$?
	diag=()
	((s == 1)) || diag+=("$(describe $s), expected exit status 1")
	grep -q "^libxsched-gomp: XSCHED_DAEMON=required" "$tmp/err" ||
		diag+=("no line 'libxsched-gomp: XSCHED_DAEMON=required ...' on stderr")
	grep -q "^xsched: XSCHED_DAEMON=required.*$tmp/none" "$tmp/err" ||
		diag+=("no line 'xsched: XSCHED_DAEMON=required ... $tmp/none' on stderr")
	[[ $(cat "$tmp/out") == before ]] || diag+=("stdout: $(tr '\n' ' ' <"$tmp/out"), expected before only")
	((${#diag[@]})) && diag+=("stderr:" "$(head -n 5 "$tmp/err")")
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
done

name="XSCHED_DAEMON=auto, no xschedd: the program runs to its end"
if ((!compiled)) || [[ ! -f $dropin ]]; then
	result 0 "$name" "the program or $dropin was not built"
else
	timeout -k 5 60 env XSCHED_DAEMON=auto XSCHED_RUNTIME_DIR="$tmp/none" \
		LD_PRELOAD="$dropin" "$bin" >"$tmp/out" 2>"$tmp/err"
	s=$?
	diag=()
	((s == 0)) || diag+=("$(describe $s)")
	[[ $(tr '\n' ' ' <"$tmp/out") == "before region after " ]] ||
		diag+=("stdout: $(tr '\n' ' ' <"$tmp/out"), expected before region after")
	[[ -s $tmp/err ]] && diag+=("unexpected stderr: $(head -n 3 "$tmp/err")")
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
fi
exit $failed
