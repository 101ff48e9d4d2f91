#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# fib-manual's default size is fib(40), the other fib versions keep 35:
# past depth 10 fib-manual runs the serial fib_seq(), whose fib(35) took
# about 14 ms - too short a run to compare runtimes by. Every runtime
# runs the same size (it is the program's, not the runtime's).
#
#   xsched-bench --list names fib-manual with n 40 and fib-if0/-final with
#   n 35; xsched-bench-omp --only fib-manual without --n runs n 40 and
#   gives fib(40) (0x6197ecb) under libgomp and under the drop-in.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/bench-omp-prologue.sh"
echo "1..3"

out=$("$bench" --list 2>&1)
s=$?
[[ $s == 0 && $out == *'fib-manual       n 40 '* && $out == *'fib-if0          n 35 '* &&
	$out == *'fib-final        n 35 '* ]]
result $((! $?)) "xsched-bench --list: fib-manual n 40, fib-if0 and fib-final n 35" \
	"$(describe $s)" "$out"

# One run each, a team of one: about 150 ms, more on a loaded machine.
for rt in libgomp xgomp; do
	if [[ $rt == xgomp && -n ${SANITIZE:-} ]]; then
		# As tests/omp-preload-guard.sh says: an instrumented drop-in
		# cannot be preloaded into the uninstrumented bench.
		n=$((n + 1))
		echo "ok $n xsched-bench-omp under xgomp # SKIP SANITIZE=$SANITIZE: an instrumented drop-in cannot be preloaded into uninstrumented programs"
		continue
	fi
	pre=()
	[[ $rt == xgomp ]] && pre=(env "LD_PRELOAD=$build/libxsched-gomp.so.1")
	out=$(OMP_NUM_THREADS=1 timeout 120 "${pre[@]}" "$omp" --only fib-manual --threads 1 \
		--warmup 0 --repeat 1 2>&1)
	s=$?
	[[ $s == 0 && $out == *'"n":40,'* && $out == *'"checksum":"0000000006197ecb"'* ]]
	result $((! $?)) "xsched-bench-omp --only fib-manual under $rt: n 40, fib(40)" \
		"$(describe $s)" "$out"
done

exit $failed
