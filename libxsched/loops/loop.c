// SPDX-License-Identifier: MIT
/*
 * loop.c - parallel loops: the chunk dispenser (loop.h) and
 * xs_parallel_for(), xs_parallel_for_u64(), xs_parallel_for_2d().
 *
 * Hybrid (the hybrid-grained schedule of the NUMA GEMM seed): an equal
 * static split waits for the slowest thread; here each thread's block ends
 * in small dynamic tasks that threads done early take. A thief looks at
 * its victims nearest first (the runtime's victim view: same CPU, SMT,
 * LLC, node, then by distance); among the victims of the nearest level
 * that still has tasks it picks the one with the most tasks left (the
 * slowest), and claims one with a CAS on that victim's span word.
 * Termination: a thief gives up only after a scan that saw every span
 * empty; spans never refill, so nothing is left behind, and an owner always
 * runs what no thief took.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/affinity.h"
#include "topo/topology.h"
#include "daemon/daemon_client.h"
#include "loops/loop.h"
#include "base/options.h"
#include "core/runtime.h"

enum { XS_PH_STATIC, XS_PH_OWN, XS_PH_STEAL, XS_PH_DONE };

#define XS_SPAN(front, back) ((uint64_t)(front) | (uint64_t)(back) << 32)
#define XS_SPAN_FRONT(s) ((uint32_t)(s))
#define XS_SPAN_BACK(s) ((uint32_t)((s) >> 32))

/* Thread t's block and its hybrid layout. */
struct xs_share {
	uint64_t lo;    /* first iteration of the block */
	uint64_t slen;  /* iterations of the static tasks */
	uint64_t dsize; /* iterations per dynamic task */
	uint32_t ndt;   /* dynamic tasks */
};

static void xs_block(uint64_t n, uint32_t p, uint32_t t, uint64_t *lo, uint64_t *len)
{
	uint64_t q = n / p, r = n % p;

	*lo = t * q + (t < r ? t : r);
	*len = q + (t < r);
}

static void xs_share_of(const struct xs_loop_disp *d, uint32_t t, struct xs_share *h)
{
	uint64_t len, ndt = 0, dsize = 0;

	if (d->amap) { /* positions of the planned part */
		h->lo = d->amap->start[t];
		len = d->amap->start[t + 1] - h->lo;
	} else {
		xs_block(d->n, d->nthreads, t, &h->lo, &len);
	}
	if (d->nd && len) {
		/* grain per mille of len without overflowing len * grain. */
		dsize = len / 1000 * d->grain + len % 1000 * d->grain / 1000;
		if (!dsize)
			dsize = 1;
		ndt = len / dsize < d->nd ? len / dsize : d->nd;
	}
	h->dsize = dsize;
	h->ndt = (uint32_t)ndt;
	h->slen = len - ndt * dsize;
}

/* Static cyclic: the chunks of the loop, and those of thread @t. */
static uint64_t xs_cyclic_chunks(const struct xs_loop_disp *d)
{
	return d->n / d->chunk + (d->n % d->chunk != 0);
}

static uint64_t xs_cyclic_count(const struct xs_loop_disp *d, uint32_t t)
{
	uint64_t nc = xs_cyclic_chunks(d);

	return nc / d->nthreads + (t < nc % d->nthreads);
}

/* The tasks in thread @t's claim word when the loop starts. */
static uint64_t xs_span_total(const struct xs_loop_disp *d, uint32_t t)
{
	struct xs_share h;

	if (d->kind == XS_LOOP_STATIC) /* claim_all cyclic */
		return xs_cyclic_count(d, t);
	xs_share_of(d, t, &h);
	return d->claim_all ? d->ns + h.ndt : h.ndt;
}

/*
 * Debug builds (XS_DEBUG: the sanitizer builds) check the claim word's
 * invariant (loop.h) at every value a thread reads or writes: front <=
 * back <= the task count of @t. A violation means a task would run twice
 * or never; it aborts with the word.
 */
#ifdef XS_DEBUG
static void xs_span_check(const struct xs_loop_disp *d, uint32_t t, uint64_t s)
{
	uint64_t total = xs_span_total(d, t);

	if (XS_SPAN_FRONT(s) <= XS_SPAN_BACK(s) && XS_SPAN_BACK(s) <= total)
		return;
	fprintf(stderr, "xsched: hybrid loop: thread %u's claim word front %u back %u breaks "
		"front <= back <= %llu (its claimable tasks)\n", t, XS_SPAN_FRONT(s),
		XS_SPAN_BACK(s), (unsigned long long)total);
	abort();
}
#else
static inline void xs_span_check(const struct xs_loop_disp *d, uint32_t t, uint64_t s)
{
	(void)d, (void)t, (void)s;
}
#endif

void xs_loop_disp_init(struct xs_loop_disp *d, uint64_t n, uint32_t nthreads,
		       const struct xs_loop_sched *s, bool monotonic, struct xs_loop_slot *slots,
		       const struct xs_victim_view *victims)
{
	d->n = n;
	d->kind = s->kind;
	d->nthreads = nthreads ? nthreads : 1;
	d->chunk = s->chunk;
	if (d->kind != XS_LOOP_STATIC && !d->chunk)
		d->chunk = 1;
	d->ns = s->ns ? s->ns : 1;
	d->nd = s->nd;
	d->grain = s->grain ? s->grain : 1;
	d->monotonic = monotonic;
	d->claim_all = false;
	d->slots = slots;
	d->victims = victims && victims->nworkers == d->nthreads ? victims : NULL;
	d->amap = NULL;
	/* Relaxed: the caller publishes the dispenser with a release (the
	 * job start, or the drop-in's `ready`). */
	xs_store_relaxed(&d->next, 0);
	if (d->kind == XS_LOOP_HYBRID) {
		for (uint32_t t = 0; t < d->nthreads; t++) {
			struct xs_share h;

			xs_share_of(d, t, &h);
			xs_store_relaxed(&slots[t].span, XS_SPAN(0, h.ndt));
			xs_span_check(d, t, XS_SPAN(0, h.ndt));
		}
	}
}

