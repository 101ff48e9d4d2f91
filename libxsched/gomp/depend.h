/* SPDX-License-Identifier: MIT */
/*
 * depend.h - task dependences (internal to the libgomp drop-in).
 */
#ifndef XSCHED_GOMP_DEPEND_H
#define XSCHED_GOMP_DEPEND_H

#include "gomp.h"

/*
 * gcc's depend array, in its two layouts. OpenMP 4.5: n, nout, then the
 * addresses of the out/inout dependences, then the in ones. 5.0: 0, n,
 * nout, nmutexinoutset, nin, the addresses of out/inout, mutexinoutset
 * and in dependences, then depend objects ({address, kind} pairs, the
 * kind one of XG_DEP_*), the rest of n.
 */
enum { XG_DEP_IN = 1, XG_DEP_OUT = 2, XG_DEP_INOUT = 3, XG_DEP_MUTEXINOUTSET = 4,
       XG_DEP_INOUTSET = 5 };

struct xg_depend_list {
	size_t n, nout, nmutex, nin;
	void **entry;               /* the n entries */
};

static inline void xg_depend_list(void **depend, struct xg_depend_list *l)
{
	if ((uintptr_t)depend[0]) {
		l->n = (uintptr_t)depend[0];
		l->nout = (uintptr_t)depend[1];
		l->nmutex = 0;
		l->nin = l->n - l->nout;
		l->entry = depend + 2;
	} else {
		l->n = (uintptr_t)depend[1];
		l->nout = (uintptr_t)depend[2];
		l->nmutex = (uintptr_t)depend[3];
		l->nin = (uintptr_t)depend[4];
		l->entry = depend + 5;
	}
}

/* Entry @i of @l: the address it names, and its kind in @kind (XG_DEP_*,
 * out/inout entries as XG_DEP_INOUT; a depend object's kind unchecked). */
static inline void *xg_depend_at(const struct xg_depend_list *l, size_t i, uintptr_t *kind)
{
	void **obj;

	if (i < l->nout) {
		*kind = XG_DEP_INOUT;
		return l->entry[i];
	}
	if (i < l->nout + l->nmutex) {
		*kind = XG_DEP_MUTEXINOUTSET;
		return l->entry[i];
	}
	if (i < l->nout + l->nmutex + l->nin) {
		*kind = XG_DEP_IN;
		return l->entry[i];
	}
	obj = l->entry[i];
	*kind = (uintptr_t)obj[1];
	return obj[0];
}

struct xg_dnode;

/* What to do when a node's last predecessor completes. */
typedef void (*xg_dnode_release_fn)(struct xg_dnode *node);

/*
 * A task with dependences (or a taskwait depend / undeferred task waiting
 * for its predecessors). npred counts unmet predecessors plus one held by
 * the creator while it registers edges; whoever brings it to zero calls
 * release. succ is a lock-free stack of successor edges, closed (XG_CLOSED)
 * when the node completes; refs counts the table entries and the task
 * itself that point at the node.
 */
struct xg_dnode {
	_Atomic uint32_t npred;
	_Atomic uint32_t refs;
	_Atomic(struct xg_dedge *) succ;
	xg_dnode_release_fn release;
	void *owner;                /* the task record (task.c) */
	/* mutexinoutset: the sets it belongs to, sorted by address (the
	 * order they are taken in), how many it holds, and its link in a
	 * set's queue of waiting members. */
	struct xg_dmutex **mutexes;
	uint32_t nmutexes, held;
	struct xg_dnode *mutex_next;
};

/* Initialise @node and register it as a child of @parent with the
 * dependences of gcc's @depend array; with @record false the node only
 * waits (taskwait depend, undeferred task), mutexinoutset counting as
 * inout, and is not entered in the table. Returns true when every
 * predecessor has already completed (release is then NOT called: the
 * caller proceeds, through xg_depend_ready() for a recorded node). */
bool xg_depend_register(struct xg_task *parent, struct xg_dnode *node, void **depend,
			bool record, xg_dnode_release_fn release, void *owner);

/* @node's predecessors have completed: take its mutexinoutset sets, then
 * release it (at once, or when the last set is handed over to it). */
void xg_depend_ready(struct xg_dnode *node);

/* The task of @node completed: release its successors (any thread). */
void xg_depend_complete(struct xg_dnode *node);

/* Drop one reference (the task's own, after xg_depend_complete()). */
void xg_dnode_put(struct xg_dnode *node);

/* Free @parent's dependence table (its children have all completed). */
void xg_depend_free(struct xg_task *parent);

#endif /* XSCHED_GOMP_DEPEND_H */
