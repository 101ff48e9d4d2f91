#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-run --mpi runs one rank of an MPI job on xsched (mpirun ...
# xsched-run --mpi PROGRAM): it preloads the libxsched-mpi built for the
# MPI that PROGRAM links (its DT_NEEDED closure), the libgomp drop-in too
# when PROGRAM also links libgomp (hybrid MPI+OpenMP), passes --summary and
# --lend on, says what it chose under --verbose, and refuses a program that
# links no MPI, and --lend or --summary without --mpi, naming the problem.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 6

run=$build/xsched-run

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $run ]] && why="$run not built"
	if [[ -n $why ]]; then
		echo "ok $((n += 1)) $f: mpirun xsched-run --mpi # SKIP $why"
		echo "ok $((n += 1)) $f: hybrid program # SKIP $why"
		continue
	fi
	case $f in openmpi) mpilib=libmpi.so.40 ;; mpich) mpilib=libmpich.so.12 ;; esac

	# Pure MPI: the right library, the summary written, no drop-in.
	rm -f "$tmp"/sum.json "$tmp"/own.*
	out=$(mpi_preload=0 mpi_run "$f" 2 -- "$run" --mpi --verbose --summary "$tmp/sum.json" \
		"$build/tests/mpi/$f/imbalance" "$tmp/own" 5 1000 1 2>&1)
	s=$?
	chose=$(grep -c "links $mpilib: preloading $build/libxsched-mpi-$f.so" <<<"$out")
	ok=0
	[[ $s == 0 && $chose == 2 && -s $tmp/sum.json ]] && ! grep -q 'libxsched-gomp' <<<"$out" && ok=1
	result $ok "$f: mpirun xsched-run --mpi preloads libxsched-mpi-$f.so in every rank, summary written" \
		"mpirun: $(describe $s), $chose ranks said they chose it" "$out"

	# Hybrid MPI + OpenMP: both libraries preloaded.
	cat >"$tmp/hybrid.c" <<'C'
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, sum = 0, all = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel for reduction(+ : sum)
	for (int i = 0; i < 100; i++)
		sum += i;
	MPI_Allreduce(&sum, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("hybrid: %d\n", all);
	MPI_Finalize();
	return all == 9900 ? 0 : 1;
}
C
	if ! "mpicc.$f" -fopenmp -o "$tmp/hybrid-$f" "$tmp/hybrid.c" 2>"$tmp/cc.err"; then
		result 0 "$f: hybrid program" "mpicc.$f -fopenmp failed" "$(cat "$tmp/cc.err")"
		continue
	fi
	rm -f "$tmp"/sum.json
	out=$(mpi_preload=0 mpi_run "$f" 2 -- "$run" --mpi --verbose -n 2 --summary "$tmp/sum.json" \
		"$tmp/hybrid-$f" 2>&1)
	s=$?
	both=$(grep -c "LD_PRELOAD=$build/libxsched-gomp.so.1 $build/libxsched-mpi-$f.so" <<<"$out")
	ok=0
	[[ $s == 0 && $both == 2 && -s $tmp/sum.json ]] && grep -q 'hybrid: 9900' <<<"$out" && ok=1
	result $ok "$f: a hybrid MPI+OpenMP rank gets libxsched-mpi and the drop-in" \
		"mpirun: $(describe $s), $both ranks preloaded both" "$out"
done

# Placement (Open MPI: --bind-to none, then --bind-to core).
why=$(mpi_skip_why openmpi)
[[ -z $why && ! -x $run ]] && why="$run not built"
cpus=$(nproc)
[[ -z $why ]] && ((cpus < 2)) && why="1 CPU: nothing to split"
if [[ -n $why ]]; then
	echo "ok $((n += 1)) --place # SKIP $why"
	echo "ok $((n += 1)) launcher binding kept # SKIP $why"
else
	# Two nodes; with 4 CPUs or more, 2 threads a core, so that CPU
	# numbers interleave the nodes (0,2 on node 0; 1,3 on node 1) and
	# blocks in CPU-number order would be wrong.
	if ((cpus >= 4)); then
		spec=1s2n1c2t want0="0,2 (node 0)" want1="1,3 (node 1)"
	else
		spec=1s2n1c want0="0 (node 0)" want1="1 (node 1)"
	fi
	"$src/tools/xsched-mksysfs" --spec "$spec" "$tmp/sys" >/dev/null
	out=$(mpi_preload=0 mpi_run openmpi 2 XSCHED_SYSFS_ROOT="$tmp/sys" -- "$run" --mpi --place \
		--verbose "$build/tests/mpi/openmpi/imbalance" "$tmp/own" 2 1000 0 2>&1)
	s=$?
	ok=0
	[[ $s == 0 ]] && grep -q "local rank 0 of 2 (OMPI_COMM_WORLD_LOCAL_RANK): placed on CPUs $want0" <<<"$out" &&
		grep -q "local rank 1 of 2 (OMPI_COMM_WORLD_LOCAL_RANK): placed on CPUs $want1" <<<"$out" && ok=1
	result $ok "--place: unbound ranks get one NUMA node each ($spec)" "mpirun: $(describe $s)" "$out"

	out=$(timeout -k 5 "$mpi_timeout" mpirun.openmpi --allow-run-as-root -np 2 --bind-to core \
		--mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		"$run" --mpi --place --verbose "$build/tests/mpi/openmpi/imbalance" "$tmp/own" 2 1000 0 2>&1)
	s=$?
	kept=$(grep -c 'bound by the launcher to CPUs .*: kept' <<<"$out")
	result $((s == 0 && kept == 2)) "--place keeps the launcher's binding (--bind-to core) and says so" \
		"mpirun: $(describe $s), $kept ranks kept" "$out"
fi

# Refusals, named.
out=$("$run" --mpi --place --lend /bin/true 2>&1)
s=$?
result $((s == 2 && $(grep -c -- '--place binds a rank to its CPUs, and --lend' <<<"$out") == 1)) \
	"xsched-run --place --lend: exit 2 saying why" "exit $s" "$out"
out=$("$run" --mpi /bin/true 2>&1)
s=$?
result $((s == 2 && $(grep -c 'links no MPI library' <<<"$out") == 1)) \
	"xsched-run --mpi of a program without MPI: exit 2 saying so" "exit $s" "$out"
out=$("$run" --lend /bin/true 2>&1)
s=$?
result $((s == 2 && $(grep -c -- '--lend is for MPI programs: add --mpi' <<<"$out") == 1)) \
	"xsched-run --lend without --mpi: exit 2 saying so" "exit $s" "$out"
exit $failed
