#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Lending end to end, on the daemon's half as docs/mpi.md proposes it (the
# stand-in with shares=4: a state file of ABI 3 whose shares move on LEND
# and RECLAIM): a hybrid MPI + OpenMP program (tests/mpi/lendgrow.c) of two
# ranks under `xsched-run --mpi --lend`, the libgomp drop-in sizing its
# teams by the share (OMP_DYNAMIC=true, OMP_NUM_THREADS=3). The stand-in
# splits 4 CPUs between the two ranks, 2 each. While rank 0 waits in
# MPI_Recv it lends one CPU, and rank 1's parallel regions grow to 3
# threads; after rank 0's call returns (reclaimed) they are 2 again. Every
# region's result is checked. Once per MPI.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 2

standin=$build/tests/mpi-lend-standin
for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $standin ]] && why="$standin not built (make tests)"
	[[ -z $why && ! -x $build/xsched-run ]] && why="$build/xsched-run not built"
	[[ -z $why && ! -e $build/libxsched-gomp.so.1 ]] && why="the libgomp drop-in is not built"
	[[ -z $why && ! -x $build/tests/mpi/$f/lendgrow ]] && why="$build/tests/mpi/$f/lendgrow not built"
	[[ -z $why ]] && (($(nproc) < 2)) && why="1 CPU: a rank keeps one, nothing to lend"
	if [[ -n $why ]]; then
		echo "ok $((n += 1)) $f # SKIP $why"
		continue
	fi
	rd=$tmp/rd-$f
	mkdir -p "$rd"
	"$standin" "$rd" "$tmp/log-$f" 100 shares=4 &
	sp=$!
	for _ in $(seq 50); do [[ -S $rd/socket ]] && break; sleep 0.1; done
	out=$(mpi_preload=0 mpi_run "$f" 2 XSCHED_RUNTIME_DIR="$rd" OMP_DYNAMIC=true OMP_NUM_THREADS=3 -- \
		"$build/xsched-run" --mpi --lend "$build/tests/mpi/$f/lendgrow" "$tmp/teams-$f" 2>&1)
	s=$?
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	teams=$(cat "$tmp/teams-$f" 2>/dev/null)
	ok=0
	# PHASE min max regions: before 2 2, during grew to 3, after 2 2.
	[[ $s == 0 ]] && awk '$1 == "before" && $2 == 2 && $3 == 2 && $4 > 0 { b = 1 }
		$1 == "during" && $3 == 3 { d = 1 }
		$1 == "after" && $2 == 2 && $3 == 2 && $4 > 0 { a = 1 }
		END { exit !(b && d && a) }' <<<"$teams" && ok=1
	((ok)) && echo "# $f teams (phase min max regions): $(tr '\n' ';' <<<"$teams")"
	result $ok "$f: a drop-in rank grows into the CPU another rank lends while it waits, and gives it back" \
		"mpirun: $(describe $s)" "teams (phase min max regions):" "$teams" "$out" \
		"$(grep -v HELLO "$tmp/log-$f")"
done
exit $failed
