#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# OMP_TARGET_OFFLOAD=mandatory is enforced by the drop-in, which has no
# offload device: a target (or target data) construct on the default
# device, or naming a device that does not exist, ends the program with
# exit status 1 and one line naming OMP_TARGET_OFFLOAD, before the region
# runs (OpenMP 5.1, 6.17; 5.2, as if omp_invalid_device were used). What
# asks for the host still runs there (if(false), device(0), that is
# omp_get_initial_device(), or omp_set_default_device(0): gcc's own
# libgomp.c/target-41.c), and OMP_TARGET_OFFLOAD=default or disabled run
# every region on the host. For comparison the same runs under the system
# libgomp are shown as comments: gcc 12's treats device 0 as the host and
# runs every region.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-probe-env.sh"

# OMP_TARGET_OFFLOAD|PROBE ARG|exit status expected|what
cases=(
	"mandatory|default|1|a target region on the default device ends the program"
	"mandatory|data|1|a target data region on the default device ends the program"
	"mandatory|device5|1|a target region on device 5 ends the program"
	"mandatory|host|0|regions that ask for the host run there"
	"default|default|0|a target region runs on the host"
	"disabled|data|0|a target data region runs on the host"
)

echo "TAP version 13"
echo "1..$((1 + ${#cases[@]}))"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

cat >"$out/target-probe.c" <<'PROG'
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "default";
	int x = 0;

	printf("before\n");
	fflush(stdout);
	if (!strcmp(what, "default")) {
#pragma omp target map(tofrom : x)
		x = 1;
	} else if (!strcmp(what, "data")) {
#pragma omp target data map(tofrom : x)
		x = 1;
	} else if (!strcmp(what, "device5")) {
#pragma omp target device(5) map(tofrom : x)
		x = 1;
	} else {
		/* the host, asked for three ways */
#pragma omp target if (x) map(tofrom : x)
		x++;
#pragma omp target device(omp_get_initial_device()) map(tofrom : x)
		x++;
		omp_set_default_device(omp_get_initial_device());
#pragma omp target map(tofrom : x)
		x++;
		x = x == 3;
	}
	printf("after x=%d\n", x);
	return 0;
}
PROG
bin=$out/target-probe
"$cc" -fopenmp -O2 -Wall -Wextra -Werror -o "$bin" "$out/target-probe.c" >"$tmp/cc" 2>&1
compiled=$((!$?))
result $compiled "target-probe.c compiles" "$(head -n 10 "$tmp/cc")"

for c in "${cases[@]}"; do
	IFS='|' read -r value arg want what <<<"$c"
	name="OMP_TARGET_OFFLOAD=$value, probe $arg: $what (exit $want)"
	if ((!compiled)) || [[ ! -f $dropin ]]; then
		result 0 "$name" "the probe or $dropin was not built"
		continue
	fi
	timeout -k 5 60 env OMP_TARGET_OFFLOAD=$value "$bin" "$arg" >"$tmp/gout" 2>"$tmp/gerr"
	gs=$?
	echo "# system libgomp: $(describe $gs), stdout: $(tr '\n' ' ' <"$tmp/gout")$(head -n 1 "$tmp/gerr")"
	timeout -k 5 60 env OMP_TARGET_OFFLOAD=$value LD_PRELOAD="$dropin" "$bin" "$arg" \
		>"$tmp/out" 2>"$tmp/err"
	s=$?
	diag=()
	((s == want)) || diag+=("$(describe $s), expected exit status $want")
	if ((want)); then
		grep -q '^libxsched-gomp: OMP_TARGET_OFFLOAD=mandatory' "$tmp/err" ||
			diag+=("no line 'libxsched-gomp: OMP_TARGET_OFFLOAD=mandatory ...' on stderr")
		[[ $(cat "$tmp/out") == before ]] || diag+=("the region ran: $(tr '\n' ' ' <"$tmp/out")")
	else
		[[ -s $tmp/err ]] && diag+=("unexpected stderr: $(head -n 3 "$tmp/err")")
		grep -qx "after x=1" "$tmp/out" || diag+=("stdout: $(tr '\n' ' ' <"$tmp/out"), expected after x=1")
	fi
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
done
exit $failed
