/* SPDX-License-Identifier: MIT */
/*
 * dlb-imbalance.h - a deliberately imbalanced job for the DLB tests.
 *
 * The root (worker 0) spawns ntasks tasks. Round-robin (XSCHED_PUSH=rr,
 * which the tests set) sends task i to
 * worker i % N; the tasks bound for the "heavy" workers spin for a while,
 * all others return at once. So the heavy workers' queues stay full while
 * everybody else turns thief: every steal comes from a heavy worker.
 */
#ifndef XS_DLB_IMBALANCE_H
#define XS_DLB_IMBALANCE_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "xsched.h"

struct imbalance {
	int ntasks;
	int nworkers;
	uint32_t heavy_mask;  /* bit w: tasks bound for worker w are heavy */
	long heavy_ns;
};

static void imbalance_spin_ns(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void imbalance_task(void *arg)
{
	long ns = *(long *)arg;

	if (ns)
		imbalance_spin_ns(ns);
}

static void imbalance_root(void *arg)
{
	struct imbalance *im = arg;

	for (int i = 0; i < im->ntasks; i++) {
		long ns = (im->heavy_mask >> (i % im->nworkers)) & 1 ? im->heavy_ns : 0;

		xs_task_spawn(imbalance_task, &ns, sizeof ns);
	}
	xs_task_wait();
}

/*
 * Run @im five times on a new runtime of im->nworkers workers under
 * XSCHED_DLB=@dlb, round-robin pushes and thieves that ask at every idle
 * visit (other XSCHED_* settings are the caller's); the summed counters go
 * to @st. Returns 0, or -1 if the runtime could not be made or a run failed.
 */
static int imbalance_measure(const char *dlb, struct imbalance *im, struct xs_stats *st)
{
	struct xs_runtime *rt;
	int ret = 0;

	setenv("XSCHED_DLB", dlb, 1);
	setenv("XSCHED_PUSH", "rr", 1); /* the imbalance comes from round-robin */
	setenv("XSCHED_DLB_TIMEOUT", "1", 1);
	rt = xs_runtime_create((unsigned int)im->nworkers);
	if (!rt)
		return -1;
	for (int r = 0; r < 5 && !ret; r++)
		ret = xs_runtime_run(rt, imbalance_root, im) ? -1 : 0;
	if (xs_runtime_stats(rt, st))
		ret = -1;
	xs_runtime_destroy(rt);
	return ret;
}

#endif /* XS_DLB_IMBALANCE_H */
