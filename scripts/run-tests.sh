#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-tests.sh TEST... - run test programs and report in KTAP.
#
# Each TEST is an executable (a kselftest-harness binary or a script) that
# prints TAP. It runs with stdin from /dev/null and a time limit of
# TEST_TIMEOUT seconds (default 300; a script may raise its own limit with
# a line "# xs-test-timeout: N"); its output is passed through indented
# as a KTAP subtest, followed by "ok N name", "not ok N name" or
# "ok N name # SKIP reason". The last line counts the individual test cases:
#
#   N passed, N failed, N skipped
#
# preceded by one "# skipped: NAME: reason" line per skipped program and
# per item of XS_NOT_BUILT (what make could not build, "what: why" items
# separated by ';'), so that a run says everything it left out.
#
# A program that crashes, exits non-zero, times out or prints fewer results
# than its plan counts as failed. Exit status: 1 if anything failed, else 0.
#
# Environment: TEST_TIMEOUT; SANITIZE (as given to make: under "thread" the
# programs run with ASLR off, see below); XS_SRCDIR and XS_BUILDDIR are
# passed on to the tests.
set -uo pipefail

timeout_s=${TEST_TIMEOUT:-300}
if ! [[ $timeout_s =~ ^[1-9][0-9]*$ ]]; then
	echo "run-tests.sh: TEST_TIMEOUT='$timeout_s' is not a number of seconds >= 1" >&2
	exit 2
fi

export XS_SRCDIR=${XS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export XS_BUILDDIR=${XS_BUILDDIR:-$XS_SRCDIR/build}

# ThreadSanitizer maps its shadow at fixed addresses. With more ASLR entropy
# than it expects (vm.mmap_rnd_bits > 28, the default of recent distribution
# kernels) it dies with "FATAL: ThreadSanitizer: unexpected memory mapping".
# Running the tests with ASLR off avoids that without touching sysctls.
wrapper=() note=
if [[ ${SANITIZE:-} == *thread* ]]; then
	if setarch "$(uname -m)" -R true 2>/dev/null; then
		wrapper=(setarch "$(uname -m)" -R)
	else
		note="# setarch -R is not permitted here; if TSan reports 'unexpected memory mapping', run: sysctl vm.mmap_rnd_bits=28"
	fi
	export TSAN_OPTIONS=${TSAN_OPTIONS:-second_deadlock_stack=1}
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

passed=0 failed=0 skipped=0 skip_list=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "KTAP version 1"
echo "1..$#"
[[ -n $note ]] && echo "$note"

n=0
for test in "$@"; do
	n=$((n + 1))
	name=$(basename "$test" .sh)
	plan=0 seen=0 t_pass=0 t_fail=0 t_skip=0 skip_reason=

	# Stream the test's output, indented; TAP lines count, anything else
	# (stderr, sanitizer reports) becomes a diagnostic so the KTAP stays valid.
	exe=$(realpath "$test")
	# A script may ask for a longer limit: a line "# xs-test-timeout: N".
	limit=$timeout_s
	if [[ $test == *.sh ]]; then
		own=$(sed -n 's/^# xs-test-timeout: *\([1-9][0-9]*\)$/\1/p' "$test" | head -n 1)
		[[ -n $own ]] && ((own > limit)) && limit=$own
	fi
	while IFS= read -r line || [[ -n $line ]]; do
		case $line in
		"ok "*"# SKIP"* | "ok "*"# skip"* | "not ok "*"# SKIP"*)
			seen=$((seen + 1)) t_skip=$((t_skip + 1))
			skip_reason=${line#*# [Ss][Kk][Ii][Pp]}
			skip_reason=${skip_reason# } ;;
		"ok "*)
			seen=$((seen + 1)) t_pass=$((t_pass + 1)) ;;
		"not ok "*)
			seen=$((seen + 1)) t_fail=$((t_fail + 1)) ;;
		1..*)
			plan=${line#1..} plan=${plan%%[!0-9]*} plan=${plan:-0}
			[[ $line == *"# SKIP"* ]] && skip_reason=${line#*# SKIP} skip_reason=${skip_reason# } ;;
		"" | "#"* | " "* | $'\t'* | "TAP version "* | "KTAP version "*) ;;
		*)
			line="# $line" ;;
		esac
		printf '  %s\n' "$line"
	done < <(
		cd "$XS_SRCDIR" &&
			timeout -k 10 "$limit" "${wrapper[@]}" "$exe" </dev/null 2>&1
		echo $? >"$tmp/rc"
	)
	rc=$(cat "$tmp/rc" 2>/dev/null || echo 255)

	why=
	if ((rc == 124 || rc == 137)); then
		why="timed out after ${limit}s"
	elif ((rc > 128)); then
		why="killed by signal $(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
	elif ((rc != 0 && rc != 4 && (rc != 1 || t_fail == 0))); then
		why="exit status $rc"
	elif ((seen < plan)); then
		why="$((plan - seen)) of $plan results missing"
	fi

	# Results the program never printed are failures; so is a program that
	# failed without a failing result (a crash between tests, a leak at exit).
	if [[ -n $why ]]; then
		missing=$((plan - seen))
		((missing > 0)) && t_fail=$((t_fail + missing))
		((t_fail == 0)) && t_fail=1
		echo "# $name: $why"
		echo "not ok $n $name"
	elif ((rc == 4 || (seen > 0 && t_skip == seen))); then
		((seen == 0)) && t_skip=1
		echo "ok $n $name # SKIP ${skip_reason:-no reason given}"
		skip_list+=("$name: ${skip_reason:-no reason given}")
	elif ((t_fail > 0)); then
		echo "not ok $n $name"
	else
		echo "ok $n $name"
	fi
	if [[ -z $why ]] && ((t_skip > 0 && t_skip < seen)); then
		skip_list+=("$name: $t_skip of $seen cases: ${skip_reason:-no reason given}")
	fi
	passed=$((passed + t_pass)) failed=$((failed + t_fail)) skipped=$((skipped + t_skip))
done

IFS=';' read -ra not_built <<<"${XS_NOT_BUILT:-}"
for item in "${not_built[@]}"; do
	[[ -n ${item// /} ]] && skip_list+=("${item# } (not built)")
done
((${#skip_list[@]})) && echo "# ${#skip_list[@]} skipped:"
for item in "${skip_list[@]}"; do
	echo "# skipped: $item"
done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
