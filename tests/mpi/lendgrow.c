// SPDX-License-Identifier: MIT
/*
 * lendgrow - a hybrid MPI + OpenMP program (gcc -fopenmp, 2 ranks) for
 * tests/mpi/mpi-lend-grows-team.sh: does a drop-in rank grow into the CPUs
 * another rank lends while it waits in MPI, and give them back?
 *
 *   lendgrow OUT
 *
 * Rank 0 runs parallel regions for 20 ms and computes until 300 ms (user
 * code: not lending; busy, so that xschedd gives it its part), then waits
 * in MPI_Recv for rank 1 (lending, with XSCHED_MPI_LEND=1), then sends
 * rank 1 a message once its MPI_Recv has returned (so the reclaim is
 * done), and computes 250 ms more (not lending) before the final
 * barrier.
 * Rank 1 runs short parallel regions and records each team's size: from
 * 20 to 150 ms ("before": rank 0 lends nothing yet), from 450 to
 * 650 ms ("during": rank 0 waits in MPI_Recv), then it sends to rank 0,
 * waits for rank 0's message, and 20 ms later runs regions for 100 ms
 * ("after").
 * It writes "PHASE min max regions" for each phase to OUT, and checks that
 * every region's sum is right (exit 1 if not).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

static uint64_t now_ms_since(struct timespec *t0)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)((ts.tv_sec - t0->tv_sec) * 1000 + (ts.tv_nsec - t0->tv_nsec) / 1000000);
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

/* Busy for @ms: a rank that computes between its MPI calls. */
static void spin_ms(uint64_t ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (now_ms_since(&t0) < ms)
		;
}

struct phase {
	const char *name;
	int min, max, regions;
};

static int bad;

/* Regions until @until_ms since @t0: each sums 0..9999 in parallel. */
static void regions(struct phase *p, struct timespec *t0, uint64_t until_ms)
{
	p->min = 1 << 30;
	p->max = 0;
	while (now_ms_since(t0) < until_ms) {
		long sum = 0;
		int team = 0;

#pragma omp parallel reduction(+ : sum)
		{
#pragma omp single
			team = omp_get_num_threads();
#pragma omp for
			for (int i = 0; i < 10000; i++)
				sum += i;
		}
		if (sum != 49995000L)
			bad++;
		p->min = team < p->min ? team : p->min;
		p->max = team > p->max ? team : p->max;
		p->regions++;
		nap_ms(2);
	}
}

int main(int argc, char **argv)
{
	struct phase ph[3] = { { "before", 0, 0, 0 }, { "during", 0, 0, 0 }, { "after", 0, 0, 0 } };
	struct timespec t0;
	int rank, size;
	long msg = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || argc < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 lendgrow OUT\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (rank == 0) {
		struct phase own = { "rank0", 0, 0, 0 };

		/* A hybrid rank: its team's workers are registered with the
		 * daemon, and it computes (the daemon counts a process that
		 * uses a CPU), so that it holds its part until it lends. */
		regions(&own, &t0, 20);
		spin_ms(280);
		MPI_Recv(&msg, 1, MPI_LONG, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		msg = 2;
		MPI_Send(&msg, 1, MPI_LONG, 1, 2, MPI_COMM_WORLD);
		spin_ms(250);
		if (own.regions && own.max < 1)
			bad++;
	} else {
		FILE *f;

		nap_ms(20); /* the daemon has counted rank 0 (its HELLO at MPI_Init) */
		regions(&ph[0], &t0, 150);
		nap_ms(300);
		regions(&ph[1], &t0, 650);
		msg = 1;
		MPI_Send(&msg, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD);
		MPI_Recv(&msg, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		/* A reclaim waits for the daemon's word only so long
		 * (XSCHED_MPI_RECLAIM_WAIT_US): give a late one 20 ms. */
		nap_ms(20);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		regions(&ph[2], &t0, 100);
		f = fopen(argv[1], "w");
		for (int i = 0; f && i < 3; i++)
			fprintf(f, "%s %d %d %d\n", ph[i].name, ph[i].min, ph[i].max, ph[i].regions);
		if (!f || fclose(f))
			bad++;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return bad ? 1 : 0;
}
