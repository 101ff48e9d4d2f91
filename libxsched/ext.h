/* SPDX-License-Identifier: MIT */
/*
 * ext.h - what the library's extensions may use of its internals (internal).
 *
 * The layers of libxsched/ are folders, each including only its own
 * headers and those of the folders before it:
 *
 *     base < topo < queue < daemon < obs < core < affinity < loops
 *
 * On top of them sit the extensions: the libgomp drop-in (gomp/), the CUDA
 * module (cuda/) and the tools (tools/). They include only the public
 * headers (include/) and this one. scripts/check-layers.sh checks both
 * rules in `make check` (test layers-include-rule.sh).
 *
 * What this header is to become: the narrow interface the extensions need
 * - push an inline frame, wake every worker, the current worker's id, the
 * options table - as functions, with no struct layouts of the core. What
 * it is today: the one place through which the extensions still reach the
 * layers' headers, struct layouts included. Each include below is a line
 * of scripts/layers.allow saying who needs it; narrowing this header
 * removes them one by one (the check fails on an allowlist line no longer
 * needed, so the list only shrinks).
 */
#ifndef XSCHED_EXT_H
#define XSCHED_EXT_H

/* gomp/: xs_load_* / xs_store_* on the drop-in's own shared words */
#include "base/atomics.h"
/* gomp/env.c, gomp/display_env.c, tools/xsched-run, tools/xsched-affinity:
 * the options table */
#include "base/options.h"
/* gomp/env.c: worker threads named xsched-omp<N> */
#include "base/thread_name.h"
/* gomp/env.c, gomp/places.c (OMP_PLACES), tools/xsched-affinity.c,
 * xsched-bench --affinity: the machine model */
#include "topo/topology.h"
/* gomp/detach.c: xs_park_notify() of a waiter */
#include "queue/park.h"
/* gomp/team.c: the process's CPU share (OMP_DYNAMIC); tools/xschedd-bench.c:
 * the client's connection */
#include "daemon/daemon_client.h"
/* gomp/: struct xs_worker and struct xs_runtime (gomp/task.c pushes inline
 * frames through w->dq itself, gomp/ws.c walks rt->workers[i]->park);
 * tools/xschedd-bench.c, xsched-bench --affinity, tools/xsched-affinity.c */
#include "core/runtime.h"
/* gomp/loop.c: schedule(runtime) with XSCHED_LOOP_SCHEDULE=affinity;
 * tools/xsched-affinity.c, xsched-bench --affinity: record, plan, replay */
#include "affinity/affinity.h"
/* gomp/gomp.h: the loop dispenser shared with xs_parallel_for() */
#include "loops/loop.h"

/* gomp/team.c: the largest team a num_threads clause can get (OpenMP
 * lets an implementation give fewer threads than asked). */
unsigned int xs_runtime_workers_max(void);

/*
 * gomp/task.c: a task the calling thread runs at once by a direct call
 * instead of queueing it (an undeferred task, or an included one past the
 * drop-in's bounds) is counted, so that the statistics and xsched-top see
 * every task (they read it as immediate: obs/stats.c). Outside a worker
 * nobody reads a count: nothing is counted.
 */
static inline void xs_count_run_at_once(void)
{
	struct xs_deque *d = xs_deque_self();

	/* Relaxed: owner-written (task_inline.h); readers sum snapshots. */
	if (d)
		xs_plain_store_relaxed(&d->run_at_once, d->run_at_once + 1);
}

#endif /* XSCHED_EXT_H */
