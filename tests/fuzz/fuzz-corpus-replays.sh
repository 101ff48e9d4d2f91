#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every input in tests/fuzz/corpus/NAME/ (the seeds, and each input that
# once crashed a target) goes through fuzz target NAME again in this build,
# without libFuzzer: build/fuzz/replay-NAME (tests/fuzz/replay.c) runs the
# same parser with the same promises. One result per target: it exits 0
# and replayed as many inputs as the directory holds. Under
# SANITIZE=address,undefined the replays are instrumented too.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
. "$src/scripts/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XS_SRCDIR=$src TMPDIR=$tmp

targets=()
for d in "$src"/tests/fuzz/corpus/*/; do
	targets+=("$(basename "$d")")
done
echo "1..${#targets[@]}"
for t in "${targets[@]}"; do
	want=$(find "$src/tests/fuzz/corpus/$t" -maxdepth 1 -type f ! -name '.*' | wc -l)
	if [[ ! -x $build/fuzz/replay-$t ]]; then
		result 0 "$t: $want inputs" "no $build/fuzz/replay-$t (make tests builds it)"
		continue
	fi
	out=$(timeout 300 "$build/fuzz/replay-$t" "$src/tests/fuzz/corpus/$t" 2>"$tmp/err")
	rc=$?
	ok=0
	[[ $rc == 0 && $out == "replayed $want inputs" ]] && ok=1
	result $ok "$t: $want inputs" "$(describe $rc): $out" "$(tail -20 "$tmp/err")"
done
exit $failed
