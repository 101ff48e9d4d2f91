#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run.sh O SECONDS TARGET... - run each libFuzzer target for SECONDS.
#
# Called by `make fuzz`. With FUZZ_RUNS=N in the environment a target stops
# after N executions instead, or after SECONDS if that comes first. Each target starts from its committed seeds
# (tests/fuzz/corpus/NAME, read only) and from what earlier runs found
# (O/corpus/NAME, where new inputs go); a crash, leak, timeout or broken
# promise is written to O/crashes/NAME-* and fails the run. One line per
# target: executions, execs/s, coverage (cov: edges, ft: features), corpus.
# The targets' own stderr (the parsers' error lines) is closed
# (-close_fd_mask=2); libFuzzer and the sanitizers still report.
# The targets' scratch files (top-pages, trace-json) go to /dev/shm
# where it can be written: on a disk, truncating and rewriting a file per
# input cost more than most parsers (mtx, when it still wrote one: 264
# against 2 100 execs/s on this machine).
set -uo pipefail

o=$1 seconds=$2
shift 2
mkdir -p "$o/crashes" "$o/tmp"
if [[ -d /dev/shm && -w /dev/shm ]]; then
	TMPDIR=$(mktemp -d /dev/shm/xsched-fuzz-run.XXXXXX) || exit 1
	trap 'rm -rf "$TMPDIR"' EXIT
else
	TMPDIR=$PWD/$o/tmp
fi
export TMPDIR # the targets' scratch files
# ASan keeps freed memory in quarantine (256 MB by default) before reusing
# it, to catch uses after free. Every target's state lives for one input,
# and no input frees more than a few MB, so 16 MB catches the same uses;
# with 256 MB the targets spent most of their time faulting in recycled
# pages (mtx: 3.9 against 1.4 s of CPU for 20 000 inputs).
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16}
runs_opt=()
if [[ -n ${FUZZ_RUNS:-} ]]; then
	[[ $FUZZ_RUNS =~ ^[1-9][0-9]*$ ]] || {
		echo "run.sh: FUZZ_RUNS=$FUZZ_RUNS is not a positive count" >&2
		exit 2
	}
	runs_opt=(-runs="$FUZZ_RUNS")
fi
failed=0
for t in "$@"; do
	mkdir -p "$o/corpus/$t"
	log=$o/fuzz-$t.log
	"$o/fuzz/$t" "${runs_opt[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$o/crashes/$t-" \
		"$o/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
	if ((rc)); then
		failed=1
		printf '%-15s FAILED (exit %d) after %s runs; see %s\n' "$t" "$rc" "${runs:-?}" "$log"
		grep -E 'ERROR|SUMMARY|fuzz check|Test unit written' "$log" | head -5 | sed 's/^/    /'
	else
		printf '%-15s %12s runs %8s exec/s  cov %5s  ft %6s  corpus %s\n' "$t" \
			"${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
	fi
done
exit $failed
