// SPDX-License-Identifier: MIT
/*
 * depend.c - task dependences: depend(in/out/inout/mutexinoutset/inoutset)
 * and depobj, tracked per parent task.
 *
 * Table. A parent's children are created by the parent only, so its table
 * (address -> last writer, readers since) is touched by one thread and has
 * no locks. Per address: `in` depends on the last writer; `out`/`inout`
 * depends on the last writer and every reader since, and becomes the last
 * writer. mutexinoutset and inoutset are handled as inout: they keep their
 * order with everything else, and are also ordered among themselves, which
 * satisfies their mutual exclusion (libgomp does the same).
 *
 * Edges (lock-free). To make S depend on P the creator first counts it in
 * S->npred, then pushes an edge onto P->succ with a release CAS, unless
 * P->succ is XG_CLOSED (P completed: the count is taken back). P's
 * completion exchanges its stack for XG_CLOSED (acq_rel) and decrements
 * each successor's npred (acq_rel); the one that reaches zero releases S.
 * The creator holds one count of its own until every edge is in, so a
 * node cannot be released while it is still being registered. Everything
 * P did happens-before S starts: P's writes, its release exchange, the
 * successor's acq_rel decrement chain, then the release.
 *
 * Lifetime: a node is freed when its refs reach zero: one for the task,
 * one per table slot naming it. Edges are freed by the completing node.
 */
#include <stdlib.h>
#include <string.h>

#include "depend.h"
#include "runtime.h"

struct xg_dedge {
	struct xg_dedge *next;
	struct xg_dnode *node;
};

#define XG_CLOSED ((struct xg_dedge *)1)

/* One address of the table. */
struct xg_dentry {
	const void *addr;           /* NULL: empty slot */
	struct xg_dnode *writer;
	struct xg_dnode **readers;
	uint32_t nreaders, cap;
};

struct xg_deps {
	struct xg_dentry *slots;
	uint32_t mask;              /* slots - 1, a power of two minus one */
	uint32_t used;
};

enum { XG_DEP_IN = 1, XG_DEP_OUT = 2, XG_DEP_INOUT = 3, XG_DEP_MUTEXINOUTSET = 4,
       XG_DEP_INOUTSET = 5 };

static void *xg_xalloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		xg_warn("out of memory for task dependences (%zu bytes)", size);
		abort();
	}
	return p;
}

static inline void xg_dnode_get(struct xg_dnode *node)
{
	/* Relaxed: the creator holds a reference already. */
	atomic_fetch_add_explicit(&node->refs, 1, memory_order_relaxed);
}

void xg_dnode_put(struct xg_dnode *node)
{
	/* acq_rel: every use by other holders happens-before the free. */
	if (atomic_fetch_sub_explicit(&node->refs, 1, memory_order_acq_rel) == 1)
		free(node->owner);
}

static inline uint32_t xg_hash(const void *addr)
{
	uint64_t x = (uint64_t)(uintptr_t)addr;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x;
}

static struct xg_dentry *xg_deps_find(struct xg_deps *d, const void *addr);

static void xg_deps_grow(struct xg_deps *d)
{
	struct xg_dentry *old = d->slots;
	uint32_t n = old ? d->mask + 1 : 0;

	d->mask = n ? 2 * n - 1 : 15;
	d->slots = xg_xalloc(NULL, (d->mask + 1) * sizeof(*d->slots));
	memset(d->slots, 0, (d->mask + 1) * sizeof(*d->slots));
	for (uint32_t i = 0; i < n; i++)
		if (old[i].addr)
			*xg_deps_find(d, old[i].addr) = old[i];
	free(old);
}

/* The slot of @addr, empty if it has none (linear probing). */
static struct xg_dentry *xg_deps_find(struct xg_deps *d, const void *addr)
{
	uint32_t i = xg_hash(addr) & d->mask;

	while (d->slots[i].addr && d->slots[i].addr != addr)
		i = (i + 1) & d->mask;
	return &d->slots[i];
}

static struct xg_dentry *xg_deps_lookup(struct xg_task *parent, const void *addr)
{
	struct xg_deps *d = parent->deps;
	struct xg_dentry *e;

	if (!d) {
		d = parent->deps = xg_xalloc(NULL, sizeof(*d));
		memset(d, 0, sizeof(*d));
		xg_deps_grow(d);
	}
	e = xg_deps_find(d, addr);
	if (!e->addr) {
		if (2 * (d->used + 1) > d->mask + 1) {
			xg_deps_grow(d);
			e = xg_deps_find(d, addr);
		}
		e->addr = addr;
		d->used++;
	}
	return e;
}

