#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Lending end to end through a real xschedd (a private one, degraded mode,
# on a synthetic machine of 4 CPUs): a hybrid MPI + OpenMP program
# (tests/mpi/lendgrow.c) of two ranks under `xsched-run --mpi --lend`, the
# libgomp drop-in sizing its teams by the share (OMP_DYNAMIC=true,
# OMP_NUM_THREADS=3). Both ranks compute: the daemon splits the 4 CPUs
# between them, 2 each. While rank 0 waits in MPI_Recv it lends one CPU
# (its 2 less the one it keeps), and rank 1's parallel regions grow to 3
# threads; after rank 0's call returns (reclaimed) they are 2 again. Every
# region's result is checked. Once per MPI. Without the daemon's half of
# lending (ABI 3) rank 1's teams never grow.
# The JSON summary says what the daemon's shares gave: rank 1 borrowed
# CPU-seconds (shares[].borrowed over time, sampled by its libxsched-mpi),
# and the job borrowed no more than it lent, give or take 0.1 CPU-s of
# sampling (every daemon tick, 10 ms; a number, not null).
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 4

# "borrowed_cpu_s" of rank $2 in summary $1 ("job": the job's).
borrowed() {
	if [[ $2 == job ]]; then
		sed -n 's/^  "borrowed_cpu_s": \([0-9.]*\),$/\1/p' "$1"
	else
		sed -n "s/^    { \"rank\": $2, .*\"borrowed_cpu_s\": \([0-9.]*\),.*/\1/p" "$1"
	fi
}

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $build/xschedd ]] && why="$build/xschedd not built (bpftool, clang, BTF)"
	[[ -z $why && ! -x $build/xsched-run ]] && why="$build/xsched-run not built"
	[[ -z $why && ! -e $build/libxsched-gomp.so.1 ]] && why="the libgomp drop-in is not built"
	[[ -z $why && ! -x $build/tests/mpi/$f/lendgrow ]] && why="$build/tests/mpi/$f/lendgrow not built"
	[[ -z $why ]] && (($(nproc) < 2)) && why="1 CPU: a rank keeps one, nothing to lend"
	if [[ -n $why ]]; then
		echo "ok $((n += 1)) $f # SKIP $why"
		continue
	fi
	rd=$tmp/rd-$f
	if ! mpi_xschedd "$rd" 4; then
		result 0 "$f: xschedd starts" "$(cat "$rd.log")"
		continue
	fi
	sum=$tmp/summary-$f.json
	out=$(mpi_preload=0 mpi_run "$f" 2 XSCHED_RUNTIME_DIR="$rd" OMP_DYNAMIC=true OMP_NUM_THREADS=3 -- \
		"$build/xsched-run" --mpi --lend --summary "$sum" "$build/tests/mpi/$f/lendgrow" \
		"$tmp/teams-$f" 2>&1)
	s=$?
	mpi_xschedd_stop || { s=99; out+=$'\nxschedd had died or exited badly'; }
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
		"$(cat "$rd.log")"
	b1=$(borrowed "$sum" 1)
	bj=$(borrowed "$sum" job)
	lent=$(sed -n 's/^  "lent_cpu_s": \([0-9.]*\),$/\1/p' "$sum")
	ok=0
	[[ $s == 0 && -n $b1 && -n $bj && -n $lent ]] &&
		awk -v b1="$b1" -v bj="$bj" -v lent="$lent" \
			'BEGIN { exit !(b1 > 0 && bj <= lent + 0.1) }' && ok=1
	((ok)) && echo "# $f: rank 1 borrowed $b1 CPU-s, the job $bj, lent $lent"
	result $ok "$f: the summary's borrowed_cpu_s: rank 1 borrowed, the job no more than it lent" \
		"rank 1 borrowed: '$b1', job: '$bj', lent: '$lent'" \
		"$(cat "$sum" 2>/dev/null)"
done
exit $failed
