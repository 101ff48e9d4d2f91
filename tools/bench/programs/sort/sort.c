/* SPDX-License-Identifier: MIT */
/* sort.c - multisort on xsched: tasks for the sorts and merges, as BOTS. */
#include "../../harness/spawn.h"
#include "sort.h"

struct cilksort_arg {
	sort_elm *low, *tmp;
	long size;
};

_Static_assert(sizeof(struct sort_merge_args) <= XS_TASK_ARG_MAX &&
	       sizeof(struct cilksort_arg) <= XS_TASK_ARG_MAX,
	       "inline arguments");

static void merge_task(void *p)
{
	struct sort_merge_args h[2];

	if (sort_merge_split(*(const struct sort_merge_args *)p, h))
		return;
	bench_spawn(merge_task, &h[0], sizeof(h[0]));
	bench_spawn(merge_task, &h[1], sizeof(h[1]));
	bench_wait();
}

static void cilksort_task(void *p)
{
	const struct cilksort_arg *a = (const struct cilksort_arg *)p;
	struct sort_merge_args m[3];
	long q = a->size / 4;

	if (a->size < SORT_QUICK_CUTOFF) {
		sort_quick(a->low, a->low + a->size - 1);
		return;
	}
	for (int i = 0; i < 4; i++) {
		struct cilksort_arg c = { a->low + i * q, a->tmp + i * q,
					  i < 3 ? q : a->size - 3 * q };

		bench_spawn(cilksort_task, &c, sizeof(c));
	}
	bench_wait();
	sort_level_merges(a->low, a->tmp, a->size, m);
	bench_spawn(merge_task, &m[0], sizeof(m[0]));
	bench_spawn(merge_task, &m[1], sizeof(m[1]));
	bench_wait();
	merge_task(&m[2]);
}

static void sort_xsched(void *p)
{
	struct sort_state *st = (struct sort_state *)p;
	struct cilksort_arg root = { st->a, st->tmp, st->n };

	cilksort_task(&root);
}

const struct bench bench_sort = {
	.problem = &sort_problem,
	.xsched = sort_xsched,
	.tbb = sort_tbb,
};
