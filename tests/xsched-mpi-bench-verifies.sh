#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-mpi-bench runs the imbalanced hybrid loop under every runtime it
# knows (libgomp, libomp where built, the drop-in, with OMP_DYNAMIC and with
# lending on the stand-in), each run's checksum verified by the program, at
# a tiny size, and prints a row with a time for each: a smoke test of the
# benchmark, not a measurement. Once per MPI.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 2

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $build/xsched-mpi-bench ]] && why="$build/xsched-mpi-bench not built (make mpi)"
	[[ -z $why && ! -e $build/libxsched-gomp.so.1 ]] && why="the libgomp drop-in is not built"
	[[ -z $why && ! -x $build/tests/mpi-lend-standin ]] && why="the lending stand-in is not built (make tests)"
	if [[ -n $why ]]; then
		echo "ok $((n += 1)) $f # SKIP $why"
		continue
	fi
	out=$("$build/xsched-mpi-bench" --mpi "$f" --ranks 2 --threads 2 --iters 3 --work 8 \
		--grain 2000 --repeat 1 --standin --timeout 60 2>&1)
	s=$?
	rows=$(grep -cE '^(libgomp|libomp|xgomp|xgomp-dyn|xgomp-lend) +[0-9]+\.[0-9]+ ' <<<"$out")
	want=4
	[[ -x $build/bench/mpi/$f/pils-libomp ]] && want=5
	result $((s == 0 && rows == want)) "$f: every runtime's row has a verified time ($rows of $want)" \
		"exit $s" "$out"
done
exit $failed
