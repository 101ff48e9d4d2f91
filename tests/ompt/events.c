// SPDX-License-Identifier: MIT
/*
 * events.c - a program whose OMPT events are known: run with 4 threads
 * (OMP_NUM_THREADS=4), tests/gomp/ompt-events.sh compares what
 * tests/ompt/record-tool.c counts with what the constructs below must
 * produce. It also checks its own results (exit 1 on a wrong one).
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	omp_lock_t lock;
	omp_nest_lock_t nest;
	/* One counter per mutex: two mutexes do not exclude each other. */
	long sum = 0, by_lock = 0, by_nest = 0, by_critical = 0, by_named = 0, loop = 0;
	int a = 0, b = 0, c = 0, tg = 0, sec = 0, tl = 0;

	omp_init_lock(&lock);
	omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(4) reduction(+ : loop)
	{
		/* 4 GOMP_barrier */
#pragma omp barrier
		/* 4 loop begin/end, 4 workshare barriers */
#pragma omp for schedule(dynamic, 1)
		for (int i = 0; i < 16; i++)
			loop += i;
		/* 1 executor, 3 others, 4 GOMP_barrier */
#pragma omp single
		sum = 1;
		/* 4 sections begin/end, 4 workshare barriers */
#pragma omp sections
		{
#pragma omp section
			__atomic_add_fetch(&sec, 1, __ATOMIC_RELAXED);
#pragma omp section
			__atomic_add_fetch(&sec, 1, __ATOMIC_RELAXED);
		}
		/* 1 executor, 3 others, 4 GOMP_barrier; 5 tasks, 3 with
		 * dependences (4 entries), 1 taskwait, 1 taskgroup; a taskloop
		 * of 4 tasks in a taskgroup of its own */
#pragma omp single
		{
#pragma omp task depend(out : a) shared(a)
			a = 1;
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
			b = a + 1;
#pragma omp task depend(in : b) shared(b, c)
			c = b + 1;
#pragma omp taskwait
#pragma omp taskgroup
			{
#pragma omp task shared(tg)
				__atomic_add_fetch(&tg, 1, __ATOMIC_RELAXED);
#pragma omp task shared(tg)
				__atomic_add_fetch(&tg, 1, __ATOMIC_RELAXED);
			}
#pragma omp taskloop num_tasks(4) shared(tl)
			for (int i = 0; i < 16; i++)
				__atomic_add_fetch(&tl, i, __ATOMIC_RELAXED);
		}
		/* 4 lock acquisitions */
		omp_set_lock(&lock);
		by_lock++;
		omp_unset_lock(&lock);
		/* 4 nest acquisitions, 4 nested again */
		omp_set_nest_lock(&nest);
		omp_set_nest_lock(&nest);
		by_nest++;
		omp_unset_nest_lock(&nest);
		omp_unset_nest_lock(&nest);
		/* 8 critical acquisitions */
#pragma omp critical
		by_critical++;
#pragma omp critical(named)
		by_named++;
	}
	/* a combined construct: 2 loops (preset) */
#pragma omp parallel for schedule(dynamic) num_threads(2) reduction(+ : sum)
	for (int i = 0; i < 8; i++)
		sum += i;
	omp_destroy_lock(&lock);
	omp_destroy_nest_lock(&nest);
	if (loop != 120 || c != 3 || tg != 2 || sec != 2 || by_lock != 4 || by_nest != 4 ||
	    by_critical != 4 || by_named != 4 || sum != 29 || tl != 120) {
		printf("wrong results: loop=%ld c=%d tg=%d sec=%d lock=%ld nest=%ld critical=%ld "
		       "named=%ld sum=%ld tl=%d\n",
		       loop, c, tg, sec, by_lock, by_nest, by_critical, by_named, sum, tl);
		return 1;
	}
	return 0;
}
