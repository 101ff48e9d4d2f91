#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench --corun: K copies of a program started together, checked.
#
#   --json: one line per runtime row, each copy's result verified against
#   the serial run ("verified" = K), a makespan and a ratio for every row
#   that ran; the +d row is skipped with its reason when no xschedd serves;
#   the table has its header and a K/K verified column; a run that takes
#   longer than --timeout is reported as "timeout (>Ns)" and the bench goes
#   on (it does not hang); bad --corun and --noise values are named.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
bench=$build/xsched-bench
. "$src/scripts/tap.sh"

if [[ ! -x $bench || ! -x $build/xsched-bench-omp ]]; then
	echo "1..0 # SKIP $bench or xsched-bench-omp not built (make)"
	exit 4
fi
echo "1..7"

# Rows of one program, no noise: fib at its quick size (a few ms a run).
# --timeout 60, not --quick's 2 s: two spinning libgomp copies on a loaded
# 2-CPU machine, or under ASan (t1 0.65 s, solo 1.2 s), take longer than
# 2 s, and this test is about both copies running and being verified.
json=$(timeout 300 "$bench" --corun --quick --timeout 60 --noise quiet --only fib \
	--runtime xsched,libgomp --json 2>&1)
s=$?
ok=1 why=
for rt in libgomp xsched; do
	line=$(grep "\"runtime\":\"$rt\"," <<<"$json")
	[[ $line == *'"status":"ok"'* && $line == *'"verified":2'* &&
	   $line =~ \"makespan_s\":[0-9.]+ && $line =~ \"ratio\":[0-9.]+ &&
	   $line =~ \"solo_s\":[0-9.]+ ]] || { ok=0 why+="$rt: ${line:-no line}"$'\n'; }
done
result $((s == 0 && ok)) "json: libgomp and xsched rows ran both copies, both verified" \
	"$(describe $s)" "$why" "$json"

line=$(grep '"runtime":"xsched+d"' <<<"$json")
if [[ -S ${XSCHED_RUNTIME_DIR:-/run/xsched}/socket ]]; then
	[[ $line == *'"status":"ok"'* && $line == *'"verified":2'* ]]
else
	[[ $line == *'"status":"skipped"'* && $line == *'"reason":"no xschedd serves'* ]]
fi
result $((! $?)) "json: the xschedd row runs, or says why it cannot" "$line"

# Three copies, the table.
table=$(timeout 300 "$bench" --corun=3 --quick --timeout 60 --noise quiet --only fib \
	--runtime xsched 2>&1)
s=$?
row=$(grep -E '^  quiet +xsched +' <<<"$table")
[[ $s == 0 && $table == *"3 copies of a program started together"* &&
   $table == *co/sum* && $row =~ [0-9.]+\ +[0-9.]+\ +[0-9.]+\ +[0-9.]+\ +[0-9.]+\ +3/3$ ]]
result $((! $?)) "table: three copies, times, ratio and 3/3 verified" "$(describe $s)" "$table"

# fib(45) runs for many seconds on two threads: every group times out
# after 1 s, and the bench carries on to the end.
t0=$SECONDS
table=$(timeout 120 "$bench" --corun --noise quiet --only fib --n 45 --runtime xsched \
	--timeout 1 2>&1)
s=$?
row=$(grep -E '^  quiet +xsched +' <<<"$table")
[[ $s == 0 && $row == *"timeout (>1s)"* && $row == *"0/2" ]]
result $((! $?)) "a run over --timeout is reported as timeout, not waited for" \
	"$(describe $s) after $((SECONDS - t0)) s" "$table"

# Bad values are named.
err=$("$bench" --corun=0 2>&1)
s=$?
[[ $s == 2 && $err == *--corun* && $err == *"[1, 64]"* ]]
result $((! $?)) "--corun=0 is refused, naming the option and its range" "$(describe $s)" "$err"
err=$("$bench" --corun --noise loud 2>&1)
s=$?
[[ $s == 2 && $err == *"--noise: no condition 'loud'"* ]]
result $((! $?)) "--noise loud is refused, naming the condition" "$(describe $s)" "$err"

# The OpenMP copies report the library that served them: libgomp here.
line=$(grep '"runtime":"libgomp"' <<<"$json")
[[ $line == *'"status":"ok"'* ]] && ! grep -q 'went to' <<<"$json"
result $((! $?)) "json: the libgomp copies ran on libgomp" "$line"

exit $failed
