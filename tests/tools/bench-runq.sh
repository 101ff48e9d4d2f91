#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench's runq% (tools/bench/harness/runq.c): every xsched row of the
# counters block says how long its threads waited for a CPU, a share of
# threads x run time (not negative; above 100 is possible for runs this
# short, runq.c says why), and --json carries the same figure as runq_ns
# per run, a count of nanoseconds. Only the output's shape and sign are
# checked: the value itself depends on the machine.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
bench=$build/xsched-bench
. "$src/scripts/tap.sh"

if [[ ! -x $bench ]]; then
	echo "1..0 # SKIP $bench not built (make)"
	exit 4
fi
if [[ ! -r /proc/self/schedstat ]]; then
	echo "1..0 # SKIP /proc/self/schedstat unreadable (a kernel without CONFIG_SCHED_INFO)"
	exit 4
fi
echo "1..2"

# fib(20): about a millisecond a run.
out=$(timeout 120 "$bench" --only fib --n 20 --runtime xsched --threads 1,2 --repeat 2 2>&1)
s=$?
vals=$(awk '/ runq% / { for (i = 1; i <= NF; i++) if ($i == "runq%") col = i; next }
	    col && $1 == "xsched" { print $col }' <<<"$out" | paste -sd' ')
ok=1
[[ $s == 0 ]] || ok=0
[[ $(wc -w <<<"$vals") == 2 ]] || ok=0
for v in $vals; do
	[[ $v =~ ^[0-9]+\.[0-9][0-9]$ ]] || ok=0
done
result $ok "the counters block has a runq% for each xsched row" \
	"$(describe $s)" "runq%: $vals" "$out"

out=$(timeout 120 "$bench" --only fib --n 20 --runtime xsched --threads 1,2 --repeat 2 --json 2>&1)
s=$?
vals=$(grep '"runtime":"xsched"' <<<"$out" | grep -o '"runq_ns":[0-9]*' | paste -sd' ')
[[ $s == 0 && $(wc -w <<<"$vals") == 2 ]]
result $((! $?)) "--json: each xsched cell has runq_ns, a count of nanoseconds" \
	"$(describe $s)" "runq_ns: $vals" "$out"
