/* SPDX-License-Identifier: MIT */
/*
 * taskbench.h - the task rows of --micro, after EPCC's taskbench
 * (taskbench_omp.c); micro.h lists them with its own rows. An operation is
 * one empty task created, run and waited for.
 */
#ifndef XSCHED_BENCH_TASKBENCH_H
#define XSCHED_BENCH_TASKBENCH_H

#define TASKBENCH_OPS \
	MICRO(task_parallel, "every thread creates empty tasks (EPCC parallel task)") \
	MICRO(task_master, "one thread creates empty tasks, the others wait (EPCC master task)") \
	MICRO(task_master_busy, "one thread creates empty tasks while the others are busy " \
		"(EPCC master task busy slaves)") \
	MICRO(task_nested, "every thread's tasks create a task per thread and wait " \
		"(EPCC nested task)") \
	MICRO(task_nested_master, "one thread's tasks create a task per thread and wait " \
		"(EPCC nested master task)")

#endif /* XSCHED_BENCH_TASKBENCH_H */
