// SPDX-License-Identifier: MIT
/*
 * pils - the synthetic imbalanced hybrid loop of DLB's PILS, for
 * xsched-mpi-bench: every iteration, rank r runs W * (1 + r * IMBALANCE)
 * OpenMP tasks of a fixed amount of arithmetic (GRAIN steps of an LCG),
 * then MPI_Allreduce of its checksum. An unmodified MPI + OpenMP program
 * (mpicc -fopenmp: libgomp, or clang's libomp), verified: the reduced
 * checksum must equal what rank 0 computes serially for every rank.
 *
 *   pils ITERS W IMBALANCE GRAIN
 *
 * Prints on rank 0: "pils: ranks N threads T time S checksum C ok".
 * Exit status 1 on a wrong checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>
#include <omp.h>

static uint64_t task(uint64_t seed, long grain)
{
	uint64_t x = seed * 2862933555777941757ull + 3037000493ull;

	for (long i = 0; i < grain; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x >> 17;
}

static long tasks_of(int rank, long w, double imbalance)
{
	return (long)((double)w * (1.0 + rank * imbalance) + 0.5);
}

/* One iteration's checksum of rank @rank, by the tasks. */
static uint64_t iteration(int rank, int it, long n, long grain)
{
	uint64_t sum = 0;

#pragma omp parallel
#pragma omp single
	for (long t = 0; t < n; t++) {
#pragma omp task shared(sum) firstprivate(t)
		{
			uint64_t v = task(((uint64_t)rank << 40) ^ ((uint64_t)it << 20) ^ (uint64_t)t, grain);

#pragma omp atomic
			sum += v;
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	int rank, size, iters, bad = 0;
	long w, grain;
	double imbalance, t0, t1;
	uint64_t total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 5) {
		if (rank == 0)
			fprintf(stderr, "usage: pils ITERS W IMBALANCE GRAIN\n");
		MPI_Finalize();
		return 2;
	}
	iters = atoi(argv[1]);
	w = atol(argv[2]);
	imbalance = atof(argv[3]);
	grain = atol(argv[4]);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int it = 0; it < iters; it++) {
		uint64_t mine = iteration(rank, it, tasks_of(rank, w, imbalance), grain), all = 0;

		MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
		total += all;
	}
	t1 = MPI_Wtime();
	if (rank == 0) {
		uint64_t want = 0;

		/* Serially, every rank's tasks: the reference. */
		for (int it = 0; it < iters; it++)
			for (int r = 0; r < size; r++)
				for (long t = 0, n = tasks_of(r, w, imbalance); t < n; t++)
					want += task(((uint64_t)r << 40) ^ ((uint64_t)it << 20) ^
							     (uint64_t)t, grain);
		bad = want != total;
		printf("pils: ranks %d threads %d time %.6f checksum %llu %s\n", size,
		       omp_get_max_threads(), t1 - t0, (unsigned long long)total,
		       bad ? "WRONG" : "ok");
	}
	MPI_Finalize();
	return bad;
}
