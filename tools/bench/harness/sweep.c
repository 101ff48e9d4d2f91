/* SPDX-License-Identifier: MIT */
/*
 * sweep.c - xsched-bench --sweep: the task size x steal size study of the
 * XQueue paper (Sections VI-B and VIII, Figs. 9 and 10) on this machine.
 *
 * For each thread count P > 1 of --threads and each task size K of
 * sweep_k[], the program "spin" (sweep.h) runs under SLB and under ws and
 * rp for every steal size S of sweep_s[] and victims per attempt N of
 * sweep_n[], with the timeout T = SWEEP_T idle visits and the NUMA-local
 * percentage of XSCHED_DLB_LOCAL. The 17 configurations of a K share one
 * runtime and take turns run by run (xsched.c); each gets --repeat runs.
 * Reported: per cell, T_slb / T of the min times (> 1: faster than SLB),
 * with the counters in --json.
 *
 * A run is ~SWEEP_WORK ticks of spinning (a tenth with --quick): with the
 * defaults (4 task sizes x 17 configurations x 5 runs of ~0.07 s at P = 2)
 * a sweep takes about half a minute at 2 threads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver.h"
#include "spawn.h"
#include "sweep.h"

#define SWEEP_WORK 200000000ull	/* ticks of spinning per run */
#define SWEEP_T 1000

static const long sweep_k[] = { 100, 1000, 10000, 100000 };
static const int sweep_s[] = { 1, 4, 16, 64 };
static const int sweep_n[] = { 1, 2 };
static const int sweep_dlb[] = { XS_DLB_WS, XS_DLB_RP };

#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define NCONF (1 + LEN(sweep_dlb) * LEN(sweep_n) * LEN(sweep_s))

_Static_assert(NCONF <= MAX_GROUP, "one runtime measures them all");
_Static_assert(SPIN_BATCH % 2 == 0, "a batch is a multiple of P");

/* --- the program ------------------------------------------------------ */

struct spin_arg {
	uint64_t ticks;
	unsigned int weight;
	uint64_t *out;		/* a slot in the root's frame */
};

