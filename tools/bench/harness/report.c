/* SPDX-License-Identifier: MIT */
/*
 * report.c - what xsched-bench prints.
 *
 * Human (default): a block per program, a row per runtime x threads with
 * min and median of the runs and three ratios of min times:
 *   T1/Ts  the runtime on 1 thread over serial C: its per-task overhead;
 *   Ts/Tp  serial over the runtime on p threads: speedup over serial;
 *   T1/Tp  the runtime on 1 thread over p threads: its own scaling;
 * then "xsched vs libgomp at P threads": T_other / T_xsched per program and
 * thread count, for libgomp, libomp, tbb and xgomp (> 1: xsched is faster;
 * ">r" when the other runtime hit --timeout), and "xgomp vs libgomp/libomp
 * at P threads": T_other / T_xgomp for libgomp and libomp, the drop-in
 * against the libraries it replaces. With --dlb, xsched rows are
 * xsched/<strategy>, and "xsched" in the ratios is the first strategy of
 * the list. The xsched counters and "DLB vs SLB" are in report_dlb.c.
 *
 * --json: one object per cell and line, nothing else on stdout:
 *   bench, runtime, threads, n, status ("ok" | "skipped" | "timeout" |
 *   "error"),
 *   repeats, min_s, median_s, tasks, nodes (programs that count them:
 *   nodes explored per run, mean; else null), t1_ts, ts_tp, t1_tp (null when not
 *   measured or not applicable), lib (OpenMP runtimes: the library that
 *   served the calls), reason (not ok);
 *   xsched cells also dlb and counters (report_dlb.c).
 */
#include <stdio.h>
#include <string.h>
#include "driver.h"

static void json_number(const char *key, double v, bool have)
{
	if (have)
		printf(",\"%s\":%.9g", key, v);
	else
		printf(",\"%s\":null", key);
}

bool cell_ok(const struct cell *c)
{
	return c && c->status == CELL_OK;
}

/* "xsched", or "xsched/ws" for a row of --dlb. */
const char *cell_name(const struct cell *c, char *buf, size_t len)
{
	if (!c->named)
		return c->rt->name;
	snprintf(buf, len, "%s/%s", c->rt->name, dlb_names[c->dlb.strategy]);
	return buf;
}

/* The header's T1/TP ceiling (cpu_ceiling.c) for the largest P of
 * --threads, when it is at least 2 and that many CPUs are ours. */
static void report_ceiling(const struct options *o)
{
	int p = 0, cpus[64];
	double rel[64], sum;

	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > p)
			p = o->threads[i];
	if (p > 64 || (sum = cpu_ceiling(p, cpus, rel)) < 0)
		return;
	printf("  T1/T%d ceiling: an ALU loop on CPUs %d-%d at once runs %.2fx its rate on "
	       "CPU %d alone (per CPU:", p, cpus[0], cpus[p - 1], sum, cpus[0]);
	for (int i = 0; i < p && i < 8; i++)
		printf(" %.2f", rel[i]);
	printf("%s)\n", p > 8 ? " ..." : "");
}

void report_start(const struct options *o, int ncpus)
{
	double rt_ns;
	int a, b;

	if (o->json)
		return;
	printf("xsched-bench: %d CPUs; threads", ncpus);
	for (int i = 0; i < o->nthreads; i++)
		printf("%s%d", i ? "," : " ", o->threads[i]);
	printf("; up to %ld runs or %.0f s per cell; ratios of min times\n",
	       o->repeat, o->budget);
	rt_ns = core_round_trip_ns(&a, &b);
	if (rt_ns >= 0)
		printf("  a cache line's round trip between CPUs %d and %d: %.0f ns "
		       "(fine-grained programs such as health move with it)\n", a, b, rt_ns);
	report_ceiling(o);
	fflush(stdout);
}

