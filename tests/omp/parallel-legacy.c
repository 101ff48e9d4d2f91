/* SPDX-License-Identifier: MIT */
/*
 * parallel-legacy.c - the parallel region ABI of binaries built by gcc
 * before 4.9: GOMP_parallel_start(fn, data, n); fn(data); GOMP_parallel_end(),
 * with the encountering thread running fn itself between the two calls.
 * gcc 12 no longer emits it, so the program calls it as old gcc did.
 */
#include <omp.h>

#include "omp-check.h"

extern void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
extern void GOMP_parallel_end(void);

struct legacy {
	int arrived;
	unsigned mask;
	int size;
};

static void legacy_body(void *data)
{
	struct legacy *l = data;

#pragma omp atomic
	l->arrived++;
#pragma omp atomic
	l->mask |= 1u << omp_get_thread_num();
	if (omp_get_thread_num() == 0)
		l->size = omp_get_num_threads();
}

static void legacy_start_end(void)
{
	struct legacy l = { 0, 0, -1 };

	GOMP_parallel_start(legacy_body, &l, 2);
	legacy_body(&l);
	GOMP_parallel_end();
	CHECK("parallel-legacy.team-size", l.size == 2);
	CHECK("parallel-legacy.arrived", l.arrived == 2 && l.mask == 3);
	OK("parallel-legacy.GOMP_parallel_start/end");
}

static void legacy_many(void)
{
	long total = 0;

	for (int r = 0; r < 200; r++) {
		struct legacy l = { 0, 0, -1 };

		GOMP_parallel_start(legacy_body, &l, 0);	/* 0: the default team */
		legacy_body(&l);
		GOMP_parallel_end();
		CHECK("parallel-legacy.default-team", l.size == omp_get_max_threads() &&
							     l.arrived == l.size);
		total += l.arrived == l.size;
	}
	printf("parallel-legacy.rounds %ld\n", total);
	OK("parallel-legacy.default-team");
}

int main(void)
{
	omp_set_dynamic(0);
	legacy_start_end();
	legacy_many();
	return 0;
}