_Static_assert(sizeof(struct spin_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void spin_task(void *p)
{
	const struct spin_arg *a = (const struct spin_arg *)p;

	spin_for(a->ticks);
	*a->out = a->weight;
}

static void spin_xsched(void *p)
{
	struct spin_state *st = (struct spin_state *)p;
	uint64_t slot[SPIN_BATCH];

	for (long b = 0; b < st->tasks / SPIN_BATCH; b++) {
		for (int i = 0; i < SPIN_BATCH; i++) {
			struct spin_arg a = { st->k * spin_weight(st, i),
					      spin_weight(st, i), &slot[i] };

			bench_spawn(spin_task, &a, sizeof(a));
		}
		bench_wait();
		for (int i = 0; i < SPIN_BATCH; i++)
			st->sum += slot[i];
	}
}

static void spin_serial(void *p)
{
	struct spin_state *st = (struct spin_state *)p;

	for (long b = 0; b < st->tasks / SPIN_BATCH; b++)
		for (int i = 0; i < SPIN_BATCH; i++) {
			spin_for(st->k * spin_weight(st, i));
			st->sum += spin_weight(st, i);
		}
}

static void *spin_setup(long k)
{
	struct spin_state *st = calloc(1, sizeof(*st));

	if (st) {
		st->k = (uint64_t)k;
		st->period = 1;
		st->tasks = SPIN_BATCH;
	}
	return st;
}

static void spin_reset(void *p)
{
	((struct spin_state *)p)->sum = 0;
}

static uint64_t spin_checksum(const void *p)
{
	return ((const struct spin_state *)p)->sum;
}

static int spin_verify(const void *p, char *why, int len)
{
	const struct spin_state *st = (const struct spin_state *)p;

	if (st->sum == spin_expected(st))
		return 0;
	snprintf(why, (size_t)len, "weights add up to %llu, expected %llu",
		 (unsigned long long)st->sum,
		 (unsigned long long)spin_expected(st));
	return -EINVAL;
}

static uint64_t spin_tasks(const void *p)
{
	return (uint64_t)((const struct spin_state *)p)->tasks;
}

static const struct bench_problem spin_problem = {
	.name = "spin",
	.doc = "tasks of n TSC ticks, every P-th one heavier (--sweep)",
	.n_default = 1000,
	.n_quick = 1000,
	.n_min = 1,
	.n_max = 100000000,
	.setup = spin_setup,
	.teardown = free,
	.reset = spin_reset,
	.serial = spin_serial,
	.checksum = spin_checksum,
	.verify = spin_verify,
	.tasks = spin_tasks,
};

static const struct bench bench_spin = {
	.problem = &spin_problem,
	.xsched = spin_xsched,
};

/* --- the grid --------------------------------------------------------- */

/* Configuration c of the grid: 0 is SLB, then ws and rp by N, then S. */
static struct dlb_choice sweep_conf(int c)
{
	int per_dlb = LEN(sweep_n) * LEN(sweep_s);

	if (!c)
		return (struct dlb_choice){ XS_DLB_SLB, -1, -1, -1 };
	c--;
	return (struct dlb_choice){ sweep_dlb[c / per_dlb],
				    sweep_n[c % per_dlb / LEN(sweep_s)],
				    sweep_s[c % LEN(sweep_s)], SWEEP_T };
}

static void header(const struct options *o, int threads, uint64_t work)
{
	if (o->json)
		return;
	printf("\nsweep at %d threads: batches of %d tasks spinning K ticks, one "
	       "in %d %dx longer;\n  ~%.0fM ticks a run, T = %d; T_slb / T of min "
	       "times over %ld runs (> 1: faster than SLB)\n",
	       threads, SPIN_BATCH, threads, SPIN_HEAVY, (double)work / 1e6,
	       SWEEP_T, o->repeat);
	printf("  %-7s %8s %9s %2s", "K", "tasks", "slb_s", "N");
	for (int d = 0; d < LEN(sweep_dlb); d++)
		for (int s = 0; s < LEN(sweep_s); s++) {
			char head[16];

			snprintf(head, sizeof(head), "%s S=%d", dlb_names[sweep_dlb[d]],
				 sweep_s[s]);
			printf(" %8s", head);
		}
	putchar('\n');
}

static void json_row(const struct cell *c, const struct cell *slb, uint64_t k)
{
	bool ok = cell_ok(c) && cell_ok(slb);

	printf("{\"sweep\":\"spin\",\"threads\":%d,\"k\":%llu,\"tasks\":%llu,"
	       "\"status\":\"%s\",\"repeats\":%d", c->threads,
	       (unsigned long long)k, (unsigned long long)c->tasks,
	       cell_ok(c) ? "ok" : "error", c->reps);
	if (cell_ok(c))
		printf(",\"min_s\":%.9g,\"median_s\":%.9g", c->min_s, c->median_s);
	if (ok)
		printf(",\"slb_min_s\":%.9g,\"speedup\":%.6g", slb->min_s,
		       slb->min_s / c->min_s);
	json_dlb(c);
	if (!cell_ok(c)) {
		printf(",\"reason\":");
		json_put_string(stdout, c->why);
	}
	printf("}\n");
}

static void human_rows(const struct cell *cells, uint64_t k)
{
	const struct cell *slb = &cells[0];

	for (int n = 0; n < LEN(sweep_n); n++) {
		if (!n)
			printf("  %-7llu %8llu %9.4f", (unsigned long long)k,
			       (unsigned long long)slb->tasks,
			       cell_ok(slb) ? slb->min_s : 0);
		else
			printf("  %-7s %8s %9s", "", "", "");
		printf(" %2d", sweep_n[n]);
		for (int d = 0; d < LEN(sweep_dlb); d++)
			for (int s = 0; s < LEN(sweep_s); s++) {
				const struct cell *c = &cells[1 + (d * LEN(sweep_n) + n) *
							    LEN(sweep_s) + s];

				if (cell_ok(c) && cell_ok(slb))
					printf(" %7.2fx", slb->min_s / c->min_s);
				else
					printf(" %8s", "ERROR");
			}
		putchar('\n');
	}
	for (int c = 0; c < NCONF; c++)
		if (!cell_ok(&cells[c]))
			printf("  ERROR (config %d): %s\n", c, cells[c].why);
}

/* One task size at one thread count: the serial reference, then the grid. */
static int sweep_one(const struct options *o, int threads, uint64_t k,
		     uint64_t work)
{
	struct options once = *o;
	struct program_run x = { .b = &bench_spin, .n = (long)k };
	struct spin_state *st;
	struct cell serial, cells[NCONF];
	char why[256];
	int failed = 0;

	x.st = st = spin_setup((long)k);
	if (!st) {
		fprintf(stderr, PROG ": --sweep: out of memory\n");
		return 1;
	}
	st->period = threads;
	st->tasks = (long)(work * (uint64_t)threads /
			   (k * (uint64_t)(SPIN_HEAVY + threads - 1)));
	st->tasks = (st->tasks + SPIN_BATCH - 1) / SPIN_BATCH * SPIN_BATCH;
	x.tasks = (uint64_t)st->tasks;
	once.repeat = 1;
	cell_init(&serial, &runtimes[RT_SERIAL], &x, 1, 1);
	if (cell_ok(&serial))
		measure_serial(&serial, &x, &once);
	cell_finish(&serial);
	if (cell_ok(&serial) && spin_verify(st, why, sizeof(why)))
		cell_fail(&serial, CELL_ERROR, "wrong serial result: %s", why);
	for (int c = 0; c < NCONF; c++) {
		cell_init(&cells[c], &runtimes[RT_XSCHED], &x, threads,
			  o->repeat);
		cells[c].want = sweep_conf(c);
		cells[c].named = true;
		if (!cell_ok(&serial))
			cell_fail(&cells[c], CELL_ERROR, "serial run: %s", serial.why);
	}
	if (cell_ok(&serial))
		measure_xsched(cells, NCONF, &x, o);
	for (int c = 0; c < NCONF; c++) {
		cell_finish(&cells[c]);
		failed |= !cell_ok(&cells[c]);
		if (o->json)
			json_row(&cells[c], &cells[0], k);
	}
	if (!o->json)
		human_rows(cells, k);
	fflush(stdout);
	for (int c = 0; c < NCONF; c++)
		free(cells[c].times);
	free(serial.times);
	free(st);
	return failed;
}

int sweep_run(const struct options *o)
{
	uint64_t work = o->quick ? SWEEP_WORK / 10 : SWEEP_WORK;
	int failed = 0, counts = 0;

	for (int t = 0; t < o->nthreads; t++) {
		if (o->threads[t] < 2)
			continue;
		counts++;
		header(o, o->threads[t], work);
		for (int i = 0; i < LEN(sweep_k); i++)
			failed |= sweep_one(o, o->threads[t], (uint64_t)sweep_k[i],
					    work);
	}
	if (!counts) {
		fprintf(stderr, PROG ": --sweep: load balancing needs 2 threads or "
			"more; --threads has none\n");
		return 2;
	}
	return failed;
}
