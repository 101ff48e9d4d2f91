/* SPDX-License-Identifier: MIT */
/*
 * report_dlb.c - what xsched-bench prints about load balancing.
 *
 * Counters: per xsched row, the counters of xs_runtime_stats() that show
 * what the load balancer did, as means per run: requests sent, handled and
 * handled with a steal; tasks moved to (ws) or redirected to (rp) thieves
 * on the victim's node and on other nodes; queued tasks run by their
 * creator, by another worker of its node, by a worker of another node;
 * tasks run at once because their queue was full; round-robin pushes.
 * In the table, a second block after each program's rows; in --json,
 * "counters" (every field of struct xs_stats, per run) and the effective
 * configuration in "dlb" and "dlb_config".
 *
 * "DLB vs SLB at P threads": T_slb / T_strategy for every other strategy
 * of --dlb (> 1: the strategy is faster than static round-robin), when
 * --dlb has slb and another.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "driver.h"

#define STAT(f) { #f, offsetof(struct xs_stats, f) }

static const struct {
	const char *name;
	size_t offset;
} stat_fields[] = {
	STAT(tasks_executed), STAT(tasks_self), STAT(tasks_local),
	STAT(tasks_remote), STAT(immediate), STAT(static_pushes),
	STAT(requests_sent), STAT(requests_handled), STAT(requests_with_steal),
	STAT(requests_source_empty), STAT(requests_target_full),
	STAT(stolen_local), STAT(stolen_remote), STAT(parks),
	STAT(barrier_waves), STAT(slabs_allocated), STAT(frames_taken),
	STAT(frames_stolen), STAT(publishes), STAT(idle_work_ns),
	STAT(ts_writes_owner), STAT(ts_writes_thief),
};

#define NFIELDS ((int)(sizeof(stat_fields) / sizeof(stat_fields[0])))

/* The table's block: a heading each, in the order of stat_fields. */
static const struct {
	const char *head;
	const char *field;
} columns[] = {
	{ "sent", "requests_sent" }, { "handled", "requests_handled" },
	{ "w/steal", "requests_with_steal" }, { "st.loc", "stolen_local" },
	{ "st.rem", "stolen_remote" }, { "self", "tasks_self" },
	{ "local", "tasks_local" }, { "remote", "tasks_remote" },
	{ "imm", "immediate" }, { "static", "static_pushes" },
	{ "fr.take", "frames_taken" }, { "pub", "publishes" },
};

/* Counter @name of @c, per run. */
static double per_run(const struct cell *c, const char *name)
{
	for (int i = 0; i < NFIELDS; i++)
		if (!strcmp(stat_fields[i].name, name)) {
			uint64_t v;

			memcpy(&v, (const char *)&c->stats + stat_fields[i].offset,
			       sizeof(v));
			return c->reps ? (double)v / c->reps : 0;
		}
	return 0;
}

void json_dlb(const struct cell *c)
{
	const struct xs_dlb_config *d = &c->dlb;

	if (!c->have_stats)
		return;
	printf(",\"dlb\":\"%s\",\"dlb_config\":{\"push\":\"%s\",\"victims\":%u,"
	       "\"steal\":%u,\"timeout\":%u,\"local_percent\":%u},\"counters\":{",
	       dlb_names[d->strategy],
	       d->push == XS_PUSH_LOCAL ? "local" : d->push == XS_PUSH_RR ? "rr" : "auto",
	       d->victims, d->steal, d->timeout, d->local_percent);
	for (int i = 0; i < NFIELDS; i++)
		printf("%s\"%s\":%.0f", i ? "," : "", stat_fields[i].name,
		       per_run(c, stat_fields[i].name));
	putchar('}');
	if (!c->runq_bad && c->runq_s > 0)
		printf(",\"runq_ns\":%.0f", c->reps ? (double)c->runq_ns / c->reps : 0.0);
	if (c->rss_ok)
		printf(",\"peak_rss_kib\":%ld,\"pools_kib\":%ld", c->peak_kib, c->pools_kib);
}

/* 1234, 12.3K, 123K, 1.2M ... in 7 columns. */
static const char *compact(double v, char *buf, size_t len)
{
	static const char units[] = " KMGT";
	int u = 0;

	while (v >= 9999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, v < 99.95 ? "%.1f%c" : "%.0f%c", v, units[u]);
	return buf;
}

