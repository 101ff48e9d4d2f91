#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-run says on stderr when the drop-in cannot serve a program: one
# that links no libgomp (a plain program; a clang -fopenmp one, which links
# LLVM libomp, named), also with --stats; a gcc -fopenmp program gets no
# such line. Under the drop-in a bad XSCHED_DLB fails the program before it
# runs (exit 1, the variable and the accepted values named), as it fails a
# native one, and so does an XSCHED_PROFILE that cannot be written.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
run=$build/xsched-run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD OMP_NUM_THREADS XSCHED_SHOW_STATS XSCHED_PROFILE XSCHED_DLB

echo "TAP version 13"
echo "1..6"
. "$src/scripts/tap.sh"

cat >"$tmp/plain.c" <<'C'
#include <stdio.h>
int main(void) { puts("ran"); return 0; }
C
cat >"$tmp/omp.c" <<'C'
#include <omp.h>
#include <stdio.h>
int main(void)
{
	int n = 0;
#pragma omp parallel
#pragma omp single
	n = omp_get_num_threads();
	printf("ran %d\n", n > 0);
	return 0;
}
C
if ! gcc -O2 -o "$tmp/plain" "$tmp/plain.c" 2>"$tmp/cc.err" ||
	! gcc -fopenmp -O2 -o "$tmp/gomp" "$tmp/omp.c" 2>>"$tmp/cc.err"; then
	sed 's/^/# /' "$tmp/cc.err"
	echo "Bail out! cannot compile the test programs"
	exit 1
fi

"$run" "$tmp/plain" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 0 ]] && grep -qx ran "$tmp/out" &&
	grep -q "xsched-run: $tmp/plain does not load libgomp" "$tmp/err" && ok=1
result $ok "a program without libgomp is named, and runs" "$(describe $rc)" "$(cat "$tmp/err")"

if clang -fopenmp -O2 -o "$tmp/llvm" "$tmp/omp.c" 2>"$tmp/cc.err" &&
	readelf -d "$tmp/llvm" | grep -q 'NEEDED.*libomp'; then
	"$run" --stats "$tmp/llvm" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=0
	[[ $rc == 0 ]] && grep -qx "ran 1" "$tmp/out" &&
		grep "does not load libgomp: it links libomp" "$tmp/err" | grep -q -- "--stats" && ok=1
	result $ok "a clang -fopenmp program: libomp named, also with --stats" \
		"$(describe $rc)" "$(cat "$tmp/err")"
else
	echo "ok 2 a clang -fopenmp program # SKIP clang -fopenmp with libomp not available here"
	n=2
fi

"$run" -n 2 "$tmp/gomp" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 0 ]] && grep -qx "ran 1" "$tmp/out" && ! grep -q "does not load" "$tmp/err" && ok=1
result $ok "a gcc -fopenmp program: no such line" "$(describe $rc)" "$(cat "$tmp/err")"

XSCHED_DLB=fast LD_PRELOAD=$build/libxsched-gomp.so.1 "$tmp/gomp" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 1 && ! -s $tmp/out ]] && grep -q 'XSCHED_DLB="fast" is invalid: expected slb, ws, rp' "$tmp/err" &&
	ok=1
result $ok "XSCHED_DLB=fast under the drop-in: exit 1 before main, values named" \
	"$(describe $rc)" "$(cat "$tmp/out" "$tmp/err")"

"$run" --profile "$tmp/no-such-dir/trace.json" "$tmp/gomp" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 1 && ! -s $tmp/out ]] &&
	grep -q "XSCHED_PROFILE=$tmp/no-such-dir/trace.json: cannot be written" "$tmp/err" && ok=1
result $ok "an unwritable --profile path: named before the program runs" \
	"$(describe $rc)" "$(cat "$tmp/out" "$tmp/err")"

"$run" -n 2 --profile "$tmp/trace.json" "$tmp/gomp" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok=0
[[ $rc == 0 ]] && grep -q '"traceEvents"' "$tmp/trace.json" 2>/dev/null && ok=1
result $ok "a writable --profile path still gets its trace" "$(describe $rc)" "$(cat "$tmp/err")"
exit $failed