void xs_loop_disp_init_affinity(struct xs_loop_disp *d, uint64_t n, uint32_t nthreads,
				const struct xs_loop_sched *s, struct xs_loop_slot *slots,
				const struct xs_victim_view *victims,
				const struct xs_affinity_map *m)
{
	struct xs_loop_sched h = *s;

	h.kind = XS_LOOP_HYBRID;
	xs_loop_disp_init(d, n, nthreads, &h, false, slots, NULL);
	d->kind = XS_LOOP_AFFINITY;
	d->amap = m;
	d->victims = victims && victims->nworkers == d->nthreads ? victims : NULL;
	for (uint32_t t = 0; t < d->nthreads; t++) {
		struct xs_share sh;

		xs_share_of(d, t, &sh);
		xs_store_relaxed(&slots[t].span, XS_SPAN(0, sh.ndt));
		xs_span_check(d, t, XS_SPAN(0, sh.ndt));
	}
}

/* A static block of this many iterations or more is cut into more than
 * XS_PIECES_MIN claimable pieces: one per XS_PIECE_LEN, at most 64 (ns). */
#define XS_PIECES_MIN 4u
#define XS_PIECE_LEN 1024u

/* The claimable pieces of each static block of @d. */
static uint32_t xs_block_pieces(const struct xs_loop_disp *d)
{
	uint64_t pieces = d->n / d->nthreads / XS_PIECE_LEN;

	return pieces < XS_PIECES_MIN ? XS_PIECES_MIN : pieces > 64 ? 64 : (uint32_t)pieces;
}

void xs_loop_disp_claim_all(struct xs_loop_disp *d, struct xs_loop_slot *slots)
{
	switch (d->kind) {
	case XS_LOOP_STATIC:
		if (d->chunk) {
			/* Thread 0 has the most chunks. */
			if (xs_cyclic_count(d, 0) > INT32_MAX) {
				d->kind = XS_LOOP_DYNAMIC;
				return;
			}
			break;
		}
		d->kind = XS_LOOP_HYBRID;
		d->ns = xs_block_pieces(d);
		d->nd = 0;
		break;
	case XS_LOOP_HYBRID:
	case XS_LOOP_AFFINITY: /* the planned parts' static and dynamic tasks */
		break;
	default: /* dynamic, guided: nothing private */
		return;
	}
	d->claim_all = true;
	d->slots = slots;
	for (uint32_t t = 0; t < d->nthreads; t++) {
		/* Relaxed: published with the dispenser (see init). */
		xs_store_relaxed(&slots[t].span, XS_SPAN(0, xs_span_total(d, t)));
		xs_span_check(d, t, XS_SPAN(0, xs_span_total(d, t)));
	}
}

static bool xs_take_dynamic(struct xs_loop_disp *d, uint64_t *lo)
{
	uint64_t a, n = d->n, chunk = d->chunk;

	/* Relaxed, every access to `next`: its modification order alone
	 * hands out disjoint chunks; the iterations publish nothing through
	 * it (the job's end orders them). */
	if (xs_likely(n <= UINT64_MAX / 2 && chunk <= UINT64_MAX / 4)) {
		/* `next` overshoots n by at most P chunks: no wrap. */
		a = xs_fetch_add_relaxed(&d->next, chunk);
		*lo = a;
		return a < n;
	}
	a = xs_load_relaxed(&d->next);
	do {
		if (a >= n)
			return false;
	} while (!xs_cas_weak_relaxed(&d->next, &a, n - a > chunk ? a + chunk : n));
	*lo = a;
	return true;
}

static bool xs_take_guided(struct xs_loop_disp *d, uint64_t *lo, uint64_t *hi)
{
	/* Relaxed: as in xs_take_dynamic(). */
	uint64_t a = xs_load_relaxed(&d->next), left, q, n = d->n;

	do {
		if (a >= n)
			return false;
		left = n - a;
		q = left / d->nthreads + (left % d->nthreads != 0);
		if (q < d->chunk)
			q = d->chunk;
		if (q > left)
			q = left;
	} while (!xs_cas_weak_relaxed(&d->next, &a, a + q));
	*lo = a;
	*hi = a + q;
	return true;
}

/* Claim task k of @t's dynamic tasks from the front or the back. */
static bool xs_claim(struct xs_loop_disp *d, uint32_t t, bool front, uint32_t *k)
{
	_Atomic uint64_t *w = &d->slots[t].span;
	/* Relaxed: the span only numbers tasks (see loop.h). */
	uint64_t s = xs_load_relaxed(w), ns;

	do {
		uint32_t f = XS_SPAN_FRONT(s), b = XS_SPAN_BACK(s);

		xs_span_check(d, t, s);

		if (f >= b)
			return false;
		*k = front ? f : b - 1;
		ns = front ? XS_SPAN(f + 1, b) : XS_SPAN(f, b - 1);
	} while (!xs_cas_weak_relaxed(w, &s, ns));
	xs_span_check(d, t, ns);
	return true;
}

/* Static task @i of @t's ns (possibly empty). */
static void xs_static_task(const struct xs_loop_disp *d, const struct xs_share *h, uint64_t i,
			   uint64_t *lo, uint64_t *hi)
{
	uint64_t q = h->slen / d->ns, r = h->slen % d->ns;

	*lo = h->lo + i * q + (i < r ? i : r);
	*hi = *lo + q + (i < r);
}

/* Task @k of @t's claim word: a dynamic task, or under claim_all its
 * static task k, then dynamic task k - ns (static cyclic: its k-th chunk). */
static void xs_dynamic_task(const struct xs_loop_disp *d, uint32_t t, uint32_t k, uint64_t *lo,
			    uint64_t *hi)
{
	struct xs_share h;

	if (d->kind == XS_LOOP_STATIC) {
		*lo = ((uint64_t)k * d->nthreads + t) * d->chunk;
		*hi = d->n - *lo > d->chunk ? *lo + d->chunk : d->n;
		return;
	}
	xs_share_of(d, t, &h);
	if (d->claim_all) {
		if (k < d->ns) {
			xs_static_task(d, &h, k, lo, hi);
			return;
		}
		k -= d->ns;
	}
	*lo = h.lo + h.slen + k * h.dsize;
	*hi = *lo + h.dsize;
}

