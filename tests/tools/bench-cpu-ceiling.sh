#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench's header prints the T1/TP ceiling (tools/bench/harness/cpu_ceiling.c)
# for the largest P of --threads: a positive ratio and one positive rate
# per CPU, P of them; nothing when that P is 1. Only the shape and sign
# are checked: the value is the machine's.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
bench=$build/xsched-bench
. "$src/scripts/tap.sh"

if [[ ! -x $bench ]]; then
	echo "1..0 # SKIP $bench not built (make)"
	exit 4
fi
if (($(nproc) < 2)); then
	echo "1..0 # SKIP one CPU: no ceiling to measure"
	exit 4
fi
echo "1..2"

out=$(timeout 120 "$bench" --only fib --n 20 --runtime xsched --threads 1,2 --repeat 1 2>&1)
s=$?
line=$(grep 'T1/T2 ceiling:' <<<"$out")
re='runs ([0-9]+\.[0-9]+)x its rate on CPU [0-9]+ alone \(per CPU: ([0-9.]+) ([0-9.]+)\)$'
ok=0
if [[ $s == 0 && $line =~ $re ]]; then
	awk -v a="${BASH_REMATCH[1]}" -v b="${BASH_REMATCH[2]}" -v c="${BASH_REMATCH[3]}" \
		'BEGIN { exit !(a > 0 && b > 0 && c > 0) }' && ok=1
fi
result $ok "--threads 1,2: a positive T1/T2 ceiling and two positive rates" \
	"$(describe $s)" "line: $line" "$out"

out=$(timeout 120 "$bench" --only fib --n 20 --runtime xsched --threads 1 --repeat 1 2>&1)
s=$?
[[ $s == 0 ]] && ! grep -q 'ceiling' <<<"$out"
result $((! $?)) "--threads 1: no ceiling line" "$(describe $s)" "$out"
