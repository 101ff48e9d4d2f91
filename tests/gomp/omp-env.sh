#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The drop-in honours the OpenMP environment variables and names the
# variable when it cannot.
#
# A probe program prints the ICVs the variables set (omp_get_max_threads,
# the size of a default team, omp_get_dynamic, omp_get_max_active_levels,
# omp_get_schedule, omp_get_proc_bind, omp_get_num_places) and, when asked,
# uses 12 MiB of stack on a worker thread (OMP_STACKSIZE=16M must allow it;
# the default 8 MiB thread stack does not).
#
#   valid values: both under the system libgomp and under the drop-in, the
#   run exits 0 with an empty stderr and prints the expected values; "@"
#   stands for "what libgomp prints" where the value depends on the machine.
#   Only the ICVs a case sets are compared: the defaults of the others are
#   implementation defined.
#
#   invalid values: stderr has a diagnostic line naming the variable
#   ("libgomp: ..." or "libxsched-gomp: ..."); the program either completes
#   (exit 0, all of its output) or stops cleanly: an exit status or SIGABRT,
#   never another signal, never a hang.
#
#   xsched's own variables (drop-in only): XSCHED_LOOP_SCHEDULE=hybrid and
#   omp_set_schedule(5) make run-sched-var the hybrid kind (5), which a
#   schedule(runtime) loop then runs; a bad XSCHED_LOOP_* value is named on
#   stderr exactly once (the drop-in reads it at load, the runtime of the
#   first region again) and regions run with one thread.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
dropin=$build/libxsched-gomp.so.1
out=$build/tests/omp-env
cc=${OMP_CORPUS_CC:-gcc}

# ENV...|EXPECTED: EXPECTED is key=value ..., value @ = libgomp's.
valid=(
	"OMP_NUM_THREADS=3|max_threads=3 team=3"
	"OMP_NUM_THREADS=1|max_threads=1 team=1"
	"OMP_SCHEDULE=dynamic,4|schedule=dynamic chunk=4"
	"OMP_SCHEDULE=guided|schedule=guided"
	"OMP_SCHEDULE=static,3|schedule=static chunk=3"
	"OMP_SCHEDULE=static|schedule=static"
	"OMP_SCHEDULE=auto|schedule=auto"
	"OMP_SCHEDULE=nonmonotonic:dynamic,2|schedule=dynamic chunk=2"
	"OMP_SCHEDULE=monotonic:guided,5|schedule=monotonic:guided chunk=5"
	"OMP_DYNAMIC=true|dynamic=1"
	"OMP_DYNAMIC=false OMP_NUM_THREADS=2|dynamic=0 max_threads=2 team=2"
	"OMP_MAX_ACTIVE_LEVELS=3|max_active_levels=3"
	"OMP_MAX_ACTIVE_LEVELS=1|max_active_levels=1"
	"OMP_WAIT_POLICY=active OMP_NUM_THREADS=2|team=2"
	"OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2|team=2"
	"OMP_STACKSIZE=16M|stack=ok"
	"OMP_STACKSIZE=16384K|stack=ok"
	"OMP_PROC_BIND=true|proc_bind=true"
	"OMP_PROC_BIND=false|proc_bind=false"
	"OMP_PROC_BIND=close|proc_bind=close"
	"OMP_PROC_BIND=spread|proc_bind=spread"
	"OMP_PROC_BIND=master|proc_bind=master"
	"OMP_PLACES=cores|num_places=@"
	"OMP_PLACES=threads|num_places=@"
	"OMP_PLACES=sockets|num_places=@"
	"OMP_PLACES=cores OMP_PROC_BIND=spread|num_places=@ proc_bind=spread"
	"OMP_PROC_BIND=spread,close|proc_bind=spread max_active_levels=@ num_places=@"
	"OMP_PROC_BIND=false OMP_PLACES=cores|proc_bind=false num_places=@"
	"OMP_NUM_THREADS=2,2|max_threads=2 max_active_levels=@"
	"OMP_NUM_THREADS=2 OMP_SCHEDULE=guided,7 OMP_DYNAMIC=false|max_threads=2 team=2 schedule=guided chunk=7 dynamic=0"
)
# ENV...|EXPECTED, under the drop-in only.
xsched_valid=(
	"XSCHED_LOOP_SCHEDULE=hybrid|schedule=hybrid sum=499500"
	"XSCHED_LOOP_SCHEDULE=static OMP_SCHEDULE=guided|schedule=static sum=499500"
	"XS_TEST_SET_SCHEDULE=5|set_schedule=hybrid sum=499500"
	"XS_TEST_SET_SCHEDULE=5 XSCHED_LOOP_HYBRID_NS=1 XSCHED_LOOP_HYBRID_ND=8 XSCHED_LOOP_HYBRID_GRAIN=100|set_schedule=hybrid sum=499500"
)
# ENV...|the variable the one diagnostic must name, under the drop-in only:
# the program fails before it runs (exit 1), as a native one would.
xsched_invalid=(
	"XSCHED_LOOP_SCHEDULE=cyclic|XSCHED_LOOP_SCHEDULE"
	"XSCHED_LOOP_HYBRID_NS=0|XSCHED_LOOP_HYBRID_NS"
	"XSCHED_LOOP_HYBRID_ND=30 XSCHED_LOOP_HYBRID_GRAIN=50|XSCHED_LOOP_HYBRID_ND x XSCHED_LOOP_HYBRID_GRAIN"
)
invalid=(
	OMP_NUM_THREADS=abc
	OMP_SCHEDULE=sometimes
	OMP_STACKSIZE=12Q
	OMP_STACKSIZE=17179869185G
	OMP_PLACES=bogus
	OMP_PROC_BIND=maybe
	OMP_WAIT_POLICY=lazy
	OMP_DYNAMIC=perhaps
	OMP_MAX_ACTIVE_LEVELS=many
)

