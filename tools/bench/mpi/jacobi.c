// SPDX-License-Identifier: MIT
/*
 * jacobi - a 2-D heat (Jacobi) stencil with halo exchange and an uneven
 * domain split, for xsched-mpi-bench --app jacobi: an unmodified MPI +
 * OpenMP program (mpicc -fopenmp: libgomp, or clang's libomp).
 *
 *   jacobi ITERS N IMBALANCE
 *
 * The plate has N x N interior cells; the top edge is held at 1, the other
 * edges at 0. Rank r owns a block of whole rows, sized in proportion to
 * 1 + r * IMBALANCE (IMBALANCE 2 on two ranks: 1/4 and 3/4 of the rows,
 * 3:1). Every iteration each rank exchanges its first and last rows with
 * its neighbours (MPI_Sendrecv), updates its rows in an OpenMP parallel
 * loop (each cell the mean of its four neighbours), and the ranks agree on
 * the largest change (MPI_Allreduce). Verified: rank 0 runs the same
 * iterations serially on the whole plate and compares every cell of the
 * gathered result bit for bit (each cell's update is the same arithmetic
 * whatever the split).
 *
 * Prints on rank 0: "jacobi: ranks N threads T time S change D ok" (time:
 * the iterations only). Exit status 1 on a wrong cell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <omp.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* First row (0-based, of the N interior rows) of rank @r's block. */
static int first_row(int r, int size, int n, double imbalance)
{
	double total = 0, before = 0;

	for (int i = 0; i < size; i++) {
		total += 1.0 + i * imbalance;
		if (i < r)
			before += 1.0 + i * imbalance;
	}
	return (int)((double)n * before / total + 0.5);
}

/* @rows interior rows of width @n + 2 (edge columns included), with a
 * halo row above and below: one Jacobi step from @a into @b; returns the
 * largest change. */
static double step(const double *a, double *b, int rows, int n)
{
	size_t w = (size_t)n + 2;
	double change = 0;

#pragma omp parallel for schedule(static) reduction(max : change)
	for (int i = 1; i <= rows; i++)
		for (int j = 1; j <= n; j++) {
			double v = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] +
					   a[i * w + j - 1] + a[i * w + j + 1]);
			double d = v > a[i * w + j] ? v - a[i * w + j] : a[i * w + j] - v;

			b[i * w + j] = v;
			if (d > change)
				change = d;
		}
	return change;
}

/* A plate of @rows interior rows plus halos, edges set: the top halo of
 * the block that starts at row 0 is the hot edge. */
static double *plate(int rows, int n, int top)
{
	size_t w = (size_t)n + 2;
	double *p = calloc((size_t)(rows + 2) * w, sizeof(*p));

	if (p && top)
		for (size_t j = 0; j < w; j++)
			p[j] = 1.0;
	return p;
}

int main(int argc, char **argv)
{
	int rank, size, iters, n, lo, hi, rows, up, down, bad = 0, threads = omp_get_max_threads();
	double imbalance, change = 0, t0, t;
	double *a, *b;
	size_t w;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 4 || (iters = atoi(argv[1])) < 1 || (n = atoi(argv[2])) < size ||
	    (imbalance = atof(argv[3])) < 0) {
		if (!rank)
			fprintf(stderr, "usage: jacobi ITERS N IMBALANCE (N >= ranks)\n");
		MPI_Finalize();
		return 2;
	}
	w = (size_t)n + 2;
	lo = first_row(rank, size, n, imbalance);
	hi = first_row(rank + 1, size, n, imbalance);
	rows = hi - lo;
	up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	a = plate(rows, n, lo == 0);
	b = plate(rows, n, lo == 0);
	if (!a || !b || rows < 1) {
		fprintf(stderr, "jacobi: rank %d: %d rows (N %d too small, or out of memory)\n", rank,
			rows, n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = now_s();
	for (int it = 0; it < iters; it++) {
		double mine;

		/* halos: my first row up, my last row down */
		MPI_Sendrecv(a + w, (int)w, MPI_DOUBLE, up, 0, a + (size_t)(rows + 1) * w, (int)w,
			     MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(a + (size_t)rows * w, (int)w, MPI_DOUBLE, down, 1, a, (int)w, MPI_DOUBLE,
			     up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mine = step(a, b, rows, n);
		MPI_Allreduce(&mine, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		{
			double *x = a;

			a = b;
			b = x;
		}
	}
	t = now_s() - t0;

	/* Verify: the blocks gathered on rank 0 against a serial run. */
	{
		int *counts = NULL, *displs = NULL;
		double *all = NULL, *ref = NULL, *tmp = NULL;

		if (!rank) {
			counts = malloc((size_t)size * sizeof(*counts));
			displs = malloc((size_t)size * sizeof(*displs));
			all = malloc((size_t)n * w * sizeof(*all));
			for (int r = 0; r < size; r++) {
				displs[r] = first_row(r, size, n, imbalance) * (int)w;
				counts[r] = first_row(r + 1, size, n, imbalance) * (int)w - displs[r];
			}
		}
		MPI_Gatherv(a + w, rows * (int)w, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
			    MPI_COMM_WORLD);
		if (!rank) {
			double c = 0;

			ref = plate(n, n, 1);
			tmp = plate(n, n, 1);
			omp_set_num_threads(1);
			for (int it = 0; it < iters; it++) {
				double *x = ref;

				c = step(ref, tmp, n, n);
				ref = tmp;
				tmp = x;
			}
			if (memcmp(all, ref + w, (size_t)n * w * sizeof(*all)) || c != change)
				bad = 1;
			printf("jacobi: ranks %d threads %d time %.6f change %.3g %s\n", size,
			       threads, t, change, bad ? "WRONG" : "ok");
			free(ref);
			free(tmp);
		}
		free(counts);
		free(displs);
		free(all);
	}
	free(a);
	free(b);
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return bad;
}