static uint32_t xs_span_left(const struct xs_loop_disp *d, uint32_t t)
{
	uint64_t s = xs_load_relaxed(&d->slots[t].span);

	xs_span_check(d, t, s);
	return XS_SPAN_BACK(s) - XS_SPAN_FRONT(s);
}

/*
 * One thief scan: victim candidates nearest first; the first (nearest)
 * weight level with tasks left decides, and in it the victim with the most
 * left. Returns the victim, or -1 when every span looked empty.
 */
static int64_t xs_pick_victim(const struct xs_loop_disp *d, const struct xs_loop_cursor *c)
{
	const struct xs_victim_view *v = d->victims;
	uint32_t P = d->nthreads, me = c->tid, best_left = 0, cnt;
	int64_t best = -1;
	uint32_t best_weight = 0;

	if (v) {
		const uint32_t *ids = v->ids + v->first[me];
		const uint16_t *wt = v->weight + v->first[me];

		cnt = v->nlocal[me] + v->nremote[me];
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t t = ids[i], left;

			if (best >= 0 && wt[i] < best_weight)
				break; /* a farther level: the nearer one has work */
			if (t == me || (d->monotonic && t < c->src))
				continue;
			left = xs_span_left(d, t);
			if (left > best_left) {
				best = t;
				best_left = left;
				best_weight = wt[i];
			}
		}
		if (best >= 0)
			return best;
	}
	/* No view (or it missed some thread): every thread, in id order after
	 * our own, the slowest first. */
	for (uint32_t i = 1; i < P; i++) {
		uint32_t t = (me + i) % P, left;

		if (d->monotonic && t < c->src)
			continue;
		left = xs_span_left(d, t);
		if (left > best_left) {
			best = t;
			best_left = left;
		}
	}
	return best;
}

static bool xs_hybrid_next(struct xs_loop_disp *d, struct xs_loop_cursor *c, uint64_t *lo,
			   uint64_t *hi)
{
	struct xs_share h;
	uint32_t k;

	switch (c->phase) {
	case XS_PH_STATIC:
		xs_share_of(d, c->tid, &h);
		while (!d->claim_all && c->trip < d->ns) {
			xs_static_task(d, &h, c->trip++, lo, hi);
			if (*hi > *lo)
				return true;
		}
		c->phase = XS_PH_OWN;
		/* fall through */
	case XS_PH_OWN:
		while (xs_claim(d, c->tid, true, &k)) {
			xs_dynamic_task(d, c->tid, k, lo, hi);
			if (*hi > *lo) /* claim_all: a static task may be empty */
				return true;
		}
		c->phase = XS_PH_STEAL;
		/* fall through */
	case XS_PH_STEAL:
		for (;;) {
			int64_t t = xs_pick_victim(d, c);

			if (t < 0)
				break;
			if (xs_claim(d, (uint32_t)t, d->monotonic, &k)) {
				if (d->monotonic)
					c->src = (uint32_t)t;
				xs_dynamic_task(d, (uint32_t)t, k, lo, hi);
				if (*hi > *lo)
					return true;
			}
		}
		c->phase = XS_PH_DONE;
		/* fall through */
	default:
		return false;
	}
}

/* Affinity: the next run of consecutive iterations in the positions of
 * the cursor's chunk, taking a new chunk from the hybrid dispenser. */
static bool xs_affinity_next(struct xs_loop_disp *d, struct xs_loop_cursor *c, uint64_t *lo,
			     uint64_t *hi)
{
	const struct xs_affinity_map *m = d->amap;
	uint64_t g = m->granule, a, b;
	uint32_t k;

	if (c->pos == c->pos_end && !xs_hybrid_next(d, c, &c->pos, &c->pos_end))
		return false;
	if (m->identity) { /* positions are logical threads: one range */
		a = c->pos * g;
		b = d->n - a > (c->pos_end - c->pos) * g ? c->pos_end * g : d->n;
		c->pos = c->pos_end;
		*lo = a;
		*hi = b;
		return true;
	}
	k = m->order[c->pos++];
	a = k * g;
	b = d->n - a > g ? a + g : d->n;
	while (c->pos < c->pos_end && m->order[c->pos] == k + 1 && b < d->n) {
		k++;
		c->pos++;
		b = d->n - b > g ? b + g : d->n;
	}
	*lo = a;
	*hi = b;
	return true;
}

bool xs_loop_disp_next(struct xs_loop_disp *d, struct xs_loop_cursor *c, uint64_t *lo,
		       uint64_t *hi)
{
	uint64_t a, b, P = d->nthreads;

	switch (d->kind) {
	case XS_LOOP_STATIC:
		if (d->claim_all) /* cyclic chunks in claim words */
			return xs_hybrid_next(d, c, lo, hi);
		if (!d->chunk) {
			uint64_t len;

			if (c->trip++)
				return false;
			xs_block(d->n, d->nthreads, c->tid, &a, &len);
			b = a + len;
		} else {
			uint64_t k = c->trip++ * P + c->tid;
			uint64_t nchunks = d->n / d->chunk + (d->n % d->chunk != 0);

			if (k >= nchunks)
				return false;
			a = k * d->chunk;
			b = d->n - a > d->chunk ? a + d->chunk : d->n;
		}
		if (a == b)
			return false;
		break;
	case XS_LOOP_DYNAMIC:
		if (!xs_take_dynamic(d, &a))
			return false;
		b = d->n - a > d->chunk ? a + d->chunk : d->n;
		break;
	case XS_LOOP_GUIDED:
		if (!xs_take_guided(d, &a, &b))
			return false;
		break;
	case XS_LOOP_AFFINITY:
		return xs_affinity_next(d, c, lo, hi);
	default:
		return xs_hybrid_next(d, c, lo, hi);
	}
	*lo = a;
	*hi = b;
	return true;
}

/* ---------------------------------------------------------------- */
/* Schedules and options */

