/* SPDX-License-Identifier: MIT */
/*
 * micro.c - xsched-bench --micro: what the OpenMP runtimes charge for an
 * empty parallel region, a barrier, and a task + taskwait round trip
 * (micro.h), under libgomp, libomp and xgomp side by side, at every thread
 * count of --threads. The loops run in xsched-bench-omp (micro_omp.c), one
 * child per (operation, runtime, thread count), checked like the program
 * cells (omp_child.c): a run served by another library is an error.
 *
 * For each operation and thread count the runtimes take turns, one child
 * of one run of --iters operations each per round (A B C, B C A, ...:
 * round k starts at the k-th runtime), for --repeat rounds (each child
 * within --budget seconds), so that a slow spell of the machine falls on
 * each runtime alike; a cell reports ns per operation of
 * the fastest run (min) and the median run, min over libgomp's min (< 1:
 * cheaper than libgomp), and xgomp's min over the best peer's. Barrier
 * rows also give xgomp's barrier in round trips of a cache line between
 * two CPUs (core_latency.c), measured before the table in the same run:
 * a 2-thread barrier cannot take less than one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "child_line.h"
#include "driver.h"
#include "../programs/micro/micro.h"

static const struct {
	const char *name, *doc;
} ops[] = {
#define MICRO(name, doc) { #name, doc },
	MICRO_OPS
#undef MICRO
};

#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))
#define NRT 3

static const char *const rt_names[NRT] = { "libgomp", "libomp", "xgomp" };

struct micro_cell {
	enum cell_status status;
	int reps;
	double ns[1000];	/* per run, ns per operation */
	double min_ns, median_ns;
	char lib[256];
	char why[512];
};

/* {"micro":..,"iters":K,"time_s":T,...}: one run. */
static void micro_line(struct omp_call *call, const struct child_line *l, const char *line,
		       bool *stop)
{
	struct micro_cell *m = (struct micro_cell *)call->ctx;

	*stop = false;
	if ((l->has & (CHILD_TIME | CHILD_ITERS)) != (CHILD_TIME | CHILD_ITERS) || l->iters < 1)
		goto bad;
	call->lines++;
	if (m->reps >= call->o->repeat || m->reps >= 1000) {
		omp_call_fail(call, CELL_ERROR, "more runs than the %ld asked for",
			      call->o->repeat);
		*stop = true;
		return;
	}
	m->ns[m->reps++] = l->time_s * 1e9 / l->iters;
	return;
bad:
	omp_call_fail(call, CELL_ERROR, "cannot parse xsched-bench-omp output: %.200s",
		      line);
	*stop = true;
}

/* One more run of @op under @rt at @threads, added to @m (status stays
 * CELL_OK while every run succeeds). */
static void micro_round(struct micro_cell *m, const struct options *o,
			const char *op, const char *rt, int threads)
{
	char thr[16], iters[32], budget[32];
	char *args[] = {
		(char *)"--micro", (char *)op, (char *)"--iters", iters,
		(char *)"--threads", thr, (char *)"--repeat", (char *)"1",
		(char *)"--budget", budget, NULL,
	};
	struct omp_call call = {
		.o = o, .runtime = rt, .args = args, .line = micro_line, .ctx = m,
	};
	int before = m->reps;

	snprintf(thr, sizeof(thr), "%d", threads);
	snprintf(iters, sizeof(iters), "%ld", o->iters);
	snprintf(budget, sizeof(budget), "%.0f", o->budget);
	omp_call_run(&call);
	snprintf(m->lib, sizeof(m->lib), "%s", call.lib);
	m->status = call.status;
	if (m->status == CELL_OK && m->reps == before) {
		m->status = CELL_ERROR;
		snprintf(call.why, sizeof(call.why), "no run completed");
	}
	if (m->status != CELL_OK)
		snprintf(m->why, sizeof(m->why), "%s", call.why);
}

/* The min and median of the runs of @m. */
static void micro_finish(struct micro_cell *m)
{
	if (m->status != CELL_OK)
		return;
	qsort(m->ns, (size_t)m->reps, sizeof(double), bench_cmp_double);
	m->min_ns = m->ns[0];
	m->median_ns = m->reps % 2 ? m->ns[m->reps / 2] :
		(m->ns[m->reps / 2 - 1] + m->ns[m->reps / 2]) / 2;
}

