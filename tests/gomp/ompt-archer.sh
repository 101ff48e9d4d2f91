#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# LLVM's Archer race detector (Debian's libarcher.so, libomp-14-dev) on the
# drop-in, through OMPT: programs built with gcc -fsanitize=thread -fopenmp
# run on the drop-in (LD_LIBRARY_PATH=build/gomp serves it as
# libgomp.so.1) with OMP_TOOL_LIBRARIES=libarcher.so. Archer turns the
# OMPT events (regions, barriers, tasks and their dependences, locks) into
# the happens-before edges TSan cannot see in an uninstrumented runtime.
#
#   tests/ompt/archer-racy-*.c   a data race: TSan must report it
#   tests/ompt/archer-race-free.c  no race: TSan must report nothing (and
#                                its results are right)
#   control: the race-free program without Archer must be reported (the
#            runtime's synchronization is invisible to TSan), which shows
#            that Archer, not luck, removed those reports.
# docs/ompt.md has what the same programs give under the system libgomp.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD OMP_NUM_THREADS OMP_TOOL OMP_TOOL_LIBRARIES OMP_TOOL_VERBOSE_INIT ARCHER_OPTIONS

echo "TAP version 13"
. "$src/scripts/tap.sh"

archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | tail -n1)
if [[ -z $archer ]]; then
	echo "1..0 # SKIP libarcher.so not found (Debian: libomp-14-dev)"
	exit 0
fi
progs=(archer-racy-parallel archer-racy-tasks archer-race-free)
for p in "${progs[@]}"; do
	if ! gcc -fopenmp -fsanitize=thread -g -O1 -o "$tmp/$p" "$src/tests/ompt/$p.c" \
		2>"$tmp/cc.err"; then
		why=$(head -n1 "$tmp/cc.err")
		echo "1..0 # SKIP gcc cannot build a -fsanitize=thread -fopenmp program: $why"
		exit 0
	fi
done
echo "1..4"

# exitcode=0: the reports are read from stderr, the program's own status
# stays its own.
run() { # PROGRAM [ENV...]
	local p=$1
	shift
	env LD_LIBRARY_PATH="$build/gomp" TSAN_OPTIONS="ignore_noninstrumented_modules=1 exitcode=0" \
		"$@" timeout 300 "$tmp/$p" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	races=$(grep -c "WARNING: ThreadSanitizer: data race" "$tmp/err")
}

for p in archer-racy-parallel archer-racy-tasks; do
	run "$p" OMP_TOOL_LIBRARIES="$archer"
	result $((rc == 0 && races > 0)) "$p: the race is reported" \
		"$(describe $rc), $races reports" "$(head -c 4000 "$tmp/err")"
done

run archer-race-free OMP_TOOL_LIBRARIES="$archer"
what="dependences, taskwait, taskgroup, taskloop, barriers, lock, critical, reduction"
result $((rc == 0 && races == 0)) "archer-race-free: no report ($what)" \
	"$(describe $rc), $races reports" "$(head -c 4000 "$tmp/err")"

run archer-race-free
result $((rc == 0 && races > 0)) "control: without Archer the same program is reported" \
	"$(describe $rc), $races reports" "$(head -c 2000 "$tmp/err")"
exit $failed
