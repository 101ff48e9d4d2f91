/* SPDX-License-Identifier: MIT */
/*
 * spsc.h - B-queue: a bounded single-producer single-consumer queue of
 * task pointers, the building block of XQueue.
 *
 * Invariants:
 *  - Exactly one thread pushes (the producer) and one thread pops (the
 *    consumer); head/batch_head belong to the producer, tail/batch_tail to
 *    the consumer, and each pair lives on its own cache line.
 *  - A slot is NULL when free. The producer fills slots in index order and
 *    only writes a NULL slot; the consumer empties them in index order and
 *    only reads a non-NULL slot. Therefore, on the producer's side, a NULL
 *    slot head+k (k < size) implies slots head..head+k-1 are NULL as well,
 *    and on the consumer's side, a non-NULL slot tail+k implies slots
 *    tail..tail+k-1 are non-NULL. Batching rests on these two facts: one
 *    probe reserves a whole batch of slots, so the hot path touches only the
 *    slot it uses and its own private line.
 *  - No read-modify-write atomics: a pushed pointer is published by a
 *    release store and observed by an acquire load; a freed slot likewise.
 */
#ifndef XSCHED_SPSC_H
#define XSCHED_SPSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/atomics.h"

struct xs_task;

struct xs_spsc {
	/* Producer's line. batch_head: slots [head, batch_head) are known free. */
	xs_cache_aligned uint32_t head;
	uint32_t batch_head;
	uint32_t mask;           /* size - 1; size is a power of two */
	uint32_t batch;          /* probe distance, <= size / 2 */
	/* Consumer's line. batch_tail: slots [tail, batch_tail) are known full. */
	xs_cache_aligned uint32_t tail;
	uint32_t batch_tail;
	/* The ring, from the next line on: size slots. */
	xs_cache_aligned _Atomic(struct xs_task *) slot[];
};

_Static_assert(offsetof(struct xs_spsc, tail) == XS_CACHE_LINE,
	       "producer and consumer indices must not share a cache line");
_Static_assert(offsetof(struct xs_spsc, slot) == 2 * XS_CACHE_LINE,
	       "the ring starts on its own cache line");

/* Bytes needed for a queue of @size slots. */
static inline size_t xs_spsc_bytes(uint32_t size)
{
	return sizeof(struct xs_spsc) + (size_t)size * sizeof(struct xs_task *);
}

/* Initialise a queue in @mem (xs_spsc_bytes(size) bytes, cache-line aligned). */
void xs_spsc_init(struct xs_spsc *q, uint32_t size);

/*
 * Reserve room for one push. Returns false when the queue is full, meaning
 * fewer than `batch` slots were free at the last probe (the caller then runs
 * the task immediately). Producer only.
 */
static inline bool xs_spsc_reserve(struct xs_spsc *q)
{
	if (xs_likely(q->head != q->batch_head))
		return true;
	/*
	 * Acquire pairs with the consumer's release store of NULL in
	 * xs_spsc_pop(): once we see slot head+batch free, the consumer has
	 * finished with it and, by the in-order invariant, with every slot
	 * before it, so all of [head, head+batch) may be overwritten.
	 */
	if (xs_load_acquire(&q->slot[(q->head + q->batch) & q->mask]))
		return false;
	q->batch_head = q->head + q->batch;
	return true;
}

/* Push @t into a slot reserved by xs_spsc_reserve(). Producer only. */
static inline void xs_spsc_push(struct xs_spsc *q, struct xs_task *t)
{
	/* Release publishes the task descriptor's contents to the consumer;
	 * pairs with the acquire load in xs_spsc_pop(). */
	xs_store_release(&q->slot[q->head & q->mask], t);
	q->head++;
}

/* Find how many consecutive slots from tail are full, halving the probe
 * distance from `batch` down to 1 (B-queue backtracking). Consumer only. */