void report_program(const struct options *o, const struct program_run *x)
{
	if (o->json)
		return;
	printf("\n%s: %s\n  n = %ld, %llu tasks per parallel run\n",
	       x->b->problem->name, x->b->problem->doc, x->n,
	       (unsigned long long)x->tasks);
	printf("  %-11s %7s %12s %12s %5s %7s %7s %7s", "runtime", "threads",
	       "min_s", "median_s", "runs", "T1/Ts", "Ts/Tp", "T1/Tp");
	if (x->b->problem->nodes)
		printf(" %12s %7s", "nodes", "N/Ns");
	putchar('\n');
	fflush(stdout);
}

/* Nodes explored per run, mean over the runs of @c. */
static double cell_nodes(const struct cell *c)
{
	return c->reps ? (double)c->nodes / c->reps : 0;
}

static void human_cell(const struct cell *c, const struct cell *serial,
		       const struct cell *t1)
{
	static const char *const what[] = {
		[CELL_SKIPPED] = "skipped", [CELL_TIMEOUT] = "timeout",
		[CELL_ERROR] = "ERROR",
	};
	char thr[16] = "-", name[32];

	if (c->rt->parallel)
		snprintf(thr, sizeof(thr), "%d", c->threads);
	printf("  %-11s %7s", cell_name(c, name, sizeof(name)), thr);
	if (!cell_ok(c)) {
		printf("   %s: %s\n", what[c->status], c->why);
		return;
	}
	printf(" %12.6f %12.6f %5d", c->min_s, c->median_s, c->reps);
	if (!c->rt->parallel && c->b->problem->nodes)
		printf(" %7s %7s %7s", "-", "-", "-");
	if (c->rt->parallel) {
		if (cell_ok(t1) && cell_ok(serial))
			printf(" %7.2f", t1->min_s / serial->min_s);
		else
			printf(" %7s", "-");
		if (cell_ok(serial))
			printf(" %7.2f", serial->min_s / c->min_s);
		else
			printf(" %7s", "-");
		if (cell_ok(t1))
			printf(" %7.2f", t1->min_s / c->min_s);
		else
			printf(" %7s", "-");
	}
	if (c->b->problem->nodes) {
		printf(" %12.0f", cell_nodes(c));
		if (cell_ok(serial) && cell_nodes(serial) > 0)
			printf(" %7.2f", cell_nodes(c) / cell_nodes(serial));
		else
			printf(" %7s", "-");
	}
	putchar('\n');
}

static void json_cell(const struct cell *c, const struct cell *serial,
		      const struct cell *t1)
{
	bool par = c->rt->parallel;
	static const char *const status[] = {
		[CELL_OK] = "ok", [CELL_SKIPPED] = "skipped",
		[CELL_TIMEOUT] = "timeout", [CELL_ERROR] = "error",
	};

	printf("{\"bench\":");
	json_put_string(stdout, c->b->problem->name);
	printf(",\"runtime\":");
	json_put_string(stdout, c->rt->name);
	printf(",\"threads\":%d,\"n\":%ld,\"status\":\"%s\",\"repeats\":%d",
	       c->threads, c->n, status[c->status], cell_ok(c) ? c->reps : 0);
	json_number("min_s", c->min_s, cell_ok(c));
	json_number("median_s", c->median_s, cell_ok(c));
	printf(",\"tasks\":%llu", (unsigned long long)c->tasks);
	json_number("nodes", cell_nodes(c), cell_ok(c) && c->b->problem->nodes);
	json_number("t1_ts",
		    cell_ok(t1) && cell_ok(serial) ? t1->min_s / serial->min_s : 0,
		    par && cell_ok(c) && cell_ok(t1) && cell_ok(serial));
	json_number("ts_tp", cell_ok(serial) && cell_ok(c) ? serial->min_s / c->min_s : 0,
		    par && cell_ok(c) && cell_ok(serial));
	json_number("t1_tp", cell_ok(t1) && cell_ok(c) ? t1->min_s / c->min_s : 0,
		    par && cell_ok(c) && cell_ok(t1));
	json_dlb(c);
	if (c->lib[0]) {
		printf(",\"lib\":");
		json_put_string(stdout, c->lib);
	}
	if (!cell_ok(c)) {
		printf(",\"reason\":");
		json_put_string(stdout, c->why);
	}
	printf("}\n");
}

