// SPDX-License-Identifier: MIT
/*
 * api.c - the omp_* routines of the OpenMP API (locks: lock.c; tasks:
 * task.c): ICVs, team and level queries, places, time.
 */
#include <time.h>

#include "gomp.h"

typedef int xg_sched_t; /* omp_sched_t */

XG_EXPORT void omp_set_num_threads(int n)
{
	struct xg_icv *icv = xg_icv_writable();

	icv->nthreads = n > 0 ? (uint32_t)n : 1;
	icv->nthreads_at = -1;
}

XG_EXPORT int omp_get_max_threads(void)
{
	return (int)xg_task_self()->icv->nthreads;
}

XG_EXPORT int omp_get_num_threads(void)
{
	return (int)xg_team_size();
}

XG_EXPORT int omp_get_thread_num(void)
{
	return (int)xg_thread_num();
}

XG_EXPORT int omp_get_num_procs(void)
{
	xg_env_init();
	return (int)xg_env.nprocs;
}

XG_EXPORT int omp_in_parallel(void)
{
	return xg_task_self()->team->active_level > 0;
}

XG_EXPORT void omp_set_dynamic(int on)
{
	xg_icv_writable()->dynamic = on != 0;
}

XG_EXPORT int omp_get_dynamic(void)
{
	return xg_task_self()->icv->dynamic;
}

XG_EXPORT void omp_set_max_active_levels(int levels)
{
	if (levels >= 0)
		xg_icv_writable()->max_active_levels = levels > 255 ? 255u : (uint32_t)levels;
}

XG_EXPORT int omp_get_max_active_levels(void)
{
	return (int)xg_task_self()->icv->max_active_levels;
}

XG_EXPORT int omp_get_supported_active_levels(void)
{
	return 255;
}

/* Deprecated in OpenMP 5.0; as libgomp: nested means more than one level. */
XG_EXPORT void omp_set_nested(int on)
{
	xg_icv_writable()->max_active_levels = on ? 255u : 1u;
}

XG_EXPORT int omp_get_nested(void)
{
	return xg_task_self()->icv->max_active_levels > 1;
}

XG_EXPORT void omp_set_schedule(xg_sched_t kind, int chunk)
{
	uint32_t k = (uint32_t)kind & ~XG_SCHED_MONOTONIC;
	struct xg_icv *icv;

	/* 5 is xsched's hybrid (what omp_get_schedule() reports under
	 * XSCHED_LOOP_SCHEDULE=hybrid); its chunk is unused, its ns, nd and
	 * grain stay XSCHED_LOOP_HYBRID_*'s. */
	if (k < XG_SCHED_STATIC || k > XG_SCHED_HYBRID)
		return; /* not a schedule kind: ignored, as libgomp does */
	icv = xg_icv_writable();
	icv->run_sched = (uint32_t)kind;
	icv->run_chunk = k == XG_SCHED_AUTO ? 0 : chunk < 1 ? (k == XG_SCHED_STATIC ? 0 : 1) : chunk;
}

XG_EXPORT void omp_get_schedule(xg_sched_t *kind, int *chunk)
{
	const struct xg_icv *icv = xg_task_self()->icv;

	*kind = (xg_sched_t)icv->run_sched;
	*chunk = icv->run_chunk;
}

XG_EXPORT int omp_get_thread_limit(void)
{
	uint32_t l = xg_task_self()->icv->thread_limit;

	return l > INT32_MAX ? INT32_MAX : (int)l;
}

XG_EXPORT int omp_get_level(void)
{
	return (int)xg_task_self()->team->level;
}

XG_EXPORT int omp_get_active_level(void)
{
	return (int)xg_task_self()->team->active_level;
}

/* The team at nesting level @level of the current task, or NULL. */
static const struct xg_team *xg_team_at(int level, uint32_t *tid)
{
	struct xg_task *t = xg_task_self();
	const struct xg_team *team = t->team;
	uint32_t my = t->tid;

	if (level < 0 || (uint32_t)level > team->level)
		return NULL;
	while (team->level > (uint32_t)level) {
		my = team->parent_tid;
		team = team->parent;
	}
	*tid = my;
	return team;
}

XG_EXPORT int omp_get_ancestor_thread_num(int level)
{
	uint32_t tid;

	if (!xg_team_at(level, &tid))
		return -1;
	return level == 0 ? 0 : (int)tid;
}

XG_EXPORT int omp_get_team_size(int level)
{
	uint32_t tid;
	const struct xg_team *team = xg_team_at(level, &tid);

	if (!team)
		return -1;
	return level == 0 ? 1 : (int)team->nthreads;
}

XG_EXPORT int omp_get_cancellation(void)
{
	return 0;
}

XG_EXPORT int omp_get_proc_bind(void)
{
	return (int)xg_task_self()->icv->bind;
}

XG_EXPORT int omp_get_max_task_priority(void)
{
	xg_env_init();
	return xg_env.max_task_priority;
}

XG_EXPORT double omp_get_wtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

XG_EXPORT double omp_get_wtick(void)
{
	struct timespec ts;

	clock_getres(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* No offload devices: everything runs on the host, the initial device. */
XG_EXPORT int omp_get_num_devices(void)
{
	return 0;
}

/* default-device-var: 0 (the host), OMP_DEFAULT_DEVICE, or under
 * OMP_TARGET_OFFLOAD=mandatory omp_invalid_device until the program
 * chooses one (target.c). */
XG_EXPORT int omp_get_default_device(void)
{
	return xg_task_self()->icv->default_device;
}

XG_EXPORT void omp_set_default_device(int device)
{
	xg_icv_writable()->default_device = device;
}

XG_EXPORT int omp_is_initial_device(void)
{
	return 1;
}

XG_EXPORT int omp_get_initial_device(void)
{
	return 0; /* omp_get_num_devices() */
}

XG_EXPORT int omp_get_device_num(void)
{
	return 0;
}

/* omp_pause_resource: the host's idle runtimes are destroyed, their
 * threads with them (team.c); refused inside a parallel region, and for
 * any device but the host, as libgomp does. */
XG_EXPORT int omp_pause_resource(int kind, int device)
{
	(void)kind;
	if (device != 0 || omp_in_parallel())
		return -1;
	return xg_pool_pause();
}

XG_EXPORT int omp_pause_resource_all(int kind)
{
	return omp_pause_resource(kind, 0);
}
