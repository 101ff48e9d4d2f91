// SPDX-License-Identifier: MIT
/*
 * imbalance - an unmodified MPI program for the tests of libxsched-mpi
 * (built against each MPI with its mpicc, never linked with xsched).
 *
 *   imbalance OUT ITERS WORK_US IMBALANCE [MODE]
 *
 * Rank r "works" WORK_US * (1 + r * IMBALANCE) microseconds per iteration
 * (nanosleep: the test measures accounting, not CPU speed, and must not
 * load a shared machine), then synchronizes; MODE picks how:
 *   allreduce   MPI_Allreduce of the iteration's sum (default)
 *   mixed       MPI_Barrier, a ring of MPI_Isend/MPI_Irecv + MPI_Waitall,
 *               MPI_Sendrecv, MPI_Send/MPI_Recv, MPI_Bcast, MPI_Reduce,
 *               MPI_Allreduce
 *   threads     MPI_THREAD_MULTIPLE: two threads per rank, each with its
 *               own duplicated communicator, run the allreduce loop
 *   stuck       rank 0 waits in MPI_Recv for a message rank 1 never sends
 *               (rank 1 sleeps ITERS seconds): a rank to kill mid-wait
 * It checks every result it receives, measures its own time inside MPI
 * calls (a clock read on each side of every call) and writes
 * "rank elapsed_ns mpi_ns" to OUT.RANK: what the library's summary must
 * agree with. Exit status 1 on a wrong result.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void work(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts))
		;
}

static int rank, size, iters, bad;
static long work_us;
static double imbalance;
static uint64_t mpi_ns;

/* Time an MPI call into mpi_ns (main thread only). */
#define TIMED(call)                                  \
	do {                                         \
		uint64_t t0_ = now_ns();             \
		call;                                \
		mpi_ns += now_ns() - t0_;            \
	} while (0)

static void check(int ok, const char *what, int it)
{
	if (!ok && bad++ < 5)
		fprintf(stderr, "imbalance: rank %d iteration %d: wrong %s\n", rank, it, what);
}

static long my_work(void)
{
	return (long)((double)work_us * (1.0 + rank * imbalance));
}

static void loop_allreduce(MPI_Comm comm, uint64_t *ns)
{
	for (int it = 0; it < iters; it++) {
		long v = rank + it, sum = 0;
		uint64_t t0;

		work(my_work());
		t0 = now_ns();
		MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, comm);
		*ns += now_ns() - t0;
		check(sum == (long)size * (size - 1) / 2 + (long)size * it, "allreduce", it);
	}
}

static void loop_mixed(void)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	for (int it = 0; it < iters; it++) {
		long out = rank * 1000 + it, in = -1, in2 = -1, b = -1, sum = 0, red = 0;
		MPI_Request req[2];
		MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 warns about MPICH's */

		work(my_work());
		TIMED(MPI_Barrier(MPI_COMM_WORLD));
		TIMED(MPI_Irecv(&in, 1, MPI_LONG, left, 1, MPI_COMM_WORLD, &req[0]));
		TIMED(MPI_Isend(&out, 1, MPI_LONG, right, 1, MPI_COMM_WORLD, &req[1]));
		TIMED(MPI_Waitall(2, req, st));
		check(in == left * 1000 + it, "ring", it);
		TIMED(MPI_Sendrecv(&out, 1, MPI_LONG, right, 2, &in2, 1, MPI_LONG, left, 2,
				   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		check(in2 == left * 1000 + it, "sendrecv", it);
		if (rank == 0) {
			for (int r = 1; r < size; r++) {
				long got = -1;

				TIMED(MPI_Recv(&got, 1, MPI_LONG, r, 3, MPI_COMM_WORLD,
					       MPI_STATUS_IGNORE));
				check(got == r * 1000 + it, "recv", it);
			}
		} else {
			TIMED(MPI_Send(&out, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD));
		}
		if (rank == 0)
			b = 42 + it;
		TIMED(MPI_Bcast(&b, 1, MPI_LONG, 0, MPI_COMM_WORLD));
		check(b == 42 + it, "bcast", it);
		TIMED(MPI_Reduce(&out, &red, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
		if (rank == 0)
			check(red == 1000L * size * (size - 1) / 2 + (long)size * it, "reduce", it);
		TIMED(MPI_Allreduce(&out, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
		check(sum == 1000L * size * (size - 1) / 2 + (long)size * it, "allreduce", it);
	}
}

struct th {
	MPI_Comm comm;
	uint64_t ns;
};

static void *thread_main(void *arg)
{
	struct th *t = arg;

	loop_allreduce(t->comm, &t->ns);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 5 ? argv[5] : "allreduce";
	int threads = !strcmp(mode, "threads"), provided = 0;
	uint64_t t0, elapsed;
	char path[4096];
	FILE *f;

	if (argc < 5) {
		fprintf(stderr, "usage: imbalance OUT ITERS WORK_US IMBALANCE [allreduce|mixed|threads|stuck]\n");
		return 2;
	}
	if (threads) {
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	} else {
		MPI_Init(&argc, &argv);
	}
	t0 = now_ns();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	iters = atoi(argv[2]);
	work_us = atol(argv[3]);
	imbalance = atof(argv[4]);
	if (threads && provided < MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("imbalance: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
		MPI_Finalize();
		return 3;
	}
	if (!strcmp(mode, "allreduce")) {
		loop_allreduce(MPI_COMM_WORLD, &mpi_ns);
	} else if (!strcmp(mode, "mixed")) {
		loop_mixed();
	} else if (!strcmp(mode, "stuck")) {
		long v = 0;

		printf("imbalance: rank %d pid %d\n", rank, (int)getpid());
		fflush(stdout);
		if (rank == 0)
			MPI_Recv(&v, 1, MPI_LONG, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			work(iters * 1000000L);
	} else if (threads) {
		struct th th[2];
		pthread_t tid[2];

		/* Each thread's own communicator: collectives of two threads on
		 * one communicator would be unordered. */
		for (int i = 0; i < 2; i++) {
			th[i].ns = 0;
			MPI_Comm_dup(MPI_COMM_WORLD, &th[i].comm);
		}
		for (int i = 0; i < 2; i++)
			pthread_create(&tid[i], NULL, thread_main, &th[i]);
		for (int i = 0; i < 2; i++) {
			pthread_join(tid[i], NULL);
			MPI_Comm_free(&th[i].comm);
		}
		/* The threads overlap: this rank's MPI time is not their sum,
		 * so the test checks call counts here, not times. */
		mpi_ns = th[0].ns > th[1].ns ? th[0].ns : th[1].ns;
	} else {
		fprintf(stderr, "imbalance: unknown mode '%s'\n", mode);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	elapsed = now_ns() - t0;
	/* The file is written after MPI_Finalize: the library's clock runs
	 * until MPI_Finalize is entered, and file I/O in between (a time
	 * slice when 3 ranks share 2 CPUs) would count as useful time there
	 * and not here. */
	MPI_Finalize();
	snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d %llu %llu %d\n", rank, (unsigned long long)elapsed,
			  (unsigned long long)mpi_ns, bad) < 0 || fclose(f)) {
		perror(path);
		bad++;
	}
	return bad ? 1 : 0;
}
