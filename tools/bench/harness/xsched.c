/* SPDX-License-Identifier: MIT */
/*
 * xsched.c - the xsched cells of xsched-bench.
 *
 * One runtime per program and thread count serves every strategy of
 * --dlb: xs_runtime_set_dlb() switches it between runs, and the strategies
 * take turns run by run (slb, ws, rp, auto, slb, ws, ...). So every
 * strategy runs on the same warmed-up workers, task pools and pinning,
 * and a slow spell of the machine (other processes, frequency) falls on
 * all of them alike instead of on whichever came last - the ratios
 * between strategies are what this is for. Each cell's counters are the
 * differences of xs_runtime_stats() around its own runs.
 *
 * Without --dlb there is one cell, run under the runtime's own setting
 * (XSCHED_DLB and friends) and reported as "xsched".
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "driver.h"
#include "spawn.h"

const char *const dlb_names[MAX_DLB] = {
	[XS_DLB_SLB] = "slb", [XS_DLB_WS] = "ws", [XS_DLB_RP] = "rp",
	[XS_DLB_AUTO] = "auto",
};

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
	if (x->b->xsched_rt)
		rc = x->b->xsched_rt((struct xs_runtime *)rt, x->st);
	else
		rc = xs_runtime_run((struct xs_runtime *)rt, x->b->xsched, x->st);
	return rc ? rc : __atomic_load_n(&bench_xs_error, __ATOMIC_RELAXED);
}

/* @def with the fields @c asks for. SLB is the round-robin baseline:
 * its rows push round-robin whatever XSCHED_PUSH says (the library
 * refuses slb with push=local, under which no task would move). */
static struct xs_dlb_config dlb_config(const struct cell *c,
				       struct xs_dlb_config def)
{
	if (c->want.strategy >= 0)
		def.strategy = (unsigned int)c->want.strategy;
	if (def.strategy == XS_DLB_SLB)
		def.push = XS_PUSH_RR;
	if (c->want.victims > 0)
		def.victims = (unsigned int)c->want.victims;
	if (c->want.steal > 0)
		def.steal = (unsigned int)c->want.steal;
	if (c->want.timeout > 0)
		def.timeout = (unsigned int)c->want.timeout;
	return def;
}

static void stats_add(struct xs_stats *sum, const struct xs_stats *after,
		      const struct xs_stats *before)
{
	uint64_t *s = (uint64_t *)sum;
	const uint64_t *a = (const uint64_t *)after, *b = (const uint64_t *)before;

	_Static_assert(sizeof(struct xs_stats) % sizeof(uint64_t) == 0,
		       "struct xs_stats is all uint64_t");
	for (size_t i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
		s[i] += a[i] - b[i];
}

/* One run of cell @c: its configuration, the run, its counters. */
static void run_one(struct cell *c, struct program_run *x,
		    const struct options *o, struct xs_runtime *rt,
		    bool *stop)
{
	const struct bench_problem *pb = x->b->problem;
	struct xs_stats before, after;
	int64_t q0, q1;
	double t0, t;
	int rc;

	rc = xs_runtime_set_dlb(rt, &c->dlb);
	if (!rc)
		rc = xs_runtime_stats(rt, &before);
	if (rc) {
		cell_fail(c, CELL_ERROR, "xs_runtime_set_dlb/stats: %s",
			  strerror(-rc));
		*stop = true;
		return;
	}
	pb->reset(x->st);
	rss_track(c, true);
	q0 = runq_ns();
	t0 = bench_now();
	rc = run_xsched(rt, x);
	t = bench_now() - t0;
	q1 = runq_ns();
	rss_track(c, false);
	/* A thread that exited meanwhile takes its wait with it: no figure. */
	if (q0 < 0 || q1 < q0) {
		c->runq_bad = true;
	} else {
		c->runq_ns += (uint64_t)(q1 - q0);
		c->runq_s += t;
	}
	if (rc < 0) {
		cell_fail(c, CELL_ERROR, "run %d failed: %s", c->reps + 1,
			  strerror(-rc));
		*stop = true;
		return;
	}
	if (!xs_runtime_stats(rt, &after)) {
		stats_add(&c->stats, &after, &before);
		c->have_stats = true;
	}
	cell_record(c, x, o, t, pb->checksum(x->st), stop);
}

static void measure_on(struct cell *c, int ncells, struct program_run *x,
		       const struct options *o, struct xs_runtime *rt)
{
	struct xs_dlb_config def;
	bool stop[MAX_GROUP] = { false };
	int left = ncells;

	if (ncells > MAX_GROUP) {
		cell_fail(c, CELL_ERROR, "%d configurations in one group", ncells);
		return;
	}
	xs_runtime_get_dlb(rt, &def);
	for (int k = 0; k < ncells; k++)
		c[k].dlb = dlb_config(&c[k], def);
	while (left) {
		for (int k = 0; k < ncells; k++) {
			if (stop[k])
				continue;
			run_one(&c[k], x, o, rt, &stop[k]);
			left -= stop[k];
		}
	}
}

/*
 * The calling thread becomes worker 0 and may be pinned by the runtime; put
 * its CPU mask back afterwards so that the other runtimes (and the OpenMP
 * children, which inherit it) get the CPUs they would get without xsched.
 */
void measure_xsched(struct cell *c, int ncells, struct program_run *x,
		    const struct options *o)
{
	int threads = c[0].threads;
	struct xs_runtime *rt;
	cpu_set_t mask;
	long rss0;
	int saved;

	if (!x->b->xsched && !x->b->xsched_rt) {
		for (int k = 0; k < ncells; k++)
			cell_fail(&c[k], CELL_SKIPPED, "no xsched version");
		return;
	}
	saved = sched_getaffinity(0, sizeof(mask), &mask);
	rss0 = rss_kib("VmRSS");
	rt = xs_runtime_create((unsigned int)threads);
	if (!rt) {
		for (int k = 0; k < ncells; k++)
			cell_fail(&c[k], CELL_ERROR, "xs_runtime_create(%d): %s",
				  threads, strerror(errno));
		return;
	}
	for (int k = 0; k < ncells; k++)
		c[k].pools_kib = rss_kib("VmRSS") - rss0;
	if ((int)xs_runtime_workers(rt) != threads)
		for (int k = 0; k < ncells; k++)
			cell_fail(&c[k], CELL_ERROR, "asked for %d workers, got %u",
				  threads, xs_runtime_workers(rt));
	else
		measure_on(c, ncells, x, o, rt);
	xs_runtime_destroy(rt);
	if (!saved && sched_setaffinity(0, sizeof(mask), &mask))
		fprintf(stderr, PROG ": cannot restore the CPU mask: %s\n",
			strerror(errno));
}
