/* SPDX-License-Identifier: MIT */
/*
 * runtime.c - the runtimes xsched-bench compares, and how one cell (program
 * x runtime x threads) is measured: up to --repeat runs, each preceded by an
 * untimed reset, timed with CLOCK_MONOTONIC around the run alone, and each
 * checked against the serial reference afterwards. A run with a wrong
 * result turns the whole cell into an error: it is never reported as a time.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xsched.h>
#include "driver.h"
#include "spawn.h"

void cell_fail(struct cell *c, enum cell_status s, const char *fmt, ...)
{
	va_list ap;

	if (c->status != CELL_OK)	/* keep the first reason */
		return;
	c->status = s;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

void cell_record(struct cell *c, struct program_run *x,
		 const struct options *o, double t, uint64_t checksum,
		 bool *stop)
{
	double spent = t;

	*stop = true;
	if (c->status != CELL_OK)
		return;
	if (!x->have_ref && !c->rt->parallel) {
		x->ref = checksum;
		x->have_ref = true;
	}
	if (!x->have_ref) {
		cell_fail(c, CELL_ERROR, "no serial reference to check against");
		return;
	}
	if (checksum != x->ref) {
		cell_fail(c, CELL_ERROR,
			  "wrong result in run %d: checksum %016llx, serial %016llx",
			  c->reps + 1, (unsigned long long)checksum,
			  (unsigned long long)x->ref);
		return;
	}
	if (c->reps >= o->repeat) {
		cell_fail(c, CELL_ERROR, "more runs than the %ld asked for",
			  o->repeat);
		return;
	}
	c->times[c->reps++] = t;
	for (int i = 0; i < c->reps - 1; i++)
		spent += c->times[i];
	*stop = c->reps >= o->repeat || spent >= o->budget;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void cell_finish(struct cell *c)
{
	if (c->status == CELL_OK && !c->reps)
		cell_fail(c, CELL_ERROR, "no run completed");
	if (c->status != CELL_OK)
		return;
	qsort(c->times, (size_t)c->reps, sizeof(double), cmp_double);
	c->min_s = c->times[0];
	c->median_s = c->reps % 2 ? c->times[c->reps / 2] :
		(c->times[c->reps / 2 - 1] + c->times[c->reps / 2]) / 2;
}

void measure_runs(struct cell *c, struct program_run *x,
		  const struct options *o, run_fn run, void *handle)
{
	const struct bench_problem *pb = x->b->problem;
	bool stop = false;

	while (!stop) {
		double t0, t;
		int rc;

		pb->reset(x->st);
		t0 = bench_now();
		rc = run(handle, x);
		t = bench_now() - t0;
		if (rc < 0) {
			cell_fail(c, CELL_ERROR, "run %d failed: %s", c->reps + 1,
				  strerror(-rc));
			return;
		}
		cell_record(c, x, o, t, pb->checksum(x->st), &stop);
	}
}

static int run_serial(void *handle, struct program_run *x)
{
	(void)handle;
	x->b->problem->serial(x->st);
	return 0;
}

static void measure_serial(struct cell *c, struct program_run *x,
			   const struct options *o)
{
	measure_runs(c, x, o, run_serial, NULL);
}

int bench_xs_error;

/* From any worker; only the first error is kept. */
void bench_xs_failed(int err)
{
	int none = 0;

	/* relaxed: read by the driver after xs_runtime_run(), which returns
	 * only once every task has completed */
	__atomic_compare_exchange_n(&bench_xs_error, &none, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static int run_xsched(void *rt, struct program_run *x)
{
	int rc;

	__atomic_store_n(&bench_xs_error, 0, __ATOMIC_RELAXED);
	rc = xs_runtime_run((struct xs_runtime *)rt, x->b->xsched, x->st);
	return rc ? rc : __atomic_load_n(&bench_xs_error, __ATOMIC_RELAXED);
}

/*
 * The calling thread becomes worker 0 and may be pinned by the runtime; put
 * its CPU mask back afterwards so that the other runtimes (and the OpenMP
 * children, which inherit it) get the CPUs they would get without xsched.
 */
static void measure_xsched(struct cell *c, struct program_run *x,
			   const struct options *o)
{
	struct xs_runtime *rt;
	cpu_set_t mask;
	int saved;

	if (!x->b->xsched) {
		cell_fail(c, CELL_SKIPPED, "no xsched version");
		return;
	}
	saved = sched_getaffinity(0, sizeof(mask), &mask);
	rt = xs_runtime_create((unsigned int)c->threads);
	if (!rt) {
		cell_fail(c, CELL_ERROR, "xs_runtime_create(%d): %s",
			  c->threads, strerror(errno));
		return;
	}
	if ((int)xs_runtime_workers(rt) != c->threads)
		cell_fail(c, CELL_ERROR, "asked for %d workers, got %u",
			  c->threads, xs_runtime_workers(rt));
	else
		measure_runs(c, x, o, run_xsched, rt);
	xs_runtime_destroy(rt);
	if (!saved && sched_setaffinity(0, sizeof(mask), &mask))
		fprintf(stderr, PROG ": cannot restore the CPU mask: %s\n",
			strerror(errno));
}

static int run_tbb(void *t, struct program_run *x)
{
	return bench_tbb_run((struct bench_tbb *)t, x->b->tbb, x->st);
}

static void measure_tbb(struct cell *c, struct program_run *x,
			const struct options *o)
{
	struct bench_tbb *t;

	if (!x->b->tbb) {
		cell_fail(c, CELL_SKIPPED, "no oneTBB version");
		return;
	}
	t = bench_tbb_open(c->threads);
	if (!t) {
		cell_fail(c, CELL_ERROR, "cannot make a oneTBB arena of %d threads",
			  c->threads);
		return;
	}
	if (bench_tbb_threads(t) != c->threads)
		cell_fail(c, CELL_ERROR, "asked oneTBB for %d threads, got %d",
			  c->threads, bench_tbb_threads(t));
	else
		measure_runs(c, x, o, run_tbb, t);
	bench_tbb_close(t);
}

/* In the order they run and are reported; serial must come first. */
const struct runtime runtimes[] = {
	{ "serial", false, measure_serial },
	{ "xsched", true, measure_xsched },
	{ "tbb", true, measure_tbb },
	{ "libgomp", true, measure_libgomp },
	{ "libomp", true, measure_libomp },
};

const int nruntimes = sizeof(runtimes) / sizeof(runtimes[0]);
