/* SPDX-License-Identifier: MIT */
/*
 * xqueue.h - the XQueue matrix: one SPSC queue (spsc.h) from every worker
 * to every worker (internal).
 *
 * N workers have N^2 queues in N rows: rows[c] is one allocation holding
 * the N queues *into* worker c, queue p of the row being the one worker p
 * pushes into. Worker c initialises its own row on its own thread (first
 * touch). A worker keeps the queues it uses in its own order, by place
 * k = 0..N-1, place k being worker (id + k) % N: out[k] is its queue into
 * that worker, in[k] that worker's queue into it, and place 0 (its own
 * queue into itself) is its master queue.
 *
 * Memory is bounded: N^2 x xs_spsc_bytes(size), the default size shrunk
 * with N so that the slots stay within a fixed budget.
 */
#ifndef XSCHED_XQUEUE_H
#define XSCHED_XQUEUE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "queue/spsc.h"

/* The default queue size for @nworkers workers (XSCHED_QUEUE_SIZE=0). */
uint32_t xs_xqueue_default_size(uint32_t nworkers);

/* 0 if @nworkers^2 queues of @size slots fit in half of the machine's
 * memory; else -ENOMEM after a line naming XSCHED_WORKERS and
 * XSCHED_QUEUE_SIZE (@size_set: the user's value, not the default). */
int xs_xqueue_memory_check(uint32_t nworkers, uint32_t size, bool size_set);

/* Bytes of one row: @n queues of @size slots. */
static inline size_t xs_xqueue_row_bytes(uint32_t size, uint32_t n)
{
	return xs_spsc_bytes(size) * n;
}

/* The queue worker @from pushes into, in worker @into's row of @rows
 * (queues of @size slots). */
static inline struct xs_spsc *xs_xqueue_at(void *const *rows, uint32_t size, uint32_t into,
					   uint32_t from)
{
	return (struct xs_spsc *)((char *)rows[into] + xs_spsc_bytes(size) * from);
}

/* The worker at place @k of worker @self, of @n. */
static inline uint32_t xs_xqueue_peer(uint32_t self, uint32_t k, uint32_t n)
{
	return (self + k) % n;
}

/* The place of worker @peer for worker @self, of @n: the inverse. */
static inline uint32_t xs_xqueue_place(uint32_t self, uint32_t peer, uint32_t n)
{
	return (peer + n - self) % n;
}

#endif /* XSCHED_XQUEUE_H */