while read -r var; do
	unset "$var"
done < <(compgen -e | grep -E '^(OMP|GOMP|KMP)_')
unset LD_PRELOAD

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

echo "TAP version 13"
echo "1..$((1 + 2 * ${#valid[@]} + 2 * ${#invalid[@]} + ${#xsched_valid[@]} + ${#xsched_invalid[@]}))"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

cat >"$out/env-probe.c" <<'EOF'
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Touches BYTES of stack from the top down, so the guard page is hit first. */
static __attribute__((noinline)) int probe(size_t bytes)
{
	volatile char buf[bytes];

	for (size_t i = bytes; i >= 4096; i -= 4096)
		buf[i - 1] = (char)i;
	return buf[bytes - 1] == (char)bytes;
}

int main(void)
{
	/* 5: xsched's hybrid, which only the drop-in reports */
	static const char *const kinds[] = { "?", "static", "dynamic", "guided", "auto", "hybrid" };
	static const char *const binds[] = { "false", "true", "master", "close", "spread" };
	const char *want_stack = getenv("XS_TEST_STACK_PROBE");
	const char *set = getenv("XS_TEST_SET_SCHEDULE");
	omp_sched_t kind;
	int chunk, team = 0, stack_ok = 0;
	long sum = 0;

	if (set) {
		omp_set_schedule((omp_sched_t)atoi(set), 0);
		omp_get_schedule(&kind, &chunk);
		printf("set_schedule=%s\n", (unsigned)kind <= 5 ? kinds[kind] : "?");
	}

	omp_get_schedule(&kind, &chunk);
	unsigned base = (unsigned)kind & ~(unsigned)omp_sched_monotonic;
	int monotonic = ((unsigned)kind & (unsigned)omp_sched_monotonic) && base != omp_sched_static;
	int bind = omp_get_proc_bind();

	printf("max_threads=%d\n", omp_get_max_threads());
	printf("dynamic=%d\n", omp_get_dynamic());
	printf("max_active_levels=%d\n", omp_get_max_active_levels());
	printf("schedule=%s%s\n", monotonic ? "monotonic:" : "", base <= 5 ? kinds[base] : "?");
	printf("chunk=%d\n", chunk);
	printf("proc_bind=%s\n", bind >= 0 && bind <= 4 ? binds[bind] : "?");
	printf("num_places=%d\n", omp_get_num_places());
#pragma omp parallel
#pragma omp master
	team = omp_get_num_threads();
	printf("team=%d\n", team);
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
	for (int i = 0; i < 1000; i++)
		sum += i;
	printf("sum=%ld\n", sum);
	if (want_stack) {
		/* On a thread the runtime started: the main thread's stack is
		 * governed by ulimit -s, not by OMP_STACKSIZE. */
#pragma omp parallel num_threads(2)
		if (omp_get_thread_num() == 1)
			stack_ok = probe(strtoul(want_stack, NULL, 0));
		printf("stack=%s\n", stack_ok ? "ok" : "no second thread");
	}
	printf("done\n");
	return 0;
}
EOF
bin=$out/env-probe
"$cc" -fopenmp -O2 -Wall -Wextra -Werror -o "$bin" "$out/env-probe.c" >"$tmp/cc" 2>&1
compiled=$((!$?))
result $compiled "env-probe.c compiles" "$(head -n 10 "$tmp/cc")"

# run RUNTIME ENV...: runs the probe; sets status, stdout and stderr files.
run() {
	local runtime=$1 preload=()
	shift
	[[ $runtime == xsched-gomp ]] && preload=("LD_PRELOAD=$dropin")
	(
		# timeout outside env: the preload and OMP_PLACES are for the
		# probe only (libgomp in timeout would bind it to one CPU).
		timeout -k 5 60 env "$@" "${preload[@]}" "$bin" </dev/null >"$tmp/stdout" 2>"$tmp/stderr"
		exit $?
	) 2>/dev/null
	status=$?
}

