#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-run runs an unmodified gcc -fopenmp program on the drop-in: its
# options reach the runtime (--stats prints xsched's counters, --profile
# writes a trace, -n sets the team size), and bad values, missing programs
# and a missing library are named before anything runs.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
run=$build/xsched-run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD OMP_NUM_THREADS XSCHED_SHOW_STATS XSCHED_PROFILE XSCHED_DLB

echo "TAP version 13"
echo "1..6"
. "$src/scripts/tap.sh"

cat >"$tmp/prog.c" <<'C'
#include <omp.h>
#include <stdio.h>
static long sum;

int main(void)
{
	int team = 0;
#pragma omp parallel
	{
#pragma omp single
		team = omp_get_num_threads();
		for (int i = 0; i < 1000; i++) {
#pragma omp task
			{
#pragma omp atomic
				sum += i;
			}
		}
	}
	printf("team %d sum %ld\n", team, sum);
	return 0;
}
C
if ! gcc -fopenmp -O2 -o "$tmp/prog" "$tmp/prog.c" 2>"$tmp/cc.err"; then
	sed 's/^/# /' "$tmp/cc.err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi

# --stats: the counters xsched prints when the runtime is destroyed at exit
# are there, with the tasks the program created; -n 3 makes the team.
"$run" --stats -n 3 -- "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
ok=0
grep -qx "team 3 sum $((3 * 499500))" "$tmp/out" && grep -q '^total' "$tmp/err" && ok=1
result $ok "xsched-run --stats -n 3 runs the program on xsched" "$(tail -n 8 "$tmp/err")"

# --profile: a Chrome trace with one track per worker.
"$run" -n 2 --profile "$tmp/trace.json" "$tmp/prog" >/dev/null 2>"$tmp/err"
ok=0
grep -q '"traceEvents"' "$tmp/trace.json" 2>/dev/null && grep -q '(worker 1)"' "$tmp/trace.json" && ok=1
result $ok "xsched-run --profile writes a trace" "$(tail -n 8 "$tmp/err")"

# Bad values are named, and nothing runs.
"$run" --dlb sometimes "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 2 && ! -s $tmp/out ]] && grep -q "XSCHED_DLB: 'sometimes'" "$tmp/err" && ok=1
result $ok "xsched-run --dlb sometimes: exit 2 naming XSCHED_DLB" "$(tail -n 8 "$tmp/err")"

"$run" -n 0 "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 2 && ! -s $tmp/out ]] && grep -q -- "--threads '0'" "$tmp/err" && ok=1
result $ok "xsched-run -n 0: exit 2 naming --threads" "$(tail -n 8 "$tmp/err")"

"$run" "$tmp/no-such-program" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 127 ]] && grep -q "no-such-program: No such file" "$tmp/err" && ok=1
result $ok "xsched-run of a missing program: exit 127 naming it" "$(tail -n 8 "$tmp/err")"

"$run" --lib "$tmp/missing.so" "$tmp/prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 2 ]] && grep -q "missing.so" "$tmp/err" && ok=1
result $ok "xsched-run --lib of a missing library: exit 2 naming it" "$(tail -n 8 "$tmp/err")"
exit $failed
