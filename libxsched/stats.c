// SPDX-License-Identifier: MIT
/*
 * stats.c - printing the per-worker counters (XSCHED_SHOW_STATS=1).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "runtime.h"

static const struct {
	const char *name;
	size_t offset;
} xs_counter_fields[] = {
#define XS_COUNTER_ROW(name, doc) { #name, offsetof(struct xs_counters, name) },
	XS_COUNTERS(XS_COUNTER_ROW)
#undef XS_COUNTER_ROW
};

#define XS_NCOUNTERS (sizeof(xs_counter_fields) / sizeof(xs_counter_fields[0]))

static uint64_t xs_counter_read(const struct xs_counters *c, size_t offset)
{
	/* Relaxed snapshot of an owner-written counter (atomics.h). */
	return xs_load_relaxed((xs_counter_t *)((char *)c + offset));
}

uint64_t xs_stats_total(struct xs_runtime *rt, size_t offset)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < rt->nworkers; i++)
		sum += xs_counter_read(&rt->workers[i]->ctr, offset);
	return sum;
}

void xs_stats_print(struct xs_runtime *rt, FILE *out)
{
	uint64_t executed = 0;

	fprintf(out, "xsched: statistics for %u workers\n%-8s %14s", rt->nworkers, "worker",
		"tasks_executed");
	for (size_t f = 0; f < XS_NCOUNTERS; f++)
		fprintf(out, " %14s", xs_counter_fields[f].name);
	fputc('\n', out);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		executed += xs_counters_executed(&rt->workers[i]->ctr);
		fprintf(out, "%-8u %14llu", i,
			(unsigned long long)xs_counters_executed(&rt->workers[i]->ctr));
		for (size_t f = 0; f < XS_NCOUNTERS; f++)
			fprintf(out, " %14llu",
				(unsigned long long)xs_counter_read(&rt->workers[i]->ctr,
								    xs_counter_fields[f].offset));
		fputc('\n', out);
	}
	fprintf(out, "%-8s %14llu", "total", (unsigned long long)executed);
	for (size_t f = 0; f < XS_NCOUNTERS; f++)
		fprintf(out, " %14llu",
			(unsigned long long)xs_stats_total(rt, xs_counter_fields[f].offset));
	fputc('\n', out);
}

int xs_runtime_stats(struct xs_runtime *rt, struct xs_stats *out)
{
	if (!rt || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct xs_worker *w = rt->workers[i];
		const struct xs_counters *c = &w->ctr;

		out->tasks_executed += xs_counters_executed(c);
		/* Every counter has a field of the same name in struct xs_stats:
		 * a counter added without one does not compile. */
#define XS_COUNTER_SUM(name, doc) out->name += xs_load_relaxed(&c->name);
		XS_COUNTERS(XS_COUNTER_SUM)
#undef XS_COUNTER_SUM
		out->slabs_allocated += xs_load_relaxed(&w->pool.slabs_allocated);
	}
	return 0;
}
