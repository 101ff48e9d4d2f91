#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench --micro: the EPCC rows (a construct with a fixed delay as
# its body or between two of them, minus the delays alone) next to the
# back-to-back rows, the runtimes alternated round by round.
#
#   every operation of micro.h has a line per runtime, one run per round
#   (--repeat 3: 3 runs); the hinted lock's row is skipped where gcc's
#   libgomp ABI has no omp_init_lock_with_hint, naming it; barrier rows
#   give xgomp's barrier in cache-line round trips; xgomp's rows give the
#   ratio to the best peer.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/bench-omp-prologue.sh"
echo "1..4"

ops="parallel barrier taskwait undeferred included epcc_parallel epcc_barrier
     epcc_for epcc_single epcc_critical epcc_lock epcc_lock_hint epcc_nest_lock"

# 200 operations a run: a few ms each, even on a loaded machine.
out=$(timeout 600 "$bench" --micro --runtime libgomp,xgomp --threads 1,2 \
	--iters 200 --repeat 3 --budget 60 --json 2>&1)
s=$?
ok=1 why=
for op in $ops; do
	for rt in libgomp xgomp; do
		for p in 1 2; do
			line=$(grep "\"micro\":\"$op\",\"runtime\":\"$rt\",\"threads\":$p," <<<"$out")
			if [[ $op == epcc_lock_hint ]]; then
				[[ $line == *'"status":"skipped"'* && $line == *omp_init_lock_with_hint* ]]
			else
				[[ $line == *'"status":"ok"'* && $line == *'"repeats":3,'* ]]
			fi || { ok=0 why+="$op $rt $p: ${line:-no line}"$'\n'; }
		done
	done
done
result $((s == 0 && ok)) "every operation, both runtimes, 1 and 2 threads: 3 rounds of one run" \
	"$(describe $s)" "$why" "$out"

ok=1 why=
for op in barrier epcc_barrier; do
	line=$(grep "\"micro\":\"$op\",\"runtime\":\"xgomp\",\"threads\":2," <<<"$out")
	[[ $line == *'"round_trips":'* && $line == *'"round_trip_ns":'* ]] ||
		{ ok=0 why+="$op: ${line:-no line}"$'\n'; }
done
result $ok "barrier rows give xgomp's barrier in cache-line round trips" "$why"

line=$(grep '"micro":"parallel","runtime":"xgomp","threads":2,' <<<"$out")
[[ $line == *'"vs_best_peer":'* ]]
result $((! $?)) "xgomp's rows give the ratio to the best peer" "${line:-no line}"

out=$(timeout 120 "$bench" --micro --runtime libgomp,xgomp --threads 1 --iters 200 \
	--repeat 2 --budget 60 2>&1)
s=$?
[[ $s == 0 && $out == *"epcc_barrier"*"EPCC"* && $out == *"back-to-back"* &&
   $out == *"round trip between CPUs"* ]]
result $((! $?)) "the table labels both methods and prints the round trip" \
	"$(describe $s)" "$out"

exit $failed
