#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench --rounds K: every OpenMP cell is K child processes of up to
# --repeat runs each, the OpenMP runtimes taking turns.
#
#   an OpenMP cell reports K x R runs, serial still R; without --rounds a
#   cell reports R; the children start in turns, round k at the k-th
#   runtime (libgomp, xgomp, xgomp, libgomp, libgomp, xgomp, per
#   --progress), so that no runtime always follows the same one; a bad
#   --rounds is named, exit status 2.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/bench-omp-prologue.sh"
echo "1..4"

# fib at its quick size: a few ms a run. --budget 60: every run counts.
out=$(timeout 300 "$bench" --quick --only fib --runtime libgomp,xgomp --threads 1 \
	--repeat 2 --budget 60 --rounds 3 --json --progress 2>&1)
s=$?
ok=1 why=
for rt in libgomp xgomp; do
	line=$(grep "\"runtime\":\"$rt\"," <<<"$out")
	[[ $line == *'"status":"ok"'* && $line == *'"repeats":6,'* ]] ||
		{ ok=0 why+="$rt: ${line:-no line}"$'\n'; }
done
serial=$(grep '"runtime":"serial"' <<<"$out")
[[ $serial == *'"repeats":2,'* ]] || { ok=0 why+="serial: ${serial:-no line}"$'\n'; }
result $((s == 0 && ok)) "--rounds 3 --repeat 2: OpenMP cells 6 runs, serial 2" \
	"$(describe $s)" "$why" "$out"

turns=$(grep -o 'fib n=[0-9]* [a-z]*gomp' <<<"$out" | awk '{print $3}' | paste -sd,)
[[ $turns == libgomp,xgomp,xgomp,libgomp,libgomp,xgomp ]]
result $((! $?)) "the runtimes' children take turns, each round starting at the next runtime" \
	"turns: $turns" "$out"

out=$(timeout 300 "$bench" --quick --only fib --runtime xgomp --threads 1 \
	--repeat 2 --budget 60 --json 2>&1)
s=$?
line=$(grep '"runtime":"xgomp",' <<<"$out")
[[ $s == 0 && $line == *'"status":"ok"'* && $line == *'"repeats":2,'* ]]
result $((! $?)) "without --rounds a cell is one child of --repeat runs" "$(describe $s)" "$out"

out=$("$bench" --rounds 0 2>&1)
s=$?
[[ $s == 2 && $out == *--rounds* && $out == *1,\ 100* ]]
result $((! $?)) "--rounds 0 is refused, naming the option and its range" "$(describe $s)" "$out"

exit $failed
