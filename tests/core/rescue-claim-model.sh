#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The claim protocol of libxsched/core/rescue.h, model-checked with Spin
# (tests/models/rescue-claim.pml): the full state space has no item popped
# twice and none lost, and each of the two mutations that break the
# protocol (the victim does not reload its cached index after a claim; the
# thief does not check the victim's consuming flag) is caught.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
model=$(realpath "$src/tests/models/rescue-claim.pml")
. "$src/scripts/tap.sh"

if ! command -v spin >/dev/null; then
	echo "1..0 # SKIP spin not installed (apt install spin)"
	exit 4
fi
echo "1..3"
work=$(mktemp -d "${TMPDIR:-/tmp}/rescue-claim.XXXXXX")
trap 'rm -rf "$work"' EXIT

# check DEFINE: spin's verdict on the model built with -D$DEFINE (or none)
check() {
	(cd "$work" && rm -f pan* && spin ${1:+-D$1} -a "$model" >/dev/null &&
	 ${CC:-gcc} -O2 -DSAFETY -o pan pan.c && ./pan -m200000 2>&1)
}

out=$(check "")
s=$?
[[ $s == 0 && $out == *"errors: 0"* && $out == *"Full statespace search"* ]]
result $((! $?)) "the protocol: no item popped twice or lost, whole state space" \
	"$(describe $s)" "$out"
for m in NO_RELOAD NO_CONSUMING; do
	out=$(check $m)
	[[ $out == *"assertion violated"* && $out == *"errors: 1"* ]]
	result $((! $?)) "mutation $m is caught" "$out"
done
exit $failed
