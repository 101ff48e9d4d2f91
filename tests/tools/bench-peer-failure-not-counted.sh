#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench's exit status counts the runs of serial, xsched and the
# drop-in, not another runtime's: `make run` must not fail because libomp
# crashes in one of its cells (it does in floorplan-if0).
#
#   A "runtime" whose constructor raises SIGSEGV stands in for a crashing
#   libomp (--libomp PATH): its cells print ERROR, the bench says one line
#   on stderr about them, and exits 0. The same library as the drop-in
#   (--xgomp PATH) makes the bench exit 1.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
bench=$build/xsched-bench
. "$src/scripts/tap.sh"

if [[ ! -x $bench || ! -x $build/xsched-bench-omp ]]; then
	echo "1..0 # SKIP $bench or xsched-bench-omp not built (make)"
	exit 4
fi
if ! command -v cc >/dev/null; then
	echo "1..0 # SKIP no C compiler to build the crashing stand-in"
	exit 4
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/crash.c" <<'C'
#include <signal.h>
__attribute__((constructor)) static void crash(void) { raise(SIGSEGV); }
C
if ! cc -shared -fPIC -o "$tmp/libcrash.so" "$tmp/crash.c" 2>"$tmp/cc.err"; then
	echo "1..0 # SKIP cannot build the stand-in: $(head -1 "$tmp/cc.err")"
	exit 4
fi
echo "1..2"

run_bench() {
	timeout 120 "$bench" --only fib --n 18 --threads 1 --repeat 1 --warmup 0 "$@" \
		>"$tmp/out" 2>"$tmp/err"
}

run_bench --runtime xsched,libomp --libomp "$tmp/libcrash.so"
s=$?
grep -q 'libomp .*ERROR' "$tmp/out" && grep -q '1 cell of oneTBB, libgomp or libomp failed' "$tmp/err"
seen=$?
result $((s == 0 && seen == 0)) "a crashing libomp: its cell is ERROR, the bench says so and exits 0" \
	"$(describe $s)" "$(cat "$tmp/out" "$tmp/err")"

run_bench --runtime xsched,xgomp --xgomp "$tmp/libcrash.so"
s=$?
grep -q 'xgomp .*ERROR' "$tmp/out"
seen=$?
result $((s == 1 && seen == 0)) "a crashing drop-in: its cell is ERROR and the bench exits 1" \
	"$(describe $s)" "$(cat "$tmp/out" "$tmp/err")"
exit $failed