void report_counters(const struct options *o, const struct cell *cells,
		     int ncells)
{
	double serial_s = 0;
	long serial_kib = 0;
	bool any = false;

	if (o->json)
		return;
	for (int i = 0; i < ncells; i++)
		if (cells[i].rt == &runtimes[RT_SERIAL] && cell_ok(&cells[i])) {
			serial_s = cells[i].min_s;
			serial_kib = cells[i].rss_ok ? cells[i].peak_kib : 0;
		}
	for (int i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		char name[32], num[16];

		if (!cell_ok(c) || !c->have_stats)
			continue;
		if (!any) {
			printf("  xsched counters per run: requests sent, handled, "
			       "with steal; tasks stolen by local,\n  remote "
			       "thieves; tasks run by self, local, remote; "
			       "immediate; static pushes; frames stolen, "
			       "publications;\n  idle%%: time workers slept while "
			       "a frame they were woken for waited,\n  %% of "
			       "threads x median run; runq%%: time threads waited "
			       "for a CPU (schedstat),\n  %% of threads x run time; "
			       "ns/task: (T1 - Ts) / tasks, "
			       "a spawn+join nobody steals;\n  ts/task: writes "
			       "(CAS attempts, stores) of the deques' shared ts "
			       "words per task of the program;\n  rss: peak resident MiB "
			       "of the runs; /(s+p): that over serial's peak plus "
			       "the runtime's pools\n  %-11s %7s",
			       "runtime", "threads");
			for (size_t k = 0; k < sizeof(columns) / sizeof(columns[0]); k++)
				printf(" %7s", columns[k].head);
			printf(" %7s %7s %7s %7s %7s %7s\n", "ts/task", "idle%", "runq%",
			       "ns/task", "rss", "/(s+p)");
			any = true;
		}
		printf("  %-11s %7d", cell_name(c, name, sizeof(name)), c->threads);
		for (size_t k = 0; k < sizeof(columns) / sizeof(columns[0]); k++)
			printf(" %7s", compact(per_run(c, columns[k].field), num,
					       sizeof(num)));
		/* Per task of the program: its known task count, the same
		 * for every runtime's cell. */
		if (c->tasks)
			printf(" %7.4f", (per_run(c, "ts_writes_owner") +
					  per_run(c, "ts_writes_thief")) / (double)c->tasks);
		else
			printf(" %7s", "-");
		printf(" %7.3f", c->median_s > 0 ? 100 * per_run(c, "idle_work_ns") /
						     (1e9 * c->median_s * c->threads) : 0.0);
		if (!c->runq_bad && c->runq_s > 0)
			printf(" %7.2f", 100 * (double)c->runq_ns / (1e9 * c->runq_s * c->threads));
		else
			printf(" %7s", "-");
		if (c->threads == 1 && serial_s > 0 && c->tasks)
			printf(" %7.2f", 1e9 * (c->min_s - serial_s) / (double)c->tasks);
		else
			printf(" %7s", "-");
		if (c->rss_ok)
			printf(" %7.1f", c->peak_kib / 1024.0);
		else
			printf(" %7s", "-");
		if (c->rss_ok && serial_kib)
			printf(" %7.2f\n", (double)c->peak_kib / (double)(serial_kib + c->pools_kib));
		else
			printf(" %7s\n", "-");
	}
	fflush(stdout);
}

void report_dlb_ratios(const struct options *o, const struct cell *cells,
		       int ncells)
{
	int slb = -1;

	for (int k = 0; k < o->ndlb; k++)
		if (o->dlb[k] == XS_DLB_SLB)
			slb = k;
	if (o->json || slb < 0 || o->ndlb < 2)
		return;
	printf("\nDLB vs SLB at P threads: T_slb / T_strategy, min times "
	       "(> 1: faster than static round-robin)\n  %-10s %7s", "bench", "P");
	for (int k = 0; k < o->ndlb; k++)
		if (k != slb)
			printf(" %9s", dlb_names[o->dlb[k]]);
	putchar('\n');
	for (int i = 0; i < o->nonly; i++) {
		for (int t = 0; t < o->nthreads; t++) {
			int p = o->threads[t];
			const struct cell *base = find_cell(cells, ncells, o->only[i],
							    "xsched", XS_DLB_SLB, p);

			if (!base)	/* the program did not get that far */
				continue;
			printf("  %-10s %7d", o->only[i]->problem->name, p);
			for (int k = 0; k < o->ndlb; k++) {
				const struct cell *c;

				if (k == slb)
					continue;
				c = find_cell(cells, ncells, o->only[i], "xsched",
					      o->dlb[k], p);
				if (cell_ok(base) && cell_ok(c))
					printf(" %8.2fx", base->min_s / c->min_s);
				else
					printf(" %9s", "-");
			}
			putchar('\n');
		}
	}
	fflush(stdout);
}
