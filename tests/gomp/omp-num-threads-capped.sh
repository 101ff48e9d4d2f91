#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# num_threads(n) above the most workers a runtime may have (1024,
# xs_runtime_create()) gives the largest team allowed (OpenMP leaves the
# team size to the implementation when it cannot give what was asked), and
# says so once: num_threads(10000) and then num_threads(5000) run on 1024
# threads each, one line on stderr names the limit, and a later
# num_threads(2) still gets 2. (Before, the runtime of 10000 workers
# failed and every region after it ran on one thread.)
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"
. "${XS_SRCDIR:-.}/scripts/tap.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_NUM_THREADS LD_PRELOAD OMP_THREAD_LIMIT OMP_DYNAMIC

echo "TAP version 13"
echo "1..4"
cat >"$tmp/cap.c" <<'C'
#include <omp.h>
#include <stdio.h>

static int team(int asked)
{
	int n = 0, ran = 0;

#pragma omp parallel num_threads(asked) shared(n, ran)
	{
#pragma omp single
		n = omp_get_num_threads();
#pragma omp atomic
		ran++;
	}
	return n == ran ? n : -ran;
}

int main(void)
{
	int a = team(10000), b = team(5000), c = team(2);

	printf("first=%d second=%d small=%d\n", a, b, c);
	return 0;
}
C
if ! gcc -fopenmp -O2 -Wall -Wextra -Werror -o "$tmp/cap" "$tmp/cap.c" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi
field() { sed -n "s/.*$1=\(-*[0-9]*\).*/\1/p" "$tmp/out"; }

timeout 120 env LD_PRELOAD="$build/libxsched-gomp.so.1" "$tmp/cap" >"$tmp/out" 2>"$tmp/stderr"
status=$?
result "$((status == 0))" "the regions run ($(describe $status))" "$(cat "$tmp/stderr")"
result "$([ "$(field first)" = 1024 ] && [ "$(field second)" = 1024 ] && echo 1 || echo 0)" \
	"num_threads(10000) and num_threads(5000) get teams of 1024 threads" "$(cat "$tmp/out")"
result "$([ "$(field small)" = 2 ] && echo 1 || echo 0)" \
	"a later num_threads(2) gets 2 threads" "$(cat "$tmp/out")"
result "$([ "$(grep -c . "$tmp/stderr")" = 1 ] && grep -q "at most 1024" "$tmp/stderr" && echo 1 || echo 0)" \
	"one line says so, naming the limit" "$(cat "$tmp/stderr")"
exit $failed
