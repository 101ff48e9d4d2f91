// SPDX-License-Identifier: MIT
/*
 * Race free: every shared access is ordered by OpenMP - task dependences,
 * taskwait, taskgroup, taskloop, barriers (explicit and a loop's), a lock, critical
 * and a reduction. Exit 1 on a wrong result.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int a = 0, b = 0, s = 0, tg = 0, arr[64] = { 0 }, sq[64] = { 0 };
	long sqsum = 0;
	long r = 0, locked = 0;
	omp_lock_t lock;

	omp_init_lock(&lock);
#pragma omp parallel num_threads(4) reduction(+ : r)
	{
#pragma omp single
		{
#pragma omp task depend(out : a) shared(a)
			a = 1;
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
			b = a + 1;
#pragma omp task depend(inout : b) shared(b)
			b++;
#pragma omp taskwait
			s = b;
#pragma omp taskgroup
			{
#pragma omp task shared(tg)
				tg += 1;
			}
			tg += 1;
#pragma omp taskloop num_tasks(8) shared(sq)
			for (int i = 0; i < 64; i++)
				sq[i] = i * i;
			for (int i = 0; i < 64; i++)
				sqsum += sq[i];
		}
#pragma omp for
		for (int i = 0; i < 64; i++)
			arr[i] = i;
#pragma omp barrier
#pragma omp for
		for (int i = 0; i < 64; i++)
			r += arr[63 - i];
		omp_set_lock(&lock);
		locked++;
		omp_unset_lock(&lock);
#pragma omp critical
		s++;
	}
	omp_destroy_lock(&lock);
	printf("%d %ld %ld %d %ld\n", s, r, locked, tg, sqsum);
	return s != 7 || r != 2016 || locked != 4 || tg != 2 || sqsum != 85344;
}
