#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Under the libgomp drop-in, the threads of a team are named after their
# OpenMP thread numbers: thread N > 0 reads "xsched-omp<N>" in
# /proc/thread-self/comm; thread 0, the program's main thread, keeps the
# program's name.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD OMP_NUM_THREADS

echo "TAP version 13"
echo "1..1"
. "$src/scripts/tap.sh"

cat >"$tmp/names.c" <<'C'
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	char names[4][32] = { "" };

#pragma omp parallel num_threads(4)
	{
		FILE *f = fopen("/proc/thread-self/comm", "r");
		int me = omp_get_thread_num();

		if (f) {
			if (fgets(names[me], sizeof(names[me]), f))
				names[me][strcspn(names[me], "\n")] = 0;
			fclose(f);
		}
	}
	for (int i = 0; i < 4; i++)
		printf("%d %s\n", i, names[i]);
	return 0;
}
C
if ! gcc -fopenmp -O2 -o "$tmp/names" "$tmp/names.c" 2>"$tmp/cc.err"; then
	sed 's/^/# /' "$tmp/cc.err"
	echo "Bail out! cannot compile the test program"
	exit 1
fi
LD_PRELOAD=$build/libxsched-gomp.so.1 "$tmp/names" >"$tmp/out" 2>"$tmp/err"
printf '0 names\n1 xsched-omp1\n2 xsched-omp2\n3 xsched-omp3\n' >"$tmp/want"
ok=0
cmp -s "$tmp/want" "$tmp/out" && ok=1
result $ok "drop-in threads are named xsched-omp<thread number>" \
	"got:" "$(cat "$tmp/out")" "$(cat "$tmp/err")"
exit $failed