int xs_loop_sched_check(const struct xs_loop_sched *s)
{
	if (!s)
		return -EINVAL;
	if (s->kind > XS_LOOP_AFFINITY) {
		fprintf(stderr, "xsched: xs_loop_sched.kind = %u is invalid: expected 0..%u "
			"(enum xs_loop_kind)\n", s->kind, (unsigned)XS_LOOP_AFFINITY);
		return -EINVAL;
	}
	if (s->kind != XS_LOOP_HYBRID && s->kind != XS_LOOP_AFFINITY)
		return 0;
	if (s->ns < 1 || s->ns > 64) {
		fprintf(stderr, "xsched: xs_loop_sched.ns = %u is invalid: expected 1..64\n", s->ns);
		return -EINVAL;
	}
	if (s->nd > 1024) {
		fprintf(stderr, "xsched: xs_loop_sched.nd = %u is invalid: expected 0..1024\n",
			s->nd);
		return -EINVAL;
	}
	if (s->grain < 1 || s->grain > 1000) {
		fprintf(stderr, "xsched: xs_loop_sched.grain = %u is invalid: expected 1..1000 "
			"(per mille)\n", s->grain);
		return -EINVAL;
	}
	if ((uint64_t)s->nd * s->grain > 1000) {
		fprintf(stderr, "xsched: xs_loop_sched.nd x grain = %u x %u is invalid: expected "
			"at most 1000 (per mille of a block)\n", s->nd, s->grain);
		return -EINVAL;
	}
	return 0;
}

void xs_loop_sched_from_options(const struct xs_options *opt, struct xs_loop_sched *s)
{
	memset(s, 0, sizeof(*s));
	s->kind = (unsigned)opt->loop_schedule; /* auto is 0 = XS_LOOP_DEFAULT */
	s->chunk = (uint64_t)opt->loop_chunk;
	s->ns = (unsigned)opt->loop_ns;
	s->nd = (unsigned)opt->loop_nd;
	s->grain = (unsigned)opt->loop_grain;
}

int xs_loop_sched_default(const struct xs_runtime *rt, struct xs_loop_sched *s)
{
	if (!rt || !s)
		return -EINVAL;
	xs_loop_sched_from_options(&rt->opt, s);
	if (s->kind == XS_LOOP_DEFAULT)
		s->kind = XS_LOOP_HYBRID;
	return 0;
}

/* ---------------------------------------------------------------- */
/* xs_parallel_for and friends: one job of the runtime */

enum xs_for_shape { XS_FOR_S64, XS_FOR_U64, XS_FOR_2D };

/* What a helper of a 1-D static block loop reads comes first, on the
 * job's first line (the dispenser's `next` makes the job line-aligned):
 * one line transfer from the caller, who writes the job at each loop. */
struct xs_for_job {
	enum xs_for_shape shape;
	/* Static block loops (below): the loop's number, the pieces of a
	 * block (0 for every other loop), the blocks and iterations; one
	 * block and no pieces on a runtime of one worker. */
	uint32_t seq, pieces, blocks;
	uint64_t n;
	uint64_t start;         /* 1-D: iteration 0's value */
	int64_t step;
	union {
		xs_for_fn s64;
		xs_for_u64_fn u64;
		xs_for_2d_fn tile;
	} fn;
	void *arg;
	int64_t r0, c0, r1, c1; /* 2-D */
	uint64_t rb, cb, ntc;   /* tile sizes, tiles per row */
	struct xs_loop_disp disp;
};
_Static_assert(offsetof(struct xs_for_job, r0) <= XS_CACHE_LINE,
	       "a block loop's helper reads one line of the job");

static void xs_for_chunk(const struct xs_for_job *j, uint64_t lo, uint64_t hi)
{
	uint64_t first = j->start + lo * (uint64_t)j->step;

	switch (j->shape) {
	case XS_FOR_S64:
		j->fn.s64(j->arg, (int64_t)first, hi - lo);
		break;
	case XS_FOR_U64:
		j->fn.u64(j->arg, first, hi - lo);
		break;
	case XS_FOR_2D:
		for (uint64_t i = lo; i < hi; i++) {
			uint64_t tr = i / j->ntc, tc = i % j->ntc;
			/* In uint64_t: the tile never leaves [r0, r1) x [c0, c1). */
			uint64_t a = (uint64_t)j->r0 + tr * j->rb, b = (uint64_t)j->c0 + tc * j->cb;
			uint64_t ae = (uint64_t)j->r1 - a > j->rb ? a + j->rb : (uint64_t)j->r1;
			uint64_t be = (uint64_t)j->c1 - b > j->cb ? b + j->cb : (uint64_t)j->c1;

			j->fn.tile(j->arg, (int64_t)a, (int64_t)ae, (int64_t)b, (int64_t)be);
		}
		break;
	}
}

static void xs_for_record_chunk(void *p, uint64_t lo, uint64_t hi)
{
	xs_for_chunk(p, lo, hi);
}

static void xs_for_worker(void *p)
{
	struct xs_for_job *j = p;
	struct xs_loop_cursor c;
	uint64_t lo, hi;

	xs_loop_cursor_init(&c, (uint32_t)xs_worker_id());
	while (xs_loop_disp_next(&j->disp, &c, &lo, &hi))
		xs_for_chunk(j, lo, hi);
}

