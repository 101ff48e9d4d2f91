// SPDX-License-Identifier: MIT
/*
 * depend.c - task dependences: depend(in/out/inout/mutexinoutset/inoutset)
 * and depobj, tracked per parent task.
 *
 * Table. A parent's children are created by the parent only, so its table
 * (address -> last writer, readers since) is touched by one thread and has
 * no locks. Per address it keeps the writers (the last out/inout, or the
 * members of an open mutexinoutset set), the readers since, and for an open
 * set what its members wait for (prior). `in` depends on the writers;
 * `out`/`inout` on the writers and the readers, and becomes the only
 * writer. mutexinoutset: a run of them with no `in` in between forms a set
 * whose members all depend on what came before the set (prior) but not on
 * each other, and exclude each other at run time through the set's mutex;
 * whatever follows depends on every member. inoutset is handled as inout.
 *
 * Mutual exclusion. A member whose predecessors are done takes its sets'
 * mutexes in address order (no cycles, so no deadlock); at a busy one it
 * queues on it and returns. A completing member hands each mutex to the
 * first member queued on it, which goes on taking the rest and is then
 * queued as a task. A mutex's held flag and queue are guarded by a spin
 * lock held for a few instructions; its acquire/release also orders one
 * member's writes before the next member runs.
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
#include "ext.h"

struct xg_dedge {
	struct xg_dedge *next;
	struct xg_dnode *node;
};

#define XG_CLOSED ((struct xg_dedge *)1)

/* A growable list of nodes, each holding a reference. */
struct xg_dlist {
	struct xg_dnode **v;
	uint32_t n, cap;
};

/* One mutexinoutset set: its members exclude each other. */
struct xg_dmutex {
	xs_flag_t lock;             /* guards held, head and tail */
	bool held;
	struct xg_dnode *head, *tail; /* members waiting for it, FIFO */
	_Atomic uint32_t refs;      /* members not yet completed + the open entry */
};

/* One address of the table. */
struct xg_dentry {
	const void *addr;           /* NULL: empty slot */
	struct xg_dlist writers;    /* last out/inout, or the open set's members */
	struct xg_dlist readers;    /* `in` since */
	struct xg_dlist prior;      /* open set: what its members depend on */
	struct xg_dmutex *mutex;    /* open set, or NULL */
};

struct xg_deps {
	struct xg_dentry *slots;
	uint32_t mask;              /* slots - 1, a power of two minus one */
	uint32_t used;
};

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
	xs_fetch_add_relaxed(&node->refs, 1);
}

void xg_dnode_put(struct xg_dnode *node)
{
	/* acq_rel: every use by other holders happens-before the free. */
	if (xs_fetch_sub_acq_rel(&node->refs, 1) == 1) {
		free(node->mutexes);
		free(node->owner);
	}
}

static void xg_dmutex_put(struct xg_dmutex *m)
{
	/* acq_rel: the last member's hand-over happens-before the free. */
	if (m && xs_fetch_sub_acq_rel(&m->refs, 1) == 1)
		free(m);
}

static void xg_dlist_add(struct xg_dlist *l, struct xg_dnode *node)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		l->v = xg_xalloc(l->v, l->cap * sizeof(*l->v));
	}
	xg_dnode_get(node);
	l->v[l->n++] = node;
}

static void xg_dlist_clear(struct xg_dlist *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		xg_dnode_put(l->v[i]);
	l->n = 0;
}

/* Move @src's nodes (and their references) to the end of @dst. */
static void xg_dlist_move(struct xg_dlist *dst, struct xg_dlist *src)
{
	if (dst->n + src->n > dst->cap) {
		dst->cap = dst->n + src->n;
		dst->v = xg_xalloc(dst->v, dst->cap * sizeof(*dst->v));
	}
	for (uint32_t i = 0; i < src->n; i++)
		dst->v[dst->n++] = src->v[i];
	src->n = 0;
}

static void xg_dlist_free(struct xg_dlist *l)
{
	xg_dlist_clear(l);
	free(l->v);
	l->v = NULL;
	l->cap = 0;
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
	xs_fetch_add_relaxed(&succ->npred, 1);
	do {
		if (head == XG_CLOSED) {
			/* Relaxed: taking back our own count; the creator's
			 * count keeps npred above zero meanwhile. */
			xs_fetch_sub_relaxed(&succ->npred, 1);
			free(e);
			return;
		}
		e->next = head;
		/* Release publishes e->next and e->node to the completer's
		 * exchange; acquire on failure as for the load above. */
	} while (!xs_cas_weak_release_acquire(&pred->succ, &head, e));
}

