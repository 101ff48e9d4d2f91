/* SPDX-License-Identifier: MIT */
/*
 * nqueens.c - nqueens on xsched: the board travels in the task argument.
 * A typed task (xsched/task_typed.h): the board and the row are typed
 * arguments, the count of solutions the result.
 */
#include <stdint.h>
#include "../../harness/spawn.h"
#include "nqueens.h"

union nq_board {
	char a[NQ_MAX];			/* rows 0..j placed by the spawner */
	uint64_t w[NQ_MAX / 8];
};

_Static_assert(NQ_MAX == 16, "nq_place() knows two words");

/*
 * @b with the queen of row @j in column @i, computed on the board's two
 * 64-bit words. Storing the byte into @b and then copying the board into
 * the child's frame, as this program did, loads 16 bytes right after a
 * 1-byte store to them: the CPU cannot forward a narrow store to a wider
 * load, so every spawn waited for the store to reach the cache (1 thread
 * took 1.7x the serial time for 1.25x its instructions; callgrind and
 * objdump, docs/perf/core.md, ninth session).
 */
static inline union nq_board nq_place(union nq_board b, int j, int i)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	unsigned int shift = 8u * ((unsigned int)j % 8u);
#else
	unsigned int shift = 8u * (7u - (unsigned int)j % 8u);
#endif
	uint64_t keep = ~(UINT64_C(0xff) << shift);
	uint64_t queen = (uint64_t)(unsigned char)i << shift;

	if (j < 8)
		b.w[0] = (b.w[0] & keep) | queen;
	else
		b.w[1] = (b.w[1] & keep) | queen;
	return b;
}

/* Row j holds the new queen: check it, then spawn the n placements of
 * row j + 1 and sum their solutions. */
XS_TASK_3(long, nq_task, union nq_board, b, int, n, int, j)
{
	long sum = 0;

	j++;
	if (!nqueens_ok(j, b.a))
		return 0;
	if (j == n)
		return 1;
	for (int i = 0; i < n; i++)
		nq_task_spawn(nq_place(b, j, i), n, j);
	for (int i = 0; i < n; i++)
		sum += nq_task_join();
	return sum;
}

static void nqueens_xsched(void *p)
{
	struct nqueens_state *st = (struct nqueens_state *)p;
	union nq_board b = { { 0 } };
	long sum = 0;

	for (int i = 0; i < st->n; i++)
		nq_task_spawn(nq_place(b, 0, i), st->n, 0);
	for (int i = 0; i < st->n; i++)
		sum += nq_task_join();
	st->solutions = sum;
}

const struct bench bench_nqueens = {
	.problem = &nqueens_problem,
	.xsched = nqueens_xsched,
	.tbb = nqueens_tbb,
};