/*
 * Elastic loops. A parallel loop that waited at the team barrier for every
 * worker would wait for a worker the kernel is not running (a hog on its
 * CPU, a co-running program, a stopped thread) even when the others could
 * run its chunks: under a CPU hog each loop then costs a time slice. So
 * xs_parallel_for() does not post a job that every worker must end: the
 * caller (worker 0) posts the loop, runs chunks, and once the dispenser is
 * empty waits only for the workers that are *inside* the loop, i.e. for
 * chunks already claimed. Every chunk is claimable by every worker
 * (xs_loop_disp_claim_all(), or the block claims below), so a worker that
 * never comes strands nothing. Nobody waits for a worker outside.
 *
 * Joining, leaving and closing are read-modify-writes of one word,
 * rt->loop_state = seq << 32 | OPEN | flags | taken | inside (runtime.h),
 * so they are totally ordered and need no Dekker fence pair:
 *
 *   caller (worker 0)                    helper w, polling loop_state
 *   P  loop_job = j                      J  s = state (acquire); if OPEN:
 *      state = seq+1 | OPEN (release)         CAS s -> s + 1 (acquire)
 *   R  run chunks until none is left     H  run chunks of loop_job until
 *   C  old = fetch_and ~OPEN (acquire)        none is left; join children
 *   W  if inside(old): wait until        X  old = fetch_sub 1 (release);
 *      inside == 0 (acquire)                  last out of a closed loop:
 *                                             notify worker 0
 *
 * A helper enters only by a CAS from a value with OPEN set, and C clears
 * OPEN; C's old value counts every helper that entered before it, and
 * none enters after it. So when the caller returns, no helper still uses
 * loop_job (the caller's stack) or its claim words, and every chunk has
 * completed: each was claimed (the caller found every claim word empty)
 * by the caller or by a helper that has left; X's release heads a release
 * sequence (every later RMW of the word continues it) that C's or W's
 * acquire reads, so the chunks' writes are visible. P may be a plain
 * store: while the loop is closed and empty no helper writes the word.
 * The CAS compares the whole word, the loop's number included: a helper
 * that read an earlier loop's word fails and reads again (joining the
 * loop open then is as right as joining it first-hand). A helper that
 * leaves an open loop notifies nobody:
 * the caller has not closed, and C will read its decrement. The last one
 * out of a closed loop notifies worker 0, which may have parked in W.
 * tests/models/loop.pml checks this (every chunk once, nobody touches a
 * returned loop, no lost wake-up of the caller).
 *
 * Static block loops (XS_LOOP_BLOCKS: a static schedule without a chunk
 * size, on 2 .. XS_LOOP_BLOCKS_MAX + 1 workers) claim whole blocks in the
 * loop word itself, so a loop costs the caller no claim word traffic:
 *  - helper b's block is taken by setting XS_LOOP_TAKEN(b) with a CAS of
 *    an open word; J takes the helper's own block (or, when that is
 *    taken, the first untaken one) in its join CAS; inside, a helper
 *    takes further untaken blocks the same way while the loop is open;
 *  - the caller's block 0 is its own, run in one call; after it, C
 *    becomes a CAS loop that takes every block still untaken (running
 *    each) and clears OPEN only from a word with every block taken, so
 *    each block is taken exactly once, and by a worker that is inside or
 *    by the caller;
 *  - a block a helper takes is run in pieces (xs_block_pieces()) claimed
 *    through its pieces word, loop_slots[b].pieces = seq << 32 | front
 *    << 16 | back, with a CAS: its taker from the front, the caller's
 *    rescue (below) from the back. A block the caller takes is run in one
 *    call, and the rescue skips it: nobody else claims in it. The caller
 *    takes a block only once its own is done, so only a helper later
 *    than a whole block finds its block taken; it is then treated as
 *    absent (it stays out, or takes another untaken block).
 *    A word stamped with another loop's number is this loop's untouched
 *    block (all pieces left), so nobody resets the words between loops:
 *    the word stays in its taker's cache, and the claims cost no line
 *    transfer. The caller, when helpers are still inside after the close
 *    and do not leave within XS_RESCUE_NS, takes the pieces left from
 *    the back (xs_blocks_rescue()): a helper switched out inside its
 *    block holds the caller up for one piece.
 * The caller's first close CAS guesses the word in which every helper
 * took its block and left: a right guess closes with one line transfer
 * (the post's and the close's are the loop's only two on the caller's
 * side); a wrong one costs what a load would.
 *
 * A helper that is switched out while inside holds up the caller only for
 * its claimed chunk, or for the moment between its entry and its first
 * claim; a helper that wakes after the close finds OPEN clear. When the
 * loop's chunks are all in claim words (XS_LOOP_CLAIMS: every elastic
 * loop but dynamic and guided ones) a helper looks at them before it
 * joins and stays out when all are empty (xs_loop_claims_left()), and
 * in a block loop when every block is taken: a helper that came in after
 * the caller took the last chunk would only hold it up for its way in
 * and out. A loop
 * posted while a helper is still busy elsewhere is simply run without it.
 * Between loops a helper looks only at the word (and job_seq) for the spin
 * window (xs_worker_linger()), so the next post costs it one line
 * transfer, not a park and a wake-up.
 *
 * Tasks spawned by loop bodies are joined by the worker that spawned them
 * before its exit (its implicit task, as in a job), so they are complete
 * when the caller returns. Only the affinity recording keeps a job of
 * its own (xs_affinity_record_loop()); trials and replays are elastic.
 */
_Static_assert(XS_MAX_CPUS <= XS_LOOP_INSIDE(~0ull) + 1, "inside counts every helper");
_Static_assert(XS_LOOP_TAKEN_ALL(XS_LOOP_BLOCKS_MAX) < XS_LOOP_BLOCKS &&
		       XS_LOOP_TAKEN(1) > XS_LOOP_INSIDE(~0ull),
	       "the taken bits lie between the flags and inside");

/* How long the caller waits for helpers still inside a block loop before
 * it takes their pieces left: a helper that is running comes out within
 * a few line transfers; one that is switched out is not back for a time
 * slice. */
#define XS_RESCUE_NS 2000u

#define XS_PIECES_WORD(seq, front, back) \
	((uint64_t)(seq) << 32 | (uint64_t)(front) << 16 | (uint64_t)(back))

/* The first untaken block in @s: @me's own when untaken; 0 when none. */
static uint32_t xs_block_pick(uint64_t s, uint32_t helpers, uint32_t me)
{
	uint64_t left = XS_LOOP_TAKEN_ALL(helpers) & ~s;

	if (!left)
		return 0;
	if (me && (left & XS_LOOP_TAKEN(me)))
		return me;
	return (uint32_t)__builtin_ctzll(left) - 12;
}

/* Piece @k of block @b: [*lo, *hi), possibly empty. */
static void xs_piece_of(const struct xs_for_job *j, uint32_t b, uint32_t k, uint64_t *lo,
			uint64_t *hi)
{
	uint64_t a, len, q, r;

	xs_block(j->n, j->blocks, b, &a, &len);
	q = len / j->pieces;
	r = len % j->pieces;
	*lo = a + k * q + (k < r ? k : r);
	*hi = *lo + q + (k < r);
}

/* Claim a piece of block @b from the front (its taker) or the back (a
 * thief) into @k; false when none is left. */