not_run() {
	local what=$1
	if ((!compiled)); then
		echo "env-probe.c did not compile"
	elif [[ $what == xsched-gomp && ! -f $dropin ]]; then
		echo "$dropin was not built (it is part of make: build/libxsched-gomp.so.1)"
	fi
}

for c in "${valid[@]}"; do
	read -ra envs <<<"${c%%|*}"
	read -ra want <<<"${c#*|}"
	extra=()
	[[ ${c%%|*} == *OMP_STACKSIZE=* ]] && extra=(XS_TEST_STACK_PROBE=$((12 << 20)))
	declare -A ref=()
	for runtime in libgomp xsched-gomp; do
		name="$runtime ${c%%|*}: ${c#*|}"
		why=$(not_run $runtime)
		if [[ -n $why ]]; then
			result 0 "$name" "$why"
			continue
		fi
		run $runtime "${envs[@]}" "${extra[@]}"
		diag=()
		((status == 0)) || diag+=("$(describe $status)")
		[[ -s $tmp/stderr ]] && diag+=("unexpected stderr:" "$(head -n 5 "$tmp/stderr")")
		grep -qx done "$tmp/stdout" || diag+=("the probe did not finish")
		for kv in "${want[@]}"; do
			key=${kv%%=*} val=${kv#*=}
			got=$(sed -n "s/^$key=//p" "$tmp/stdout")
			if [[ $runtime == libgomp ]]; then
				ref[$key]=$got
			fi
			[[ $val == @ ]] && val=${ref[$key]:-}
			[[ $got == "$val" ]] || diag+=("$key: got '$got', expected '$val'")
		done
		result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
	done
	unset ref
done

for e in "${invalid[@]}"; do
	var=${e%%=*}
	for runtime in libgomp xsched-gomp; do
		name="$runtime $e: diagnostic names $var, no crash"
		why=$(not_run $runtime)
		if [[ -n $why ]]; then
			result 0 "$name" "$why"
			continue
		fi
		run $runtime "$e"
		prefix=$([[ $runtime == libgomp ]] && echo libgomp || echo libxsched-gomp)
		diag=()
		grep -q "^$prefix: .*$var" "$tmp/stderr" ||
			diag+=("no line '$prefix: ...$var...' on stderr")
		if ((status == 0)); then
			grep -qx done "$tmp/stdout" || diag+=("exit status 0 but the probe did not finish")
		elif ((status == 124 || status == 137 || (status > 128 && status != 128 + 6))); then
			diag+=("$(describe $status)")
		fi
		((${#diag[@]})) && diag+=("stderr:" "$(head -n 5 "$tmp/stderr")")
		result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
	done
done
for c in "${xsched_valid[@]}"; do
	read -ra envs <<<"${c%%|*}"
	read -ra want <<<"${c#*|}"
	name="xsched-gomp ${c%%|*}: ${c#*|}"
	why=$(not_run xsched-gomp)
	if [[ -n $why ]]; then
		result 0 "$name" "$why"
		continue
	fi
	run xsched-gomp "${envs[@]}"
	diag=()
	((status == 0)) || diag+=("$(describe $status)")
	[[ -s $tmp/stderr ]] && diag+=("unexpected stderr:" "$(head -n 5 "$tmp/stderr")")
	grep -qx done "$tmp/stdout" || diag+=("the probe did not finish")
	for kv in "${want[@]}"; do
		key=${kv%%=*} val=${kv#*=}
		got=$(sed -n "s/^$key=//p" "$tmp/stdout")
		[[ $got == "$val" ]] || diag+=("$key: got '$got', expected '$val'")
	done
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
done

for c in "${xsched_invalid[@]}"; do
	read -ra envs <<<"${c%%|*}"
	var=${c#*|}
	name="xsched-gomp ${c%%|*}: one diagnostic names $var, exit 1 before main"
	why=$(not_run xsched-gomp)
	if [[ -n $why ]]; then
		result 0 "$name" "$why"
		continue
	fi
	run xsched-gomp "${envs[@]}"
	diag=()
	count=$(grep -c "^xsched: $var.* is invalid: expected" "$tmp/stderr")
	((count == 1)) || diag+=("$count lines 'xsched: $var... is invalid: expected' on stderr, expected 1")
	((status == 1)) || diag+=("$(describe $status), expected exit status 1")
	[[ -s $tmp/stdout ]] && diag+=("the program ran: $(head -c 200 "$tmp/stdout")")
	((${#diag[@]})) && diag+=("stderr:" "$(head -n 5 "$tmp/stderr")")
	result $((${#diag[@]} == 0)) "$name" "${diag[@]}"
done
exit $failed
