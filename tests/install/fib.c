// SPDX-License-Identifier: MIT
/*
 * fib.c - a program built the way users build against an installed xsched
 * (`cc fib.c $(pkg-config --cflags --libs xsched)`), by
 * tests/system/install-destdir.sh and the system test (scripts/check-system.sh).
 * Prints "fib(N) = F on W workers"; exits 1 on any error.
 */
#include <stdio.h>
#include <stdlib.h>

#include <xsched.h>

struct fib_arg {
	int n;
	long *out;
};

static void fib(void *p)
{
	struct fib_arg *a = p;
	long x = 0, y = 0;

	if (a->n < 2) {
		*a->out = a->n;
		return;
	}
	struct fib_arg l = { a->n - 1, &x }, r = { a->n - 2, &y };

	if (xs_task_spawn(fib, &l, sizeof(l)) || xs_task_spawn(fib, &r, sizeof(r)) ||
	    xs_task_wait())
		abort();
	*a->out = x + y;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	long out = -1;
	struct fib_arg a = { n, &out };
	struct xs_runtime *rt = xs_runtime_create(2);

	if (!rt) {
		perror("xs_runtime_create");
		return 1;
	}
	if (xs_runtime_run(rt, fib, &a)) {
		fprintf(stderr, "xs_runtime_run failed\n");
		return 1;
	}
	printf("fib(%d) = %ld on %u workers\n", n, out, xs_runtime_workers(rt));
	xs_runtime_destroy(rt);
	return 0;
}