static bool xs_piece_claim(struct xs_runtime *rt, const struct xs_for_job *j, uint32_t b,
			   bool front, uint32_t *k)
{
	_Atomic uint64_t *w = &rt->loop_slots[b].pieces;
	/* Relaxed: the word only numbers pieces; what they write is ordered
	 * by the loop word (X's release, C's and W's acquire). */
	uint64_t s = xs_load_relaxed(w), ns;

	do {
		uint32_t f = 0, e = j->pieces;

		if (XS_LOOP_SEQ(s) == j->seq) { /* else another loop's: untouched */
			f = (uint16_t)(s >> 16);
			e = (uint16_t)s;
		}
		if (f >= e)
			return false;
		*k = front ? f : e - 1;
		ns = front ? XS_PIECES_WORD(j->seq, f + 1, e) : XS_PIECES_WORD(j->seq, f, e - 1);
	} while (!xs_cas_weak_relaxed(w, &s, ns));
	return true;
}

static void xs_piece_run(const struct xs_for_job *j, uint32_t b, uint32_t k)
{
	uint64_t lo, hi;

	xs_piece_of(j, b, k, &lo, &hi);
	if (hi > lo)
		xs_for_chunk(j, lo, hi);
}

/* Run the pieces of block @b (taken by us) that no thief takes. */
static void xs_block_run(struct xs_runtime *rt, const struct xs_for_job *j, uint32_t b)
{
	uint32_t k;

	while (xs_piece_claim(rt, j, b, true, &k))
		xs_piece_run(j, b, k);
}

/* A helper inside a block loop, holding block @b: runs it, then takes
 * and runs untaken blocks while the loop is open. */
static void xs_blocks_help(struct xs_runtime *rt, const struct xs_for_job *j, uint32_t b)
{
	uint64_t s;

	do {
		xs_block_run(rt, j, b);
		/* Relaxed, the load and the CAS: we are inside, so the word
		 * is our loop's; taking a block orders nothing (the block's
		 * writes go out with X's release). */
		s = xs_load_relaxed(&rt->loop_state);
		for (;;) {
			b = s & XS_LOOP_OPEN ? xs_block_pick(s, rt->nworkers - 1, 0) : 0;
			if (!b || xs_cas_weak_relaxed(&rt->loop_state, &s, s | XS_LOOP_TAKEN(b)))
				break;
		}
	} while (b);
}

/* The caller's side of a block loop, @posted its word at P: its block,
 * then C as a CAS loop (above); returns the word C closed. */
static uint64_t xs_blocks_run_and_close(struct xs_runtime *rt, const struct xs_for_job *j,
					uint64_t posted, uint64_t *mine)
{
	uint32_t helpers = rt->nworkers - 1, b = 0;
	uint64_t lo, len, s = posted | XS_LOOP_TAKEN_ALL(helpers);

	*mine = 0;
	/* Block 0, then each block the caller takes, in one call: only the
	 * rescue claims pieces of a helper's block, and it skips the
	 * caller's (@mine), whose pieces words stay stale. */
	do {
		xs_block(j->n, j->blocks, b, &lo, &len);
		if (len)
			xs_for_chunk(j, lo, lo + len);
		for (;;) {
			b = xs_block_pick(s, helpers, 0);
			if (b) {
				/* Relaxed: the caller owns the job; taking
				 * orders nothing. */
				if (!xs_cas_weak_relaxed(&rt->loop_state, &s, s | XS_LOOP_TAKEN(b)))
					continue;
				*mine |= XS_LOOP_TAKEN(b);
				s |= XS_LOOP_TAKEN(b); /* a guess again */
				break;
			}
			/* Acquire (C): the chunks of every helper that
			 * already left, by their release in X. */
			if (xs_cas_weak_acquire(&rt->loop_state, &s, s & ~XS_LOOP_OPEN))
				break;
		}
	} while (b);
	return s;
}

/*
 * The caller after closing a block loop with helpers inside: every block
 * is taken; wait XS_RESCUE_NS for them to leave, then take the pieces
 * they have not claimed, from the back.
 */
static void xs_blocks_rescue(struct xs_runtime *rt, const struct xs_for_job *j, uint64_t mine)
{
	uint64_t t0 = xs_now_ns();
	uint32_t k;

	/* Relaxed: a look; W's acquire orders what the helpers wrote. */
	while (XS_LOOP_INSIDE(xs_load_relaxed(&rt->loop_state))) {
		if (xs_now_ns() - t0 < XS_RESCUE_NS) {
			xs_cpu_relax();
			continue;
		}
		for (uint32_t b = 1; b < rt->nworkers; b++)
			while (!(mine & XS_LOOP_TAKEN(b)) && xs_piece_claim(rt, j, b, false, &k))
				xs_piece_run(j, b, k);
		return;
	}
}

/* @w's part of loop @j; @b: the block it took (a helper of a block loop),
 * else 0. */
static void xs_for_part(struct xs_worker *w, struct xs_for_job *j, uint32_t b)
{
	struct xs_task frame;

	xs_worker_job_begin(w);
	xs_worker_implicit_begin(w, &frame);
	if (b)
		xs_blocks_help(w->rt, j, b);
	else if (j->blocks == 1) /* a static block loop alone: one call */
		xs_for_chunk(j, 0, j->n);
	else
		xs_for_worker(j);
	xs_worker_implicit_end(w, &frame);
	w->own.in_job = false;
}

/*
 * Whether any claim word of the posted loop still holds a chunk, looking
 * at @w's own first. A hint: claim words only empty during a loop, so a
 * helper that finds them all empty has nothing to claim, and joining
 * would only make the caller wait for its exit. The words are the
 * runtime's (rt->loop_slots), never freed before it, so reading them is
 * safe whatever loop is running meanwhile.
 */
static bool xs_loop_claims_left(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;

	for (uint32_t k = 0; k < rt->nworkers; k++) {
		uint32_t t = (w->id + k) % rt->nworkers;
		/* Relaxed: a hint (above); the claim itself is a CAS. */
		uint64_t span = xs_load_relaxed(&rt->loop_slots[t].span);

		if (XS_SPAN_FRONT(span) < XS_SPAN_BACK(span))
			return true;
	}
	return false;
}

