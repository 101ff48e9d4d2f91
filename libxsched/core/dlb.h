/* SPDX-License-Identifier: MIT */
/*
 * dlb.h - lock-less NUMA-aware dynamic load balancing (internal).
 *
 * The messaging protocol (Alg. 1 and 2 of the XQueue/XGOMP paper): every
 * worker has a round cell and a request cell, each on its own cache line.
 * A request is (round << 24) | thief id, with a 40-bit round.
 *
 *  - Only the victim writes its round; it starts at 1 and only grows.
 *  - A thief reads the victim's round R and request cell; when the request
 *    cell already holds round R, somebody asked this round and the thief
 *    moves on; otherwise it writes (R << 24) | its id. Two thieves may race
 *    and overwrite each other: the loser's request simply times out (T idle
 *    visits) and it asks again. No locks, no read-modify-write.
 *  - The victim, at its scheduling points, reads its request cell; a request
 *    carrying its current round is valid. It serves it (NA-WS: moves up to
 *    S queued tasks into its queue towards the thief; NA-RP: sends its next
 *    S spawned tasks there) and then bumps its round, which invalidates the
 *    request: each request is served at most once.
 *
 * Stealing reads victims only through struct xs_victim_view, derived from a
 * topology victim table and published by pointer, so a better table (from
 * xschedd) can replace it without the stealing code knowing.
 */
#ifndef XSCHED_DLB_H
#define XSCHED_DLB_H

#include <stdbool.h>
#include <stdint.h>

#include "xsched.h"
#include "base/atomics.h"

#define XS_DLB_THIEF_BITS 24
#define XS_DLB_THIEF_MASK ((1u << XS_DLB_THIEF_BITS) - 1)
#define XS_DLB_ROUND_MASK ((1ull << 40) - 1)

static inline uint64_t xs_dlb_request(uint64_t round, uint32_t thief)
{
	return (round & XS_DLB_ROUND_MASK) << XS_DLB_THIEF_BITS | thief;
}

static inline uint64_t xs_dlb_request_round(uint64_t req)
{
	return req >> XS_DLB_THIEF_BITS;
}

static inline uint32_t xs_dlb_request_thief(uint64_t req)
{
	return (uint32_t)(req & XS_DLB_THIEF_MASK);
}

/* A worker's two message cells, the thieves' side of the protocol; each
 * line has one writer role. */
struct xs_dlb_cells {
	/* Written by this worker (the victim) only. */
	xs_cache_aligned _Atomic uint64_t round;
	/* Written by thieves, read by this worker. */
	xs_cache_aligned _Atomic uint64_t request;
};

/*
 * Victims of every worker, by worker id: first the workers on the thief's
 * own node (nearest first: same CPU, SMT sibling, LLC, node), then the
 * others by increasing distance. Immutable once published.
 */
struct xs_victim_view {
	uint32_t nworkers;
	uint32_t *first;   /* first[w]: index in ids[] of w's list */
	uint32_t *nlocal;  /* same-node victims of w */
	uint32_t *nremote; /* other-node victims of w, after the local ones */
	uint32_t *ids;     /* worker ids */
	uint16_t *weight;  /* parallel to ids: higher = preferred */
};

/* The thief and victim state of one worker: read and written by its own
 * thread only. */
struct xs_dlb_state {
	/* Effective settings: the runtime's struct xs_dlb_config with push
	 * resolved and, under auto, strategy and N/S/T/P from the guidance. */
	struct xs_dlb_config p;
	uint64_t round;          /* private copy of cells.round */
	uint64_t rng;            /* xorshift state for victim choice */
	uint32_t idle_visits;    /* T counter, reset when work is found */
	uint32_t redirect_to;    /* NA-RP: thief id while redirect_left > 0 */
	uint32_t redirect_left;
	uint32_t redirect_sent;  /* NA-RP: tasks sent for the current request */
	uint32_t sample;         /* auto: task-size sampling countdown */
	bool automatic;          /* XSCHED_DLB=auto: p follows task_cycles */
	uint64_t task_cycles;    /* auto: moving average of task size (TSC) */
	uint64_t gen;            /* rt->dlb_gen adopted into p (worker.c, at a
				  * job's start) */
};

struct xs_worker;
struct xs_runtime;
struct xs_topology;
struct xs_victim_table;

/* Build the view for @rt's placement from @vt (rows by topology CPU index).
 * Returns NULL and sets errno on failure. */
struct xs_victim_view *xs_victim_view_build(const struct xs_runtime *rt,
					   const struct xs_victim_table *vt);
void xs_victim_view_free(struct xs_victim_view *view);

/* Reset @w's balancing state to @cfg (between jobs only). */
void xs_dlb_init(struct xs_worker *w, const struct xs_dlb_config *cfg);

/* Victim side: serve a valid request. Called from xs_dlb_poll(). */
void xs_dlb_serve(struct xs_worker *w, uint64_t req);

/* Thief side: called at each idle scheduling point. */
void xs_dlb_idle(struct xs_worker *w);

/* NA-RP: the spawn path's redirect target has run out or is full. */
void xs_dlb_redirect_end(struct xs_worker *w);

/* auto: feed one measured task duration (TSC ticks). */
void xs_dlb_auto_sample(struct xs_worker *w, uint64_t cycles);

#endif /* XSCHED_DLB_H */
