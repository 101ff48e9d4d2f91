// SPDX-License-Identifier: MIT
/* A data race: two sibling tasks write x with no dependence between them;
 * the first one sleeps so that both run at once on two threads. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int x = 0;

#pragma omp parallel num_threads(2) shared(x)
#pragma omp single
	{
#pragma omp task shared(x)
		{
			usleep(100000);
			x = 1;
		}
#pragma omp task shared(x)
		x = 2;
	}
	printf("%d\n", x);
	return 0;
}