void xs_loop_help(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;
	/* Acquire (J): with the CAS below, pairs with the caller's release
	 * in P; a value read here that is not open is only looked at. */
	uint64_t s = xs_load_acquire(&rt->loop_state), old, joined;
	uint32_t b;

	for (;;) {
		w->own.loop_seen = XS_LOOP_SEQ(s);
		if (!(s & XS_LOOP_OPEN))
			return;
		joined = s + 1;
		b = 0;
		if (s & XS_LOOP_BLOCKS) {
			/* Our block, or another untaken one; none: stay out. */
			b = xs_block_pick(s, rt->nworkers - 1, w->id);
			if (!b)
				return;
			joined |= XS_LOOP_TAKEN(b);
		} else if ((s & XS_LOOP_CLAIMS) && !xs_loop_claims_left(w)) {
			/* Every chunk already taken (by the caller, or by
			 * helpers that came first): stay out, as a helper
			 * that came late. */
			return;
		}
		/* Acquire: loop_job and the dispenser, published by P's
		 * release (a CAS that read another helper's entry is in P's
		 * release sequence). Fails when the word moved: another
		 * helper, the close, or a later loop; look again. */
		if (xs_cas_weak_acquire(&rt->loop_state, &s, joined))
			break;
	}
	xs_for_part(w, rt->loop_job, b);
	/* Release (X): our chunks' writes, to the caller's acquire in C or W. */
	old = xs_fetch_sub_release(&rt->loop_state, 1);
	if (!(old & XS_LOOP_OPEN) && XS_LOOP_INSIDE(old) == 1)
		xs_park_notify(&rt->workers[0]->park);
}

static bool xs_loop_helpers_left(void *arg)
{
	struct xs_runtime *rt = arg;

	/* Acquire (W): pairs with the last helper's release in X. */
	return XS_LOOP_INSIDE(xs_load_acquire(&rt->loop_state)) == 0;
}

static int xs_for_elastic(struct xs_runtime *rt, struct xs_for_job *j)
{
	struct xs_worker *w0 = rt->workers[0];
	struct xs_task frame;
	uint64_t s, now, posted, mine;

	xs_self = w0;
	w0->own.stack_mark = xs_thread_stack_mark(); /* whichever thread calls */
	/* As at a job's start: the daemon's advice, the stats page's job
	 * flag and worker 0's idle clock (daemon_client.h frees retired
	 * views by job_seq, which counts barrier jobs only: a helper never
	 * keeps a view past one of those). Stamped with the coarse clock
	 * (clock.h): a loop can be shorter than two counter reads, and
	 * worker 0's idle clock and the daemon's retry interval take ticks.
	 * A stretch between a loop's stamp and a job's fine one is off by
	 * less than a tick, once per switch between the two. */
	now = xs_now_coarse_ns();
	xs_stats_page_job(rt, true, now);
	if (rt->nworkers == 1) { /* nobody to post to */
		/* The daemon client's job start once a tick: it reads
		 * nothing from the daemon (the tick thread polls it), and
		 * what it does (reclaim views retired at job_seq, which loops
		 * do not advance; wake a sleeping tick; retry a connection
		 * every XS_DAEMON_RETRY_NS; note whether this thread is the
		 * registered worker 0, which only helpers read) is due at
		 * most once a tick on a runtime with nobody to help. */
		if (now != rt->loop_advised) {
			rt->loop_advised = now;
			xs_daemon_client_job_start(rt, now);
		}
		xs_for_part(w0, j, 0);
		goto out;
	}
	xs_daemon_client_job_start(rt, now);
	rt->loop_job = j;
	/* Relaxed load: closed and empty, nobody else writes the word now.
	 * Release (P): loop_job and the dispenser, to the helpers' acquire
	 * in J. */
	s = xs_load_relaxed(&rt->loop_state);
	j->seq = XS_LOOP_SEQ(s) + 1;
	posted = (uint64_t)j->seq << 32 | XS_LOOP_OPEN |
		 (j->disp.claim_all ? XS_LOOP_CLAIMS : 0) | (j->pieces ? XS_LOOP_BLOCKS : 0);
	xs_store_release(&rt->loop_state, posted);
	for (uint32_t i = 1; i < rt->nworkers; i++)
		xs_park_notify(&rt->workers[i]->park);
	if (j->pieces) {
		xs_worker_job_begin(w0);
		xs_worker_implicit_begin(w0, &frame);
		s = xs_blocks_run_and_close(rt, j, posted, &mine);
		if (XS_LOOP_INSIDE(s))
			xs_blocks_rescue(rt, j, mine);
		xs_worker_implicit_end(w0, &frame);
		w0->own.in_job = false;
	} else {
		xs_for_part(w0, j, 0);
		/* Acquire (C): the chunks of every helper that already left,
		 * by their release in X. */
		s = xs_fetch_and_acquire(&rt->loop_state, ~(XS_LOOP_OPEN | XS_LOOP_CLAIMS));
	}
	if (XS_LOOP_INSIDE(s))
		xs_worker_wait_until(w0, xs_loop_helpers_left, rt);
out:
	xs_stats_page_job(rt, false, xs_now_coarse_ns());
	xs_self = NULL;
	return 0;
}