/* xgomp's min over the best of libgomp's and libomp's, or < 0. */
static double micro_vs_best(const struct micro_cell *m, const bool *sel)
{
	double best = -1;

	for (int r = 0; r < 2; r++)
		if (sel[r] && m[r].status == CELL_OK &&
		    (best < 0 || m[r].min_ns < best))
			best = m[r].min_ns;
	if (!sel[2] || m[2].status != CELL_OK || best <= 0 || m[2].min_ns <= 0)
		return -1;
	return m[2].min_ns / best;
}

static void json_micro(const char *op, const char *rt, int threads,
		       const struct options *o, const struct micro_cell *m,
		       const struct micro_cell *gomp, double vs_best, double rt_ns)
{
	static const char *const status[] = {
		[CELL_OK] = "ok", [CELL_SKIPPED] = "skipped",
		[CELL_TIMEOUT] = "timeout", [CELL_ERROR] = "error",
	};
	bool ok = m->status == CELL_OK;

	printf("{\"micro\":\"%s\",\"runtime\":\"%s\",\"threads\":%d,"
	       "\"iters\":%ld,\"status\":\"%s\",\"repeats\":%d", op, rt, threads,
	       o->iters, status[m->status], ok ? m->reps : 0);
	if (ok)
		printf(",\"min_ns\":%.3f,\"median_ns\":%.3f", m->min_ns,
		       m->median_ns);
	else
		printf(",\"min_ns\":null,\"median_ns\":null");
	if (ok && gomp && gomp->status == CELL_OK && m->min_ns > 0 && gomp->min_ns > 0)
		printf(",\"vs_libgomp\":%.4f", m->min_ns / gomp->min_ns);
	else
		printf(",\"vs_libgomp\":null");
	if (vs_best >= 0)
		printf(",\"vs_best_peer\":%.4f", vs_best);
	if (ok && rt_ns > 0 && strstr(op, "barrier"))
		printf(",\"round_trips\":%.3f,\"round_trip_ns\":%.1f",
		       m->min_ns / rt_ns, rt_ns);
	if (m->lib[0]) {
		printf(",\"lib\":");
		json_put_string(stdout, m->lib);
	}
	if (!ok) {
		printf(",\"reason\":");
		json_put_string(stdout, m->why);
	}
	printf("}\n");
}

#define MAX_NOTES 16

/* The number of the footnote "@rt: @why", added if new (the last one is
 * reused once there are MAX_NOTES). */
static int note(char notes[][600], int *nnotes, const char *rt,
		const char *why)
{
	char s[600];

	snprintf(s, sizeof(s), "%s: %s", rt, why);
	for (int j = 0; j < *nnotes; j++)
		if (!strcmp(notes[j], s))
			return j + 1;
	if (*nnotes == MAX_NOTES)
		return MAX_NOTES;
	memcpy(notes[(*nnotes)++], s, sizeof(s));
	return *nnotes;
}

