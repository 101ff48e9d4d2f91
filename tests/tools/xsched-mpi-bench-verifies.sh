#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-mpi-bench runs each of its programs (the PILS loop, the Jacobi
# stencil) under every runtime it knows (libgomp, libomp where built, the
# drop-in, with OMP_DYNAMIC and with lending through a private xschedd),
# each run verified by the program, at a tiny size, and prints a row with
# a time for each: a smoke test of the benchmark, not a measurement. Once
# per MPI and program.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 4

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $build/xsched-mpi-bench ]] && why="$build/xsched-mpi-bench not built (make mpi)"
	[[ -z $why && ! -e $build/libxsched-gomp.so.1 ]] && why="the libgomp drop-in is not built"
	[[ -z $why && ! -x $build/xschedd ]] && why="$build/xschedd not built (bpftool, clang, BTF)"
	for app in pils jacobi; do
		if [[ -n $why ]]; then
			echo "ok $((n += 1)) $f $app # SKIP $why"
			continue
		fi
		out=$("$build/xsched-mpi-bench" --app "$app" --mpi "$f" --ranks 2 --threads 2 \
			--iters 3 --work 8 --grain 2000 --size 64 --repeat 1 --xschedd --timeout 60 2>&1)
		s=$?
		rows=$(grep -cE '^(libgomp|libomp|xgomp|xgomp-dyn|xgomp-lend) +[0-9]+\.[0-9]+ ' <<<"$out")
		want=4
		[[ -x $build/bench/mpi/$f/$app-libomp ]] && want=5
		result $((s == 0 && rows == want)) \
			"$f $app: every runtime's row has a verified time ($rows of $want)" "exit $s" "$out"
	done
done
exit $failed
