// SPDX-License-Identifier: MIT
/*
 * xqueue.c - the XQueue matrix's size and memory (xqueue.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>

#include "queue/spsc.h"
#include "queue/xqueue.h"

/* Default XQueue size: 256 slots, shrunk so that the N^2 rings stay within
 * 32 MiB (a 256-worker runtime gets 64-slot queues: 32 MiB of slots). */
#define XS_QUEUE_DEFAULT 256u
#define XS_QUEUE_MIN 16u
#define XS_QUEUE_BUDGET (32u << 20)

uint32_t xs_xqueue_default_size(uint32_t n)
{
	uint64_t per_queue = XS_QUEUE_BUDGET / ((uint64_t)n * n * sizeof(void *));
	uint32_t size = XS_QUEUE_DEFAULT;

	while (size > XS_QUEUE_MIN && size > per_queue)
		size >>= 1;
	return size;
}

/*
 * XQueue's memory: each of @n workers owns one queue of @size slots from
 * every worker, n^2 x xs_spsc_bytes(size), committed as the workers
 * initialise their rows. More than half of the machine's memory is
 * refused (ENOMEM, a message naming both settings) instead of letting the
 * workers fault it in until the OOM killer comes: 1024 workers with
 * 65536-slot queues, each value in its range, are 512 GiB.
 */
int xs_xqueue_memory_check(uint32_t n, uint32_t size, bool size_set)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t queues, total, limit = UINT64_MAX;

	if (pages > 0 && page > 0)
		limit = (uint64_t)pages * (uint64_t)page / 2;
	if (!__builtin_mul_overflow((uint64_t)n, (uint64_t)n, &queues) &&
	    !__builtin_mul_overflow(queues, (uint64_t)xs_spsc_bytes(size), &total) &&
	    total <= limit)
		return 0;
	fprintf(stderr,
		"xsched: XSCHED_WORKERS=%u and XSCHED_QUEUE_SIZE=%u%s: XQueue would take "
		"%u x %u queues of %zu bytes (%llu MiB), more than half of this machine's "
		"memory (%llu MiB); use fewer workers or a smaller XSCHED_QUEUE_SIZE\n",
		n, size, size_set ? "" : " (its default)", n, n, xs_spsc_bytes(size),
		(unsigned long long)((double)n * n * (double)xs_spsc_bytes(size) / 1048576.0),
		(unsigned long long)(limit == UINT64_MAX ? 0 : limit * 2 >> 20));
	return -ENOMEM;
}