int micro_run(const struct options *o)
{
	/* the reasons of cells that did not run, each printed once */
	char notes[MAX_NOTES][600];
	struct micro_cell *m;
	bool sel[NRT];
	int nnotes = 0, failed = 0, cpu_a, cpu_b, order[NRT], nsel = 0;
	double rt_ns;

	for (int r = 0; r < NRT; r++) {
		sel[r] = false;
		for (int i = 0; i < nruntimes; i++)
			if (!strcmp(runtimes[i].name, rt_names[r]))
				sel[r] = o->runtimes & (1u << i);
		if (sel[r])
			order[nsel++] = r;
	}
	if (!sel[0] && !sel[1] && !sel[2]) {
		fprintf(stderr, PROG ": --micro measures libgomp, libomp and xgomp; "
			"--runtime names none of them\n");
		return 2;
	}
	m = calloc(NRT, sizeof(*m));
	if (!m) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	rt_ns = core_round_trip_ns(&cpu_a, &cpu_b);
	if (!o->json) {
		printf("xsched-bench --micro: OpenMP runtime overheads, ns per "
		       "operation;\n  min of %ld rounds of %ld operations, the "
		       "runtimes alternated in each round (median in parentheses);\n"
		       "  x: min / libgomp's min (< 1: cheaper than libgomp); "
		       "best: xgomp's min / the best peer's min;\n"
		       "  rt: xgomp's barrier in cache-line round trips\n",
		       o->repeat, o->iters);
		if (rt_ns > 0)
			printf("  a cache line's round trip between CPUs %d and %d: "
			       "%.0f ns\n", cpu_a, cpu_b, rt_ns);
		for (int k = 0; k < NOPS; k++)
			printf("  %-14s %s\n", ops[k].name, ops[k].doc);
		printf("\n  %-14s %4s", "op", "P");
		for (int r = 0; r < NRT; r++)
			if (sel[r])
				printf(" %22s", rt_names[r]);
		for (int r = 1; r < NRT; r++)
			if (sel[r] && sel[0])
				printf(" %8s", rt_names[r]);
		printf(" %6s %6s\n", "best", "rt");
		fflush(stdout);
	}
	for (int k = 0; k < NOPS; k++) {
		for (int t = 0; t < o->nthreads; t++) {
			int p = o->threads[t];
			double vs_best;

			for (int r = 0; r < NRT; r++) {
				memset(&m[r], 0, sizeof(m[r]));
				m[r].status = sel[r] ? CELL_OK : CELL_SKIPPED;
			}
			/* Round k starts at the k-th runtime, so that none
			 * always follows the same one (as --rounds). */
			for (long round = 0; round < o->repeat; round++)
				for (int j = 0; j < nsel; j++) {
					int r = order[(round + j) % nsel];

					if (m[r].status == CELL_OK)
						micro_round(&m[r], o, ops[k].name,
							    rt_names[r], p);
				}
			for (int r = 0; r < NRT; r++) {
				micro_finish(&m[r]);
				failed |= sel[r] && m[r].status == CELL_ERROR;
			}
			vs_best = micro_vs_best(m, sel);
			if (o->json) {
				for (int r = 0; r < NRT; r++)
					if (sel[r])
						json_micro(ops[k].name, rt_names[r],
							   p, o, &m[r],
							   sel[0] ? &m[0] : NULL,
							   r == 2 ? vs_best : -1, rt_ns);
				fflush(stdout);
				continue;
			}
			printf("  %-14s %4d", ops[k].name, p);
			for (int r = 0; r < NRT; r++) {
				char s[64];

				if (!sel[r])
					continue;
				if (m[r].status == CELL_OK)
					snprintf(s, sizeof(s), "%.1f (%.1f)",
						 m[r].min_ns, m[r].median_ns);
				else
					snprintf(s, sizeof(s), "%s [%d]",
						 m[r].status == CELL_SKIPPED ? "skipped" :
						 m[r].status == CELL_TIMEOUT ? "timeout" :
						 "ERROR",
						 note(notes, &nnotes, rt_names[r],
						      m[r].why));
				printf(" %22s", s);
			}
			for (int r = 1; r < NRT; r++) {
				if (!sel[r] || !sel[0])
					continue;
				/* A construct cheaper than the machine's noise can
				 * come out <= 0 by the EPCC difference: no ratio. */
				if (m[r].status == CELL_OK && m[0].status == CELL_OK &&
				    m[r].min_ns > 0 && m[0].min_ns > 0)
					printf(" %7.2fx", m[r].min_ns / m[0].min_ns);
				else
					printf(" %8s", "-");
			}
			if (vs_best >= 0)
				printf(" %5.2fx", vs_best);
			else
				printf(" %6s", "-");
			if (strstr(ops[k].name, "barrier") && sel[2] &&
			    m[2].status == CELL_OK && rt_ns > 0)
				printf(" %6.2f", m[2].min_ns / rt_ns);
			putchar('\n');
			fflush(stdout);
		}
	}
	for (int j = 0; !o->json && j < nnotes; j++)
		printf("  [%d] %s\n", j + 1, notes[j]);
	free(m);
	return failed;
}
