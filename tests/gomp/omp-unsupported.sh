#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A program that uses an entry point the drop-in does not implement stops
# with one line naming it and SIGABRT, and never prints an answer; the
# constructs it implemented since (target, teams, task reductions) run.
#
# Each program below computes a value through one such construct and prints
# "result N". For each program, three results:
#   - it compiles and gcc emitted the entry point (nm -u),
#   - under the system libgomp it prints the right result (host fallback),
#   - under the drop-in: SIGABRT, a stderr line "libxsched-gomp: ..." naming
#     the entry point, and no "result" line on stdout. Programs marked
#     "either" may instead run correctly (exit 0, right result, empty
#     stderr), in case the drop-in implements them later; a wrong result,
#     another signal or a hang fails in both cases.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
dropin=$build/libxsched-gomp.so.1
out=$build/tests/omp-unsupported
cc=${OMP_CORPUS_CC:-gcc}

while read -r var; do
	unset "$var"
done < <(compgen -e | grep -E '^(OMP|GOMP|KMP)_')
unset LD_PRELOAD

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# name|entry point|expected result|abort, either or runs|gcc flag
# Programs marked "runs" use an entry point the drop-in now implements (host
# fallback for target, teams on the host, task reductions): they must get
# the right result with an empty stderr.
programs=(
	"openacc|GOACC_parallel_keyed|5050|abort|-fopenacc"
	"target|GOMP_target_ext|5050|runs|-fopenmp"
	"target-data|GOMP_target_data_ext|45|runs|-fopenmp"
	"teams|GOMP_teams_reg|3|runs|-fopenmp"
	"task-reduction|GOMP_taskgroup_reduction_register|210|runs|-fopenmp"
)

cat >"$out/openacc.c" <<'EOF'
#include <stdio.h>

int main(void)
{
	long sum = 0;

#pragma acc parallel loop reduction(+ : sum) copy(sum)
	for (int i = 1; i <= 100; i++)
		sum += i;
	printf("result %ld\n", sum);
	return 0;
}
EOF

cat >"$out/target.c" <<'EOF'
#include <stdio.h>

int main(void)
{
	long sum = 0;

#pragma omp target map(tofrom : sum)
	for (int i = 1; i <= 100; i++)
		sum += i;
	printf("result %ld\n", sum);
	return 0;
}
EOF
cat >"$out/target-data.c" <<'EOF'
#include <stdio.h>

int main(void)
{
	long a[10], sum = 0;

	for (int i = 0; i < 10; i++)
		a[i] = i;
#pragma omp target data map(to : a)
	{
		for (int i = 0; i < 10; i++)
			sum += a[i];
	}
	printf("result %ld\n", sum);
	return 0;
}
EOF
cat >"$out/teams.c" <<'EOF'
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int n = 0;

#pragma omp teams num_teams(3) reduction(+ : n)
	n += omp_get_num_teams() == 3 ? 1 : 100;
	printf("result %d\n", n);
	return 0;
}
EOF
cat >"$out/task-reduction.c" <<'EOF'
#include <stdio.h>

int main(void)
{
	int sum = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskgroup task_reduction(+ : sum)
	for (int i = 1; i <= 20; i++) {
#pragma omp task in_reduction(+ : sum) firstprivate(i)
		sum += i;
	}
	printf("result %d\n", sum);
	return 0;
}
EOF

echo "TAP version 13"
echo "1..$((3 * ${#programs[@]}))"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

run() {
	local bin=$1
	shift
	(
		timeout -k 5 60 env OMP_NUM_THREADS=2 "$@" "$bin" </dev/null >"$tmp/stdout" 2>"$tmp/stderr"
		exit $?
	) 2>/dev/null
	status=$?
}

for p in "${programs[@]}"; do
	IFS='|' read -r name entry want mode flag <<<"$p"
	bin=$out/$name
	"$cc" "$flag" -O2 -Wall -Wextra -Werror -o "$bin" "$out/$name.c" >"$tmp/cc" 2>&1
	compiled=$((!$?))
	emitted=0
	((compiled)) && nm -u "$bin" | grep -q " $entry@" && emitted=1
	result $((compiled && emitted)) "$name: gcc emits $entry" \
		"$(head -n 10 "$tmp/cc")" "$( ((compiled)) && echo "not in nm -u: $(nm -u "$bin" | grep -o 'GOMP_[a-z_0-9]*' | tr '\n' ' ')")"

	if ((!compiled)); then
		result 0 "$name: libgomp prints result $want" "$name.c did not compile"
		result 0 "$name: the drop-in aborts naming $entry" "$name.c did not compile"
		continue
	fi
	run "$bin"
	got=$(cat "$tmp/stdout")
	((status == 0)) && [[ $got == "result $want" ]]
	result $((!$?)) "$name: libgomp prints result $want" "$(describe $status)" "stdout: $got" \
		"$(head -n 3 "$tmp/stderr")"

	what="$name: the drop-in aborts naming $entry"
	[[ $mode == either ]] && what="$name: the drop-in aborts naming $entry or gets it right"
	if [[ ! -f $dropin ]]; then
		result 0 "$what" "$dropin was not built (it is part of make: build/libxsched-gomp.so.1)"
		continue
	fi
	run "$bin" "LD_PRELOAD=$dropin"
	got=$(cat "$tmp/stdout")
	diag=()
	[[ $mode == runs ]] && what="$name: the drop-in runs $entry and prints result $want"
	if [[ $mode == either || $mode == runs ]] && ((status == 0)); then
		[[ $got == "result $want" ]] || diag+=("exit status 0 with a wrong answer: '$got', expected 'result $want'")
		[[ -s $tmp/stderr ]] && diag+=("exit status 0 with stderr:" "$(head -n 3 "$tmp/stderr")")
	elif [[ $mode == runs ]]; then
		diag+=("$(describe $status), expected exit status 0" "$(head -n 3 "$tmp/stderr")")
	else
		((status == 128 + 6)) || diag+=("$(describe $status), expected SIGABRT")
		grep -q "^libxsched-gomp: .*$entry" "$tmp/stderr" ||
			diag+=("no line 'libxsched-gomp: ...$entry...' on stderr:" "$(head -n 3 "$tmp/stderr")")
		grep -q '^result' "$tmp/stdout" && diag+=("printed an answer: $(grep '^result' "$tmp/stdout")")
	fi
	result $((${#diag[@]} == 0)) "$what" "${diag[@]}"
done
exit $failed
