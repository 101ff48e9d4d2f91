#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench --warmup W: every OpenMP child makes W untimed runs before
# its timed ones, the same for every runtime.
#
#   xsched-bench-omp --warmup 2 prints two "warmup" lines, then the "rep"
#   lines, all with the serial checksum; xsched-bench passes --warmup 1 by
#   default and the W it is given, and records only the timed runs; a
#   warm-up run with a wrong checksum fails the cell; a bad --warmup is
#   named, with its range, by both programs (exit status 2).
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/bench-omp-prologue.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..6"

# fib(20): about a millisecond a run.
out=$(timeout 60 "$omp" --only fib --n 20 --threads 1 --warmup 2 --repeat 2 2>&1)
s=$?
keys=$(grep -o '"\(warmup\|rep\)":[0-9]*' <<<"$out" | paste -sd,)
sums=$(grep -o '"checksum":"[0-9a-f]*"' <<<"$out" | sort -u)
[[ $s == 0 && $keys == '"warmup":0,"warmup":1,"rep":0,"rep":1' &&
	$sums == '"checksum":"0000000000001a6d"' ]]
result $((! $?)) "xsched-bench-omp --warmup 2: two warm-up lines, then the timed runs" \
	"$(describe $s)" "keys: $keys" "$out"

# A stand-in for xsched-bench-omp that logs its arguments and, with
# CORRUPT set, changes the checksum of the first warm-up line.
cat >"$tmp/omp" <<EOF
#!/usr/bin/env bash
set -o pipefail
echo "\$*" >>"$tmp/args"
if [[ -n \${CORRUPT-} ]]; then
	"$omp" "\$@" | sed '/"warmup":0,/s/"checksum":"0/"checksum":"f/'
else
	exec "$omp" "\$@"
fi
EOF
chmod +x "$tmp/omp"

run_bench() {
	: >"$tmp/args"
	timeout 120 "$bench" --omp "$tmp/omp" --only fib --n 20 --runtime libgomp,xgomp \
		--threads 1 --repeat 2 --budget 60 --json "$@" 2>&1
}

out=$(run_bench)
s=$?
ok=1
for rt in libgomp xgomp; do
	line=$(grep "\"runtime\":\"$rt\"," <<<"$out")
	[[ $line == *'"status":"ok"'* && $line == *'"repeats":2,'* ]] || ok=0
done
args=$(cat "$tmp/args")
[[ $s == 0 && $ok == 1 && $(grep -c -- '--warmup 1$' <<<"$args") == 2 ]]
result $((! $?)) "by default each child makes 1 warm-up run; cells record only the timed runs" \
	"$(describe $s)" "children: $args" "$out"

out=$(run_bench --warmup 3 --rounds 2)
s=$?
ok=1
for rt in libgomp xgomp; do
	line=$(grep "\"runtime\":\"$rt\"," <<<"$out")
	[[ $line == *'"status":"ok"'* && $line == *'"repeats":4,'* ]] || ok=0
done
args=$(cat "$tmp/args")
[[ $s == 0 && $ok == 1 && $(grep -c -- '--warmup 3$' <<<"$args") == 4 ]]
result $((! $?)) "--warmup 3 --rounds 2: every child gets --warmup 3, cells 4 runs" \
	"$(describe $s)" "children: $args" "$out"

out=$(CORRUPT=1 run_bench --runtime xgomp)
s=$?
line=$(grep '"runtime":"xgomp",' <<<"$out")
[[ $s == 1 && $line == *'"status":"error"'* && $line == *warm-up* ]]
result $((! $?)) "a warm-up run with a wrong checksum fails the cell" "$(describe $s)" "$out"

out=$("$bench" --warmup 101 2>&1)
s=$?
[[ $s == 2 && $out == *--warmup* && $out == *0,\ 100* ]]
result $((! $?)) "xsched-bench --warmup 101 is refused, naming the option and its range" \
	"$(describe $s)" "$out"

out=$("$omp" --only fib --warmup -1 2>&1)
s=$?
[[ $s == 2 && $out == *--warmup* && $out == *0,\ 100* ]]
result $((! $?)) "xsched-bench-omp --warmup -1 is refused, naming the option and its range" \
	"$(describe $s)" "$out"

exit $failed