static inline bool xs_spsc_refill(struct xs_spsc *q)
{
	for (uint32_t b = q->batch; b; b >>= 1) {
		/* Acquire pairs with xs_spsc_push(): a non-NULL slot tail+b-1
		 * means slots tail..tail+b-1 are published (in-order fill). */
		if (xs_load_acquire(&q->slot[(q->tail + b - 1) & q->mask])) {
			q->batch_tail = q->tail + b;
			return true;
		}
	}
	return false;
}

/* Pop the oldest task, or NULL when the queue is empty. Consumer only. */
static inline struct xs_task *xs_spsc_pop(struct xs_spsc *q)
{
	_Atomic(struct xs_task *) *s;
	struct xs_task *t;

	if (q->tail == q->batch_tail && !xs_spsc_refill(q))
		return NULL;
	s = &q->slot[q->tail & q->mask];
	/* Acquire: this slot was covered by a refill probe, but the task it
	 * points to must be read after its publication; pairs with push. */
	t = xs_load_acquire(s);
	/* Release pairs with the producer's acquire probe in
	 * xs_spsc_reserve(): the slot is free only after we are done with it. */
	xs_store_release(s, NULL);
	q->tail++;
	return t;
}

/*
 * Pop the newest task (LIFO), or NULL when empty. Only for a queue whose
 * producer and consumer are the same thread - a worker's master queue - so
 * every index is private and plain accesses suffice. Taking the newest task
 * first runs a waiting task's own, cache-hot child (work-first order).
 */
static inline struct xs_task *xs_spsc_pop_newest(struct xs_spsc *q)
{
	struct xs_task *t;

	if (q->head == q->tail)
		return NULL;
	q->head--;
	/* Relaxed: our own store, read back by the same thread. */
	t = xs_load_relaxed(&q->slot[q->head & q->mask]);
	/* Release, like xs_spsc_pop(): the slot is free for the producer -
	 * ourselves - so this orders nothing across threads. */
	xs_store_release(&q->slot[q->head & q->mask], NULL);
	/* The consumer's batch must not cover the slot just emptied; the
	 * producer's [head, batch_head) stays free. */
	if ((int32_t)(q->batch_tail - q->head) > 0)
		q->batch_tail = q->head;
	return t;
}

/*
 * Reverse the order of the tasks from index @from up to the newest, so that
 * xs_spsc_pop_newest() returns them oldest first. Same rule as pop_newest:
 * only for a queue that this thread both fills and empties. Every slot in
 * the range stays full, so the consumer's batch stays valid.
 */
static inline void xs_spsc_reverse_from(struct xs_spsc *q, uint32_t from)
{
	uint32_t lo = (int32_t)(from - q->tail) > 0 ? from : q->tail;
	uint32_t hi = q->head - 1;

	while ((int32_t)(hi - lo) > 0) {
		_Atomic(struct xs_task *) *a = &q->slot[lo & q->mask];
		_Atomic(struct xs_task *) *b = &q->slot[hi & q->mask];
		struct xs_task *t = xs_load_relaxed(a);

		/* Relaxed: nobody else reads these slots (private queue). */
		xs_store_relaxed(a, xs_load_relaxed(b));
		xs_store_relaxed(b, t);
		lo++;
		hi--;
	}
}

/* The task xs_spsc_pop_newest() would return, left in place. Same rule:
 * only for a queue whose producer and consumer are this thread. */
static inline struct xs_task *xs_spsc_peek_newest(struct xs_spsc *q)
{
	if (q->head == q->tail)
		return NULL;
	/* Relaxed: our own store, read back by the same thread. */
	return xs_load_relaxed(&q->slot[(q->head - 1) & q->mask]);
}

/* True if a pop would find a task now. Consumer only (used before parking,
 * after the park protocol's fence, see park.h). */
static inline bool xs_spsc_nonempty(struct xs_spsc *q)
{
	/* Relaxed: a hint only; the pop that acts on it loads with acquire. */
	return xs_load_relaxed(&q->slot[q->tail & q->mask]) != NULL;
}

#endif /* XSCHED_SPSC_H */