void report_cell(const struct options *o, const struct cell *c,
		 const struct cell *serial, const struct cell *t1)
{
	if (o->json)
		json_cell(c, serial, t1);
	else
		human_cell(c, serial, t1);
	fflush(stdout);
}

/* The cell of @b, runtime @rt, @threads and strategy @dlb (-1: the
 * runtime's default; -2: the first cell, whichever strategy). */
const struct cell *find_cell(const struct cell *cells, int ncells,
			     const struct bench *b, const char *rt, int dlb,
			     int threads)
{
	for (int i = 0; i < ncells; i++)
		if (cells[i].b == b && cells[i].threads == threads &&
		    !strcmp(cells[i].rt->name, rt) &&
		    (dlb == -2 || cells[i].want.strategy == dlb))
			return &cells[i];
	return NULL;
}

static bool find_runtime(const struct cell *cells, int ncells, const char *rt)
{
	for (int i = 0; i < ncells; i++)
		if (!strcmp(cells[i].rt->name, rt))
			return true;
	return false;
}

static bool any_ok(const struct cell *cells, int ncells, const char *rt)
{
	for (int i = 0; i < ncells; i++)
		if (!strcmp(cells[i].rt->name, rt) && cell_ok(&cells[i]))
			return true;
	return false;
}

/* ">12.3x": the other runtime hit --timeout, so it is at least this slow. */
static const char *above(double ratio)
{
	static char s[32];

	snprintf(s, sizeof(s), ">%.1fx", ratio);
	return s;
}

/*
 * One ratio block: a line per program and thread count with @base's cell,
 * T_other / T_base for each runtime of @all that ran.
 */
static void ratio_block(const struct options *o, const struct cell *cells,
			int ncells, const char *base, const char *const *all,
			int nall, const char *title)
{
	const char *others[8];
	int nothers = 0;

	for (int k = 0; k < nall && nothers < 8; k++)
		if (find_runtime(cells, ncells, all[k]))
			others[nothers++] = all[k];
	if (!nothers || !any_ok(cells, ncells, base))
		return;
	printf("\n%s\n  %-16s %7s", title, "bench", "P");
	for (int k = 0; k < nothers; k++)
		printf(" %9s", others[k]);
	putchar('\n');
	for (int i = 0; i < o->nonly; i++) {
		for (int t = 0; t < o->nthreads; t++) {
			int p = o->threads[t];
			const struct cell *xs = find_cell(cells, ncells, o->only[i],
							  base, -2, p);

			if (!xs)	/* the program did not get that far */
				continue;
			printf("  %-16s %7d", o->only[i]->problem->name, p);
			for (int k = 0; k < nothers; k++) {
				const struct cell *c = find_cell(cells, ncells,
								 o->only[i],
								 others[k], -2, p);

				if (cell_ok(xs) && cell_ok(c))
					printf(" %8.2fx", c->min_s / xs->min_s);
				else if (cell_ok(xs) && c && c->status == CELL_TIMEOUT)
					printf(" %9s", above(o->timeout / xs->min_s));
				else
					printf(" %9s", "-");
			}
			putchar('\n');
		}
	}
}

void report_ratios(const struct options *o, const struct cell *cells,
		   int ncells)
{
	static const char *const vs_xsched[] = {
		"libgomp", "libomp", "tbb", "xgomp",
	};
	static const char *const vs_xgomp[] = { "libgomp", "libomp" };

	if (o->json)
		return;
	ratio_block(o, cells, ncells, "xsched", vs_xsched, 4,
		    "xsched vs libgomp at P threads: T_other / T_xsched, min times "
		    "(> 1: xsched is faster)");
	ratio_block(o, cells, ncells, "xgomp", vs_xgomp, 2,
		    "xgomp vs libgomp/libomp at P threads: T_other / T_xgomp, min "
		    "times (> 1: the drop-in is faster)");
	fflush(stdout);
}
