#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every xsched tool answers --version and -V with "NAME (xsched) MAJOR.MINOR" from
# include/xsched.h and --help with its usage on stdout, both with exit
# status 0; and xsched-top takes its options in the forms top users type:
# -b -n1, -bn1, -d0.5, --delay=0.5, --delay 0.5, --batch, --iterations, -r,
# -p 1,2 -p 3, --filter, and makes as many refreshes as -n says; a -p list
# with a bad value is refused naming it. A bad number on a tool's command
# line (trailing text, empty, out of range, a fraction for an integer) is
# refused with exit status 2 and one message naming the tool, the option,
# the text and what it takes (tools/common/number.h).
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

major=$(sed -n 's/^#define XSCHED_VERSION_MAJOR *\([0-9]*\).*/\1/p' "$src/include/xsched.h")
minor=$(sed -n 's/^#define XSCHED_VERSION_MINOR *\([0-9]*\).*/\1/p' "$src/include/xsched.h")

# The tools of this build: the daemon and the CUDA tools only where they
# were built (make says why when they are not).
tools=()
for t in xsched-run xsched-top xsched-trace xsched-options xsched-affinity xschedd-bench \
	xsched-bench xsched-bench-omp; do
	tools+=("$build/$t")
done
for t in xschedd xsched-spmv-bench xsched-sync-bench; do
	[[ -x $build/$t ]] && tools+=("$build/$t")
done
tools+=("$src/tools/xsched-mksysfs")

top_forms=("-b -n1" "-bn1" "-d0.5 -bn2" "-b -d 0.5 -n 2" "--delay=0.5 --batch --iterations=2"
	"--delay 0.5 --batch --iterations 1" "--json -n2 -d0.1" "--json --iterations=3 --delay=0.1"
	"-bn1 -r -p 1,2 -p 3" "--json -n1 --reverse --pid=1,2 --filter=abc" "-b -r -n1 --filter x")

# "TOOL|ARGS|OPTION|TEXT": ARGS (words) give TEXT to OPTION.
bad_numbers=("xsched-run|--threads 4x true|--threads|4x"
	"xsched-trace|plot --width 10 none.json|--width|10"
	"xsched-affinity|plan none -o none --workers 2.5|--workers|2.5"
	"xsched-affinity|plan none -o none --dense-ratio 2|--dense-ratio|2"
	"xschedd-bench|--fib 5|--fib|5"
	"xsched-bench|--repeat 1x|--repeat|1x"
	"xsched-bench|--threads 1-0|--threads|0"
	"xsched-bench-omp|--repeat ''|--repeat|")
[[ -x $build/xsched-sync-bench ]] && bad_numbers+=("xsched-sync-bench|-n ''|-n|")
[[ -x $build/xsched-spmv-bench ]] && bad_numbers+=("xsched-spmv-bench|-r 5x|-r|5x")

echo "TAP version 13"
echo "1..$((3 * ${#tools[@]} + ${#top_forms[@]} + 2 + ${#bad_numbers[@]}))"
. "$src/scripts/tap.sh"

for t in "${tools[@]}"; do
	name=$(basename "$t")
	out=$("$t" --version 2>"$tmp/err")
	rc=$?
	ok=0
	[[ $rc == 0 && $out == "$name (xsched) $major.$minor" ]] && ok=1
	result $ok "$name --version" "$(describe $rc): '$out'" "$(cat "$tmp/err")"
	short=$("$t" -V 2>&1)
	result $([[ $short == "$out" ]] && echo 1 || echo 0) "$name -V says the same" "'$short'"

	"$t" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=0
	[[ $rc == 0 && ! -s $tmp/err ]] && grep -qi '^usage' "$tmp/out" && ok=1
	result $ok "$name --help" "$(describe $rc)" "$(head -n 3 "$tmp/out")" "$(cat "$tmp/err")"
done

# xsched-top in batch mode against an empty publishing directory and no
# daemon: the refreshes are counted (plain text: one header line each;
# JSON: one line each).
mkdir -p "$tmp/shm"
for form in "${top_forms[@]}"; do
	# shellcheck disable=SC2086 # the form is words
	timeout 20 "$build/xsched-top" $form --shm-dir "$tmp/shm" --runtime-dir "$tmp/none" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	want=$(sed -n 's/.*\(-n\|--iterations[= ]\) *\([0-9]\).*/\2/p; s/.*-bn\([0-9]\).*/\1/p' <<<"$form" | tail -n 1)
	if [[ $form == *json* ]]; then
		got=$(grep -c '^{' "$tmp/out")
	else
		got=$(grep -c '^PID ' "$tmp/out")
	fi
	ok=0
	[[ $rc == 0 && $got == "$want" ]] && ok=1
	result $ok "xsched-top $form: $want refreshes" "$(describe $rc), $got refreshes" \
		"$(cat "$tmp/err")"
done

timeout 20 "$build/xsched-top" -bn1 -d0.05 >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 2 ]] && grep -q -- "-d/--delay '0.05'" "$tmp/err" && ok=1
result $ok "xsched-top -d0.05: exit 2 naming the delay" "$(describe $rc)" "$(cat "$tmp/err")"

timeout 20 "$build/xsched-top" -bn1 -p 12,0x1f >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 2 ]] && grep -q -- "-p/--pid '12,0x1f'" "$tmp/err" && ok=1
result $ok "xsched-top -p 12,0x1f: exit 2 naming the list" "$(describe $rc)" "$(cat "$tmp/err")"
for case in "${bad_numbers[@]}"; do
	IFS='|' read -r name args opt text <<<"$case"
	# shellcheck disable=SC2086 # the arguments are words ('' an empty one)
	eval "timeout 20 \"\$build/\$name\" $args" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want="$name: $opt '$text': expected a"
	ok=0
	[[ $rc == 2 && $(grep -c -F -- "$want" "$tmp/err") == 1 ]] &&
		grep -qE -- "expected (an integer|a number) in \[" "$tmp/err" && ok=1
	result $ok "$name $args: exit 2, naming $opt and '$text'" "$(describe $rc)" \
		"$(cat "$tmp/err")"
done
exit $failed
