// SPDX-License-Identifier: MIT
/*
 * stats.c - printing the per-worker counters (XSCHED_SHOW_STATS=1).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "daemon/daemon_client.h"
#include "core/runtime.h"

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

/* a - b, or 0: a snapshot of a running worker may read b newer than a. */
static uint64_t xs_sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * Worker @w's counters, read from the barrier's counts where those count
 * the same thing, with its frames folded in (deque.c): a frame is a pushed
 * task, run by its creator (self) unless a thief ran it (local or remote
 * for the thief). Per worker the sums agree once workers are idle.
 *
 *   static_pushes = created - continuations + frames pushed
 *   tasks_self    = finished - tasks_local - tasks_remote
 *                   + frames pushed - frames a thief ran
 *   immediate     = immediate + tasks a layer ran at once (deque.h's
 *                   run_at_once: the drop-in's undeferred and included)
 *
 * (the barrier's created and finished without its rejoined, barrier.h).
 * Frames pushed and run at once are the deque's owner-written counts
 * (task_inline.h), kept with -DXS_NO_STATS. The worker increments the
 * barrier's count first, so the statistics counters are read first.
 */
void xs_worker_counters(const struct xs_worker *w, struct xs_counters *out)
{
	uint64_t pushed = xs_plain_load_relaxed(&w->dq.pushed);
	uint64_t run_at_once = xs_plain_load_relaxed(&w->dq.run_at_once);
	uint64_t lost = xs_load_relaxed(&w->fctr.frames_stolen_ran);
	uint64_t created, finished;

	/* Relaxed snapshots of owner-written counters (atomics.h); out is
	 * the caller's. */
#define XS_COUNTER_COPY(name, doc) xs_store_relaxed(&out->name, xs_load_relaxed(&w->ctr.name));
	XS_COUNTERS(XS_COUNTER_COPY)
#undef XS_COUNTER_COPY
	created = xs_load_relaxed(&w->bcnt.created);
	finished = xs_load_relaxed(&w->bcnt.finished);
	xs_store_relaxed(&out->static_pushes,
			 xs_sub_sat(created, xs_load_relaxed(&out->continuations)) + pushed);
	xs_store_relaxed(&out->tasks_self,
			 xs_sub_sat(finished, xs_load_relaxed(&out->tasks_local) +
						      xs_load_relaxed(&out->tasks_remote)) +
				 xs_sub_sat(pushed, lost));
	xs_store_relaxed(&out->tasks_local,
			 xs_load_relaxed(&out->tasks_local) + xs_load_relaxed(&w->fctr.frames_taken));
	xs_store_relaxed(&out->tasks_remote, xs_load_relaxed(&out->tasks_remote) +
						     xs_load_relaxed(&w->fctr.frames_taken_remote));
	xs_store_relaxed(&out->immediate, xs_load_relaxed(&out->immediate) + run_at_once);
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
	uint64_t executed = 0, total[XS_NCOUNTERS] = { 0 };
	struct xs_daemon_info info;

#ifdef XS_NO_STATS
	fputs("xsched: statistics were compiled out (-DXS_NO_STATS)\n", out);
	return;
#endif
	fprintf(out, "xsched: statistics for %u workers\n%-8s %14s", rt->nworkers, "worker",
		"tasks_executed");
	for (size_t f = 0; f < XS_NCOUNTERS; f++)
		fprintf(out, " %14s", xs_counter_fields[f].name);
	fputc('\n', out);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_counters c;

		xs_worker_counters(rt->workers[i], &c);
		executed += xs_counters_executed(&c);
		fprintf(out, "%-8u %14llu", i, (unsigned long long)xs_counters_executed(&c));
		for (size_t f = 0; f < XS_NCOUNTERS; f++) {
			uint64_t v = xs_counter_read(&c, xs_counter_fields[f].offset);

			fprintf(out, " %14llu", (unsigned long long)v);
			total[f] += v;
		}
		fputc('\n', out);
	}
	fprintf(out, "%-8s %14llu", "total", (unsigned long long)executed);
	for (size_t f = 0; f < XS_NCOUNTERS; f++)
		fprintf(out, " %14llu", (unsigned long long)total[f]);
	fputc('\n', out);
	/* Served by xschedd: what its worker state changed (daemon_client.h). */
	if (rt->daemon && !xs_daemon_info(rt, &info) && info.connects)
		fprintf(out, "xsched: daemon: early_parks %llu off_cpu_skips %llu stranded %llu\n",
			(unsigned long long)info.early_parks,
			(unsigned long long)info.off_cpu_skips,
			(unsigned long long)info.stranded);
}

int xs_runtime_stats(struct xs_runtime *rt, struct xs_stats *out)
{
	if (!rt || !out)
		return -EINVAL;
#ifdef XS_NO_STATS
	/* Built without statistics: most counters would read 0. */
	return -EOPNOTSUPP;
#endif
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		const struct xs_worker *w = rt->workers[i];
		struct xs_counters c;

		xs_worker_counters(w, &c);
		out->tasks_executed += xs_counters_executed(&c);
		/* Every counter has a field of the same name in struct xs_stats:
		 * a counter added without one does not compile. */
#define XS_COUNTER_SUM(name, doc) out->name += xs_load_relaxed(&c.name);
		XS_COUNTERS(XS_COUNTER_SUM)
#undef XS_COUNTER_SUM
		out->slabs_allocated += xs_load_relaxed(&w->pool.slabs_allocated);
		out->frames_taken += xs_load_relaxed(&w->fctr.frames_taken) +
				     xs_load_relaxed(&w->fctr.frames_taken_remote);
		out->frames_stolen += xs_load_relaxed(&w->bcnt.rejoined);
		out->publishes += xs_load_relaxed(&w->fctr.publishes);
		out->idle_work_ns += xs_load_relaxed(&w->fctr.idle_work_ns);
		out->ts_writes_owner += xs_load_relaxed(&w->fctr.ts_writes_owner);
		out->ts_writes_thief += xs_load_relaxed(&w->fctr.ts_writes_thief);
	}
	return 0;
}