static int xs_for_run_claimed(struct xs_runtime *rt, struct xs_for_job *j, uint64_t n,
			      const struct xs_loop_sched *sched)
{
	struct xs_loop_sched s;
	struct xs_loop_slot *slots = NULL;
	const struct xs_affinity_map *amap = NULL, *tried = NULL;
	double t0 = 0;
	int ret, picked = XS_AFF_RUN_SCHEDULE;

	/* DEFAULT (or none): the whole schedule from XSCHED_LOOP_*. */
	if (sched && sched->kind != XS_LOOP_DEFAULT)
		s = *sched;
	else
		xs_loop_sched_default(rt, &s);
	ret = xs_loop_sched_check(&s);
	if (ret < 0)
		return ret;
	if (!n)
		return 0;
	if (rt->nworkers == 1 && s.kind == XS_LOOP_STATIC && !s.chunk) {
		/* Alone, a static block loop is one block, the caller's, run
		 * in one call: no dispenser, no claim words. */
		j->blocks = 1;
		j->n = n;
		return xs_for_elastic(rt, j);
	}
	if (s.kind == XS_LOOP_AFFINITY) {
		struct xs_aff_choice c;

		/* Recorded (once per process, XSCHED_AFFINITY_RECORD), or
		 * replayed when the schedule fits, else hybrid; timed while
		 * its trial lasts (affinity_choice.c). */
		ret = xs_affinity_record_loop(rt, n, xs_for_record_chunk, j);
		if (ret)
			return ret < 0 ? ret : 0;
		xs_affinity_choose(rt, n, &c);
		amap = c.map;
		tried = c.tried;
		picked = c.kind;
		if (!amap) {
			s.kind = picked == XS_AFF_RUN_STATIC ? XS_LOOP_STATIC : XS_LOOP_HYBRID;
			s.chunk = picked == XS_AFF_RUN_STATIC ? 0 : s.chunk;
		}
		t0 = tried ? xs_affinity_trial_now() : 0;
	}
	/* Elastic (above): one set of claim words per runtime, reused by
	 * every loop (the caller waits until nobody uses them). A replayed
	 * schedule too: a worker that comes runs its planned part from the
	 * front of its claim word; one that does not come (parked, switched
	 * out) strands nothing, so the trial times the schedule against
	 * static and hybrid on equal terms, and a loop of microseconds does
	 * not wait for a worker's wake-up (a job did: 4-13x static). Acquire
	 * on the view pairs with the release that published it; it stays
	 * valid for the loop (daemon_client.h frees replaced views only two
	 * job boundaries later). */
	if (!rt->loop_slots)
		rt->loop_slots = xs_alloc_cache_aligned(rt->nworkers * sizeof(*slots));
	slots = rt->loop_slots;
	if (!slots)
		return -ENOMEM;
	if (amap)
		xs_loop_disp_init_affinity(&j->disp, n, rt->nworkers, &s, slots,
					   xs_load_acquire(&rt->victims), amap);
	else
		xs_loop_disp_init(&j->disp, n, rt->nworkers, &s, false, slots,
				  xs_load_acquire(&rt->victims));
	/* Alone, the caller has nobody to leave chunks to: its schedule
	 * as it is (a static block is one chunk, not claimable pieces). A
	 * static block loop on few enough workers takes its blocks in the
	 * loop word (block loops, above); any other, its claim words. */
	if (rt->nworkers > 1 && rt->nworkers - 1 <= XS_LOOP_BLOCKS_MAX && !amap &&
	    j->disp.kind == XS_LOOP_STATIC && !j->disp.chunk) {
		j->pieces = xs_block_pieces(&j->disp);
		j->blocks = rt->nworkers;
		j->n = n;
	} else if (rt->nworkers > 1) {
		xs_loop_disp_claim_all(&j->disp, slots);
	}
	ret = xs_for_elastic(rt, j);
	if (tried && ret >= 0)
		xs_affinity_trial_done(tried, n, (uint32_t)rt->opt.affinity_trial, picked,
				       xs_affinity_trial_now() - t0, rt->opt.verbose);
	return ret;
}

/* A loop on @rt, by one thread at a time (as a job: xs_runtime_claim()). */
static int xs_for_run(struct xs_runtime *rt, struct xs_for_job *j, uint64_t n,
		      const struct xs_loop_sched *sched)
{
	int ret;

	if (!rt || !j->fn.s64)
		return -EINVAL;
	if (xs_self || xs_runtime_claim(rt))
		return -EBUSY;
	ret = xs_for_run_claimed(rt, j, n, sched);
	xs_runtime_unclaim(rt);
	return ret;
}

static int xs_for_1d(struct xs_runtime *rt, struct xs_for_job *j, uint64_t begin,
		     uint64_t end, int64_t step, const struct xs_loop_sched *sched)
{
	bool up = step > 0;
	uint64_t stride = up ? (uint64_t)step : -(uint64_t)step;

	if (!step)
		return -EINVAL;
	j->start = begin;
	j->step = step;
	return xs_for_run(rt, j, xs_loop_trip_count(begin, end, stride, up, j->shape == XS_FOR_S64),
			  sched);
}

/* The job's head; the rest is written by whoever reads it (the shape's
 * fields by xs_for_1d() or xs_parallel_for_2d(), the dispenser by its
 * init), so a loop does not clear the dispenser's lines on every call. */
static void xs_for_job_head(struct xs_for_job *j, enum xs_for_shape shape, void *arg)
{
	j->shape = shape;
	j->seq = 0;
	j->pieces = 0;
	j->blocks = 0;
	j->arg = arg;
}

int xs_parallel_for(struct xs_runtime *rt, int64_t begin, int64_t end, int64_t step,
		    const struct xs_loop_sched *sched, xs_for_fn fn, void *arg)
{
	struct xs_for_job j;

	xs_for_job_head(&j, XS_FOR_S64, arg);
	j.fn.s64 = fn;
	return xs_for_1d(rt, &j, (uint64_t)begin, (uint64_t)end, step, sched);
}

int xs_parallel_for_u64(struct xs_runtime *rt, uint64_t begin, uint64_t end, int64_t step,
			const struct xs_loop_sched *sched, xs_for_u64_fn fn, void *arg)
{
	struct xs_for_job j;

	xs_for_job_head(&j, XS_FOR_U64, arg);
	j.fn.u64 = fn;
	return xs_for_1d(rt, &j, begin, end, step, sched);
}

int xs_parallel_for_2d(struct xs_runtime *rt, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
		       uint64_t rb, uint64_t cb, const struct xs_loop_sched *sched,
		       xs_for_2d_fn fn, void *arg)
{
	struct xs_for_job j = { .shape = XS_FOR_2D, .r0 = r0, .r1 = r1, .c0 = c0, .c1 = c1,
				.rb = rb, .cb = cb, .fn.tile = fn, .arg = arg };
	uint64_t ntr, n;

	if (!rb || !cb)
		return -EINVAL;
	ntr = xs_loop_trip_count((uint64_t)r0, (uint64_t)r1, rb, true, true);
	j.ntc = xs_loop_trip_count((uint64_t)c0, (uint64_t)c1, cb, true, true);
	if (j.ntc && ntr > UINT64_MAX / j.ntc)
		return -EINVAL;
	n = ntr * j.ntc;
	return xs_for_run(rt, &j, n, sched);
}
