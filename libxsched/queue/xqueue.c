// SPDX-License-Identifier: MIT
/*
 * xqueue.c - the XQueue matrix's size (xqueue.h).
 */
#include <stdint.h>

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
