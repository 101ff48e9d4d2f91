/* SPDX-License-Identifier: MIT */
/*
 * thread_name.h - the names worker threads carry in /proc/PID/task/TID/comm,
 * so that top -H, htop and perf -t tell them apart.
 *
 * A native runtime's workers are "xsched-w<N>", N the worker id
 * (xs_worker_id()); under the libgomp drop-in they are "xsched-omp<N>", N
 * the OpenMP thread number of the outermost team, which is the worker id
 * (libxsched/gomp/team.c). Worker 0 is the thread that created the runtime
 * and keeps its own name (the program's, for the main thread).
 */
#ifndef XSCHED_THREAD_NAME_H
#define XSCHED_THREAD_NAME_H

#include <stdint.h>

#define XS_THREAD_NAME_NATIVE "xsched-w"
#define XS_THREAD_NAME_OMP "xsched-omp"

/* The prefix of worker names from now on: one of the two above. Called
 * before any runtime is created (the drop-in's constructor). */
void xs_thread_name_prefix_set(const char *prefix);

/* Name the calling worker thread @id; a failure only costs the name. */
void xs_thread_name_self(uint32_t id);

#endif /* XSCHED_THREAD_NAME_H */
