// SPDX-License-Identifier: MIT
/*
 * profile.c - event logs and their Chrome trace-event JSON form.
 *
 * The JSON is an object {"traceEvents": [...], "displayTimeUnit": "ns",
 * "xsched": {...}}: one complete event ("ph":"X") per interval, pid 1,
 * tid = worker id, timestamps in microseconds since the first event; a
 * thread_name metadata event per worker; and the counters per worker under
 * "xsched". Perfetto and chrome://tracing open it as is.
 *
 * Events shorter than XSCHED_PROFILE_MIN_NS (default 1 us) are left out:
 * a fine-grained run logs millions of sub-microsecond tasks and spawns (a
 * 22 ms fib(25) wrote 23 MB), which no timeline can show apart (a pixel of
 * a 1000-pixel plot of it is 22 us) and which the counters already count.
 * An event is never shorter than one it encloses, so what is left still
 * nests; the time of the events left out counts for the enclosing event.
 * Each worker's "events_short" says how many were left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/runtime.h"

const char *const xs_event_names[XS_EV_NTYPES] = {
	[XS_EV_THREAD] = "THREAD",	     [XS_EV_TASK] = "TASK",
	[XS_EV_TASK_CREATE] = "TASK_CREATE", [XS_EV_TASKWAIT] = "TASKWAIT",
	[XS_EV_BARRIER] = "BARRIER",	     [XS_EV_STALL] = "STALL",
};

struct xs_profile_log *xs_profile_log_create(uint64_t cap)
{
	struct xs_profile_log *log = calloc(1, sizeof(*log));

	if (!log)
		return NULL;
	log->ev = malloc(cap * sizeof(*log->ev));
	if (!log->ev) {
		free(log);
		return NULL;
	}
	log->cap = cap;
	return log;
}

void xs_profile_log_destroy(struct xs_profile_log *log)
{
	if (!log)
		return;
	free(log->ev);
	free(log);
}

/* TSC ticks per microsecond, measured against CLOCK_MONOTONIC. */
static double xs_tsc_per_us(void)
{
	struct timespec a, b, nap = { 0, 20 * 1000 * 1000 };
	uint64_t t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = xs_tsc();
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	t1 = xs_tsc();
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	return ns > 0 ? (double)(t1 - t0) / (ns / 1e3) : 1e3;
}

int xs_profile_write(struct xs_runtime *rt, const char *path)
{
	double per_us = xs_tsc_per_us();
	uint64_t min_ticks = (uint64_t)((double)rt->opt.profile_min_ns * per_us / 1e3);
	uint64_t *shorts = calloc(rt->nworkers, sizeof(*shorts));
	uint64_t origin = UINT64_MAX;
	const char *sep = "";
	FILE *f;
	int ret = 0;

	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_profile_log *log = rt->workers[i]->log;

		for (uint64_t e = 0; e < log->n; e++)
			if (log->ev[e].start < origin)
				origin = log->ev[e].start;
	}
	if (!shorts)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f) {
		ret = -errno;
		free(shorts);
		return ret;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_profile_log *log = rt->workers[i]->log;

		fprintf(f, "%s{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
			   "\"args\":{\"name\":\"worker %u\"}}",
			sep, i, i);
		sep = ",\n";
		for (uint64_t e = 0; e < log->n; e++) {
			const struct xs_event *ev = &log->ev[e];

			if (ev->end - ev->start < min_ticks) {
				shorts[i]++;
				continue;
			}
			fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"name\":\"%s\","
				   "\"ts\":%.3f,\"dur\":%.3f}",
				i, xs_event_names[ev->type], (double)(ev->start - origin) / per_us,
				(double)(ev->end - ev->start) / per_us);
		}
	}
	fprintf(f, "\n],\"xsched\":{\"tsc_per_us\":%.3f,\"workers\":[", per_us);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_counters snap;
		const struct xs_counters *c = &snap;

		/* Some counters are derived from the barrier's counts. */
		xs_worker_counters(rt->workers[i], &snap);

		fprintf(f, "%s{\"worker\":%u,\"events_dropped\":%llu,\"events_short\":%llu",
			i ? "," : "", i, (unsigned long long)rt->workers[i]->log->dropped,
			(unsigned long long)shorts[i]);
#define XS_COUNTER_JSON(name, doc)                                                     \
	fprintf(f, ",\"%s\":%llu", #name, (unsigned long long)xs_load_relaxed(&c->name));
		XS_COUNTERS(XS_COUNTER_JSON)
#undef XS_COUNTER_JSON
		fputc('}', f);
	}
	fprintf(f, "]}}\n");
	free(shorts);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}
