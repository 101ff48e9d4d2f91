/* SPDX-License-Identifier: MIT */
/*
 * depend.h - task dependences (internal to the libgomp drop-in).
 */
#ifndef XSCHED_GOMP_DEPEND_H
#define XSCHED_GOMP_DEPEND_H

#include "gomp.h"

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
