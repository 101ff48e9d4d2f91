#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# libxsched-mpi stays out of the way of unmodified MPI programs, once per
# MPI (Open MPI, MPICH):
#   - it exports exactly the MPI_* entry points it interposes, and links
#     the libmpi of the MPI it was built for;
#   - an MPI_THREAD_MULTIPLE program (two threads per rank in collectives
#     at once) gets right results, and the summary counts every thread's
#     calls (per-thread counters merged at MPI_Finalize);
#   - XSCHED_MPI_LEND=1 without a daemon: one line says lending is off,
#     and every result is still right;
#   - a bad option value gets one line naming the variable and its range.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 8

interposed="MPI_Allgather MPI_Allreduce MPI_Alltoall MPI_Barrier MPI_Bcast MPI_Finalize
MPI_Gather MPI_Init MPI_Init_thread MPI_Probe MPI_Recv MPI_Reduce MPI_Scatter MPI_Send
MPI_Sendrecv MPI_Test MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome"

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	if [[ -n $why ]]; then
		for c in exports threads lend-no-daemon bad-option; do
			echo "ok $((n += 1)) $f $c # SKIP $why"
		done
		continue
	fi
	lib=$build/libxsched-mpi-$f.so prog=$build/tests/mpi/$f/imbalance

	# Exports and the MPI it links.
	got=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort | tr '\n' ' ')
	want=$(tr ' \n' '\n\n' <<<"$interposed" | grep . | sort | tr '\n' ' ')
	needed=$(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case $f in openmpi) mpilib=libmpi.so.40 ;; mpich) mpilib=libmpich.so.12 ;; esac
	result $([[ $got == "$want" && " $needed" == *" $mpilib "* ]] && echo 1 || echo 0) \
		"$f exports only the interposed MPI_* and links $mpilib" \
		"exports: $got" "want: $want" "needed: $needed"

	# MPI_THREAD_MULTIPLE.
	rm -f "$tmp"/own.* "$tmp"/sum.json
	out=$(mpi_run "$f" 2 XSCHED_MPI_SUMMARY="$tmp/sum.json" -- "$prog" "$tmp/own" 30 1000 1 threads 2>&1)
	s=$?
	if ((s == 3)); then
		echo "ok $((n += 1)) $f threads # SKIP this $f does not provide MPI_THREAD_MULTIPLE"
	else
		calls=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))
print(" ".join(str(r["mpi_by_class"]["collective"]["calls"]) + ("" if r["mpi_s"] <= r["elapsed_s"] else "!") for r in s["per_rank"]))' "$tmp/sum.json" 2>&1)
		ok=0
		[[ $s == 0 && $calls == "60 60" ]] && ok=1
		result $ok \
			"$f MPI_THREAD_MULTIPLE: right results, both threads' calls counted" \
			"mpirun: $(describe $s)" "collective calls per rank: $calls (want 60 60)" "$out"
	fi

	# Lending asked for, no daemon: off, said once, results right.
	out=$(mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$tmp/no-daemon" -- \
		"$prog" "$tmp/own" 10 1000 1 mixed 2>&1)
	s=$?
	lines=$(grep -c 'XSCHED_MPI_LEND=1 but no xschedd' <<<"$out")
	result $((s == 0 && lines == 1)) "$f XSCHED_MPI_LEND=1 without xschedd: one line, right results" \
		"mpirun: $(describe $s), $lines lines about lending" "$out"

	# A bad value is named with its range.
	out=$(mpi_run "$f" 2 XSCHED_MPI_SPIN_US=soon -- "$prog" "$tmp/own" 2 1000 0 2>&1)
	s=$?
	result $((s == 0 && $(grep -c "XSCHED_MPI_SPIN_US='soon': expected an integer in 0..1000000" <<<"$out") == 1)) \
		"$f XSCHED_MPI_SPIN_US=soon: named once with its range" "mpirun: $(describe $s)" "$out"
done
exit $failed