/* Forget nodes that have completed, so long lists (many `in`s, large
 * mutexinoutset sets) stay small; only when the list is about to grow. */
static void xg_dlist_prune(struct xg_dlist *l)
{
	uint32_t k = 0;

	if (l->n < l->cap)
		return;
	for (uint32_t i = 0; i < l->n; i++) {
		struct xg_dnode *r = l->v[i];

		/* Relaxed: only decides whether to drop our reference. */
		if (xs_load_relaxed(&r->succ) == XG_CLOSED)
			xg_dnode_put(r);
		else
			l->v[k++] = r;
	}
	l->n = k;
}

static void xg_edges_from(struct xg_dlist *l, struct xg_dnode *node)
{
	for (uint32_t i = 0; i < l->n; i++)
		xg_edge_add(l->v[i], node);
}

enum xg_dep_kind { XG_KIND_IN, XG_KIND_OUT, XG_KIND_MUTEX };

/* Close @e's open mutexinoutset set, if any (something else follows). */
static void xg_set_close(struct xg_dentry *e)
{
	xg_dlist_clear(&e->prior);
	xg_dmutex_put(e->mutex);
	e->mutex = NULL;
}

static void xg_node_join_set(struct xg_dnode *node, struct xg_dmutex *m)
{
	for (uint32_t i = 0; i < node->nmutexes; i++)
		if (node->mutexes[i] == m)
			return; /* the same address twice */
	node->mutexes = xg_xalloc(node->mutexes, (node->nmutexes + 1) * sizeof(*node->mutexes));
	node->mutexes[node->nmutexes++] = m;
	/* Relaxed: the creator holds the entry's reference. */
	xs_fetch_add_relaxed(&m->refs, 1);
}

static struct xg_dmutex *xg_dmutex_new(void)
{
	struct xg_dmutex *m = xg_xalloc(NULL, sizeof(*m));

	/* Relaxed: the set is not shared yet; the table entry that holds it
	 * is the creator's alone. */
	xs_flag_clear_relaxed(&m->lock);
	m->held = false;
	m->head = m->tail = NULL;
	xs_store_relaxed(&m->refs, 1); /* the entry's */
	return m;
}

/*
 * A waiter (record false: an undeferred task, taskwait depend) only reads
 * the table: it completes before its creator makes the next sibling, so
 * nothing later depends on it. An address without a slot has no writer and
 * no reader to wait for, so it gets none; a table the parent never made
 * (every earlier sibling ran undeferred, as in a team of one) is not made.
 */
static void xg_dep_wait_one(struct xg_task *parent, struct xg_dnode *node, const void *addr,
			    enum xg_dep_kind kind)
{
	struct xg_dentry *e;

	if (!parent->deps)
		return;
	e = xg_deps_find(parent->deps, addr);
	if (!e->addr)
		return;
	/* Every kind waits for the writers (an open mutexinoutset set's
	 * members: the whole set); all but `in` for the readers too. */
	xg_edges_from(&e->writers, node);
	if (kind != XG_KIND_IN)
		xg_edges_from(&e->readers, node);
}

static void xg_dep_one(struct xg_task *parent, struct xg_dnode *node, const void *addr,
		       enum xg_dep_kind kind, bool record)
{
	struct xg_dentry *e;

	if (!record) {
		xg_dep_wait_one(parent, node, addr, kind);
		return;
	}
	e = xg_deps_lookup(parent, addr);
	switch (kind) {
	case XG_KIND_IN:
		xg_edges_from(&e->writers, node);
		xg_dlist_prune(&e->readers);
		xg_dlist_add(&e->readers, node);
		break;
	case XG_KIND_OUT:
		xg_edges_from(&e->writers, node);
		xg_edges_from(&e->readers, node);
		xg_set_close(e);
		xg_dlist_clear(&e->writers);
		xg_dlist_clear(&e->readers);
		xg_dlist_add(&e->writers, node);
		break;
	case XG_KIND_MUTEX:
		if (!e->mutex || e->readers.n) {
			/* A new set: its members wait for everything before. */
			xg_set_close(e);
			xg_dlist_move(&e->prior, &e->writers);
			xg_dlist_move(&e->prior, &e->readers);
			e->mutex = xg_dmutex_new();
		}
		xg_edges_from(&e->prior, node);
		xg_dlist_prune(&e->writers);
		xg_dlist_add(&e->writers, node);
		xg_node_join_set(node, e->mutex);
		break;
	}
}

