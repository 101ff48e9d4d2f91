// SPDX-License-Identifier: MIT
/*
 * job.c - a worker's part of a job: start it, run its root or implicit
 * task, end it at the team barrier.
 *
 * A job's start and end sit above both the worker's loop (worker.c: run
 * tasks, wait, steal) and the barrier (barrier.c), which waits by running
 * that loop: the barrier calls the worker's loop, this file calls both,
 * and neither calls back into the other.
 */
#include "core/runtime.h"

/* Start a job on this worker; xs_worker_job_end() finishes it. */
void xs_worker_job_begin(struct xs_worker *w)
{
	/* Settings of xs_runtime_set_dlb(), adopted between jobs only. */
	if (xs_unlikely(w->dlb.gen != w->rt->dlb_gen)) {
		xs_dlb_init(w, &w->rt->dlb);
		w->dlb.gen = w->rt->dlb_gen;
	}
	w->own.in_job = true;
	xs_worker_spawn_begin(w);
}

/* The team barrier, which returns only when every task of the job has
 * completed. @t0: the job's xs_prof_begin(). */
void xs_worker_job_end(struct xs_worker *w, uint64_t t0)
{
	xs_barrier_arrive_and_wait(w);
	w->own.in_job = false;
	xs_prof_end(w->log, XS_EV_THREAD, t0);
}

/* Run one job on this worker: the root or implicit task, then the team
 * barrier, which returns only when every task of the job has completed. */
void xs_worker_run_job(struct xs_worker *w, enum xs_job_kind kind, xs_task_fn fn, void *arg)
{
	uint64_t t0 = xs_prof_begin(w->log);
	struct xs_task frame;

	xs_worker_job_begin(w);
	if (kind == XS_JOB_PARALLEL) {
		xs_worker_implicit_begin(w, &frame);
		fn(arg);
		xs_worker_implicit_end(w, &frame);
	} else if (kind == XS_JOB_RUN && w->id == 0) {
		frame.fn = fn;
		frame.parent = NULL;
		xs_task_run_frame(w, &frame, arg);
	}
	xs_worker_job_end(w, t0);
}
