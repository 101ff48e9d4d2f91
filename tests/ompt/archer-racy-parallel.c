// SPDX-License-Identifier: MIT
/* A data race: every thread of the team increments x unsynchronized. */
#include <stdio.h>

int main(void)
{
	int x = 0;

#pragma omp parallel num_threads(2) shared(x)
	x++;
	printf("%d\n", x);
	return 0;
}
