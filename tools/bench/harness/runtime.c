/* SPDX-License-Identifier: MIT */
/*
 * runtime.c - the runtimes xsched-bench compares, and how one cell (program
 * x runtime x threads) is measured: up to --repeat runs, each preceded by an
 * untimed reset, timed with CLOCK_MONOTONIC around the run alone, and each
 * checked against the serial reference afterwards. A run with a wrong
 * result turns the whole cell into an error: it is never reported as a time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver.h"

void cell_init(struct cell *c, const struct runtime *rt,
	       const struct program_run *x, int threads, long repeat)
{
	memset(c, 0, sizeof(*c));
	c->b = x->b;
	c->rt = rt;
	c->n = x->n;
	c->threads = threads;
	c->tasks = rt->parallel ? x->tasks : 0;
	c->want = (struct dlb_choice){ -1, -1, -1, -1 };
	c->cap = (int)repeat;
	c->times = calloc((size_t)repeat, sizeof(double));
	if (!c->times)
		cell_fail(c, CELL_ERROR, "out of memory");
}

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
	if (c->reps >= c->cap || c->reps - c->child_base >= o->repeat) {
		cell_fail(c, CELL_ERROR, "more runs than the %ld asked for",
			  o->repeat);
		return;
	}
	c->times[c->reps++] = t;
	if (x->b->problem->nodes)
		c->nodes += c->child_nodes ? c->run_nodes :
			x->b->problem->nodes(x->st);
	/* --repeat and --budget bound each child (--rounds) on its own */
	for (int i = c->child_base; i < c->reps - 1; i++)
		spent += c->times[i];
	*stop = c->reps - c->child_base >= o->repeat || spent >= o->budget;
}

void cell_finish(struct cell *c)
{
	if (c->status == CELL_OK && !c->reps)
		cell_fail(c, CELL_ERROR, "no run completed");
	if (c->status != CELL_OK)
		return;
	qsort(c->times, (size_t)c->reps, sizeof(double), bench_cmp_double);
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
		rss_track(c, true);
		t0 = bench_now();
		rc = run(handle, x);
		t = bench_now() - t0;
		rss_track(c, false);
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

void measure_serial(struct cell *c, struct program_run *x,
		    const struct options *o)
{
	measure_runs(c, x, o, run_serial, NULL);
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

/* In the order they run and are reported; serial must come first and
 * xsched second (RT_SERIAL, RT_XSCHED). */
const struct runtime runtimes[] = {
	{ "serial", false, measure_serial, NULL, false },
	{ "xsched", true, NULL, measure_xsched, false },
	{ "tbb", true, measure_tbb, NULL, true },
	{ "libgomp", true, measure_libgomp, NULL, true },
	{ "libomp", true, measure_libomp, NULL, true },
	{ "xgomp", true, measure_xgomp, NULL, false },
};

const int nruntimes = sizeof(runtimes) / sizeof(runtimes[0]);