/* Make @succ wait for @pred unless @pred has completed. */
static void xg_edge_add(struct xg_dnode *pred, struct xg_dnode *succ)
{
	struct xg_dedge *e, *head;

	if (pred == succ)
		return;
	/* Acquire pairs with the completer's exchange: when we see XG_CLOSED
	 * and skip the edge, P's writes are visible here, and so to S, which
	 * we publish later (queue release) or run ourselves. */
	head = xs_load_acquire(&pred->succ);
	if (head == XG_CLOSED)
		return;
	e = xg_xalloc(NULL, sizeof(*e));
	e->node = succ;
	/* Count before publishing: the completer may decrement at once. */
	atomic_fetch_add_explicit(&succ->npred, 1, memory_order_relaxed);
	do {
		if (head == XG_CLOSED) {
			atomic_fetch_sub_explicit(&succ->npred, 1, memory_order_relaxed);
			free(e);
			return;
		}
		e->next = head;
	} while (!atomic_compare_exchange_weak_explicit(&pred->succ, &head, e,
							memory_order_release,
							memory_order_acquire));
}

/* Forget readers that have completed, so `in`-heavy addresses stay small. */
static void xg_readers_prune(struct xg_dentry *e)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < e->nreaders; i++) {
		struct xg_dnode *r = e->readers[i];

		if (xs_load_relaxed(&r->succ) == XG_CLOSED)
			xg_dnode_put(r);
		else
			e->readers[k++] = r;
	}
	e->nreaders = k;
}

static void xg_dep_one(struct xg_task *parent, struct xg_dnode *node, const void *addr,
		       bool is_in, bool record)
{
	struct xg_dentry *e = xg_deps_lookup(parent, addr);

	if (e->writer)
		xg_edge_add(e->writer, node);
	if (is_in) {
		if (!record)
			return;
		if (e->nreaders == e->cap) {
			xg_readers_prune(e);
			if (e->nreaders == e->cap) {
				e->cap = e->cap ? 2 * e->cap : 4;
				e->readers = xg_xalloc(e->readers, e->cap * sizeof(*e->readers));
			}
		}
		xg_dnode_get(node);
		e->readers[e->nreaders++] = node;
		return;
	}
	for (uint32_t i = 0; i < e->nreaders; i++)
		xg_edge_add(e->readers[i], node);
	if (!record)
		return;
	for (uint32_t i = 0; i < e->nreaders; i++)
		xg_dnode_put(e->readers[i]);
	e->nreaders = 0;
	if (e->writer)
		xg_dnode_put(e->writer);
	xg_dnode_get(node);
	e->writer = node;
}

bool xg_depend_register(struct xg_task *parent, struct xg_dnode *node, void **depend,
			bool record, xg_dnode_release_fn release, void *owner)
{
	size_t n, nout, nmutex = 0, nin, first;

	xs_store_relaxed(&node->npred, 1); /* the creator's count */
	xs_store_relaxed(&node->refs, 1);  /* the task's */
	xs_store_relaxed(&node->succ, NULL);
	node->release = release;
	node->owner = owner;
	if ((uintptr_t)depend[0]) {
		/* OpenMP 4.5 layout: n, nout, then out/inout then in. */
		n = (uintptr_t)depend[0];
		nout = (uintptr_t)depend[1];
		nin = n - nout;
		first = 2;
	} else {
		/* 5.0 layout: 0, n, nout, nmutexinoutset, nin, addresses of
		 * out/inout, mutexinoutset, in, then depobjs {addr, kind}. */
		n = (uintptr_t)depend[1];
		nout = (uintptr_t)depend[2];
		nmutex = (uintptr_t)depend[3];
		nin = (uintptr_t)depend[4];
		first = 5;
	}
	for (size_t i = 0; i < n; i++) {
		void *entry = depend[first + i];

		if (i < nout + nmutex) {
			xg_dep_one(parent, node, entry, false, record);
		} else if (i < nout + nmutex + nin) {
			xg_dep_one(parent, node, entry, true, record);
		} else {
			void **obj = entry;
			uintptr_t kind = (uintptr_t)obj[1];

			if (kind < XG_DEP_IN || kind > XG_DEP_INOUTSET)
				xg_unsupported("a depend object of unknown kind");
			xg_dep_one(parent, node, obj[0], kind == XG_DEP_IN, record);
		}
	}
	/* Drop the creator's count: true when no predecessor is left. The
	 * acq_rel pairs with the completers' decrements. */
	return atomic_fetch_sub_explicit(&node->npred, 1, memory_order_acq_rel) == 1;
}

void xg_depend_complete(struct xg_dnode *node)
{
	struct xg_dedge *e = atomic_exchange_explicit(&node->succ, XG_CLOSED, memory_order_acq_rel);

	while (e) {
		struct xg_dedge *next = e->next;
		struct xg_dnode *s = e->node;

		free(e);
		if (atomic_fetch_sub_explicit(&s->npred, 1, memory_order_acq_rel) == 1)
			s->release(s);
		e = next;
	}
}

void xg_depend_free(struct xg_task *parent)
{
	struct xg_deps *d = parent->deps;

	if (!d)
		return;
	for (uint32_t i = 0; i <= d->mask; i++) {
		struct xg_dentry *e = &d->slots[i];

		if (!e->addr)
			continue;
		for (uint32_t k = 0; k < e->nreaders; k++)
			xg_dnode_put(e->readers[k]);
		if (e->writer)
			xg_dnode_put(e->writer);
		free(e->readers);
	}
	free(d->slots);
	free(d);
	parent->deps = NULL;
}