bool xg_depend_register(struct xg_task *parent, struct xg_dnode *node, void **depend,
			bool record, xg_dnode_release_fn release, void *owner)
{
	struct xg_depend_list l;

	xs_store_relaxed(&node->npred, 1); /* the creator's count */
	xs_store_relaxed(&node->refs, 1);  /* the task's */
	xs_store_relaxed(&node->succ, NULL);
	node->release = release;
	node->owner = owner;
	node->mutexes = NULL;
	node->nmutexes = node->held = 0;
	node->mutex_next = NULL;
	xg_depend_list(depend, &l);
	for (size_t i = 0; i < l.n; i++) {
		uintptr_t kind;
		void *addr = xg_depend_at(&l, i, &kind);

		if (kind < XG_DEP_IN || kind > XG_DEP_INOUTSET)
			xg_unsupported("a depend object of unknown kind");
		xg_dep_one(parent, node, addr,
			   kind == XG_DEP_IN ? XG_KIND_IN
			   : kind == XG_DEP_MUTEXINOUTSET ? XG_KIND_MUTEX : XG_KIND_OUT,
			   record);
	}
	/* Sets are taken in address order (insertion sort: a few). */
	for (uint32_t i = 1; i < node->nmutexes; i++)
		for (uint32_t k = i; k && node->mutexes[k - 1] > node->mutexes[k]; k--) {
			struct xg_dmutex *t = node->mutexes[k];

			node->mutexes[k] = node->mutexes[k - 1];
			node->mutexes[k - 1] = t;
		}
	/* Drop the creator's count: true when no predecessor is left. The
	 * acq_rel pairs with the completers' decrements. */
	return xs_fetch_sub_acq_rel(&node->npred, 1) == 1;
}

static inline void xg_dmutex_lock(struct xg_dmutex *m)
{
	/* Acquire: the previous holder's section happens-before ours. */
	while (xs_flag_test_and_set_acquire(&m->lock))
		xs_cpu_relax();
}

static inline void xg_dmutex_unlock(struct xg_dmutex *m)
{
	/* Release pairs with the next xg_dmutex_lock()'s acquire. */
	xs_flag_clear_release(&m->lock);
}

void xg_depend_ready(struct xg_dnode *node)
{
	for (; node->held < node->nmutexes; node->held++) {
		struct xg_dmutex *m = node->mutexes[node->held];

		xg_dmutex_lock(m);
		if (m->held) {
			/* Busy: the member holding it hands it over. */
			node->mutex_next = NULL;
			if (m->tail)
				m->tail->mutex_next = node;
			else
				m->head = node;
			m->tail = node;
			xg_dmutex_unlock(m);
			return;
		}
		m->held = true;
		xg_dmutex_unlock(m);
	}
	node->release(node);
}

/* Give up @node's sets, each to its first waiting member. */
static void xg_depend_release_sets(struct xg_dnode *node)
{
	for (uint32_t i = 0; i < node->nmutexes; i++) {
		struct xg_dmutex *m = node->mutexes[i];
		struct xg_dnode *next;

		xg_dmutex_lock(m);
		next = m->head;
		if (next) {
			m->head = next->mutex_next;
			if (!m->head)
				m->tail = NULL;
		} else {
			m->held = false;
		}
		xg_dmutex_unlock(m);
		if (next) {
			next->held++; /* it holds m now: on to its next set */
			xg_depend_ready(next);
		}
		xg_dmutex_put(m);
	}
}

void xg_depend_complete(struct xg_dnode *node)
{
	struct xg_dedge *e;

	xg_depend_release_sets(node);
	/* acq_rel: release publishes the task's writes to the successors
	 * (through their npred below); acquire sees the edges that
	 * creators pushed with release. */
	e = xs_exchange_acq_rel(&node->succ, XG_CLOSED);
	while (e) {
		struct xg_dedge *next = e->next;
		struct xg_dnode *s = e->node;

		free(e);
		/* acq_rel: the last decrement (ours, another completer's or
		 * the creator's) acquires every other predecessor's release. */
		if (xs_fetch_sub_acq_rel(&s->npred, 1) == 1)
			xg_depend_ready(s);
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
		xg_set_close(e);
		xg_dlist_free(&e->prior);
		xg_dlist_free(&e->writers);
		xg_dlist_free(&e->readers);
	}
	free(d->slots);
	free(d);
	parent->deps = NULL;
}
