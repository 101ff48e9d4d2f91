/* SPDX-License-Identifier: MIT */
/*
 * fib-task.h - fib(n) with one spawn per call and no cut-off: the smallest
 * task there is, so the runtime's own costs and orderings dominate.
 */
#ifndef XS_FIB_TASK_H
#define XS_FIB_TASK_H

#include "xsched.h"

struct fib_arg {
	int n;
	long *out; /* in the parent's frame: it joins before returning */
};

static void fib_task(void *p)
{
	struct fib_arg *a = p;
	long x, y;

	if (a->n < 2) {
		*a->out = a->n;
		return;
	}
	struct fib_arg left = { a->n - 1, &x }, right = { a->n - 2, &y };

	xs_task_spawn(fib_task, &left, sizeof left);
	fib_task(&right);
	xs_task_wait();
	*a->out = x + y;
}

#endif /* XS_FIB_TASK_H */
