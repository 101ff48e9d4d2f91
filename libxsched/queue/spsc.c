// SPDX-License-Identifier: MIT
/*
 * spsc.c - B-queue set-up. The hot paths are inline in spsc.h.
 */
#include <string.h>

#include "queue/spsc.h"

void xs_spsc_init(struct xs_spsc *q, uint32_t size)
{
	/* First touch happens here, on the consumer's thread, so the ring is
	 * placed on the consumer's NUMA node. */
	memset(q, 0, xs_spsc_bytes(size));
	q->mask = size - 1;
	q->batch = size >= 64 ? 16 : size / 4;
}
