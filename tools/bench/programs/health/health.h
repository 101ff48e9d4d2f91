/* SPDX-License-Identifier: MIT */
/*
 * health.h - BOTS health: the Colombian health-care simulation, n time
 * steps over a tree of villages, each with a hospital and patient lists.
 *
 * Villages: HEALTH_LEVELS levels, HEALTH_CITIES children per village
 *           (1365 villages); level HEALTH_LEVELS is the root, 1 the
 *           leaves. A hospital at level l has 2^l staff, so patients
 *           sent up the tree queue in fewer, busier hospitals.
 * People:   HEALTH_POP per village at the start, each with its own random
 *           stream (splitmix64, integer thresholds: no floating point).
 * A step of village v (BOTS 1.1.2 sim_village_par):
 *           spawn a task per child village; then, while they run,
 *           check_inside (treated patients go home: v's population;
 *           BOTS parks them in a `returned` list for good, which empties
 *           the villages within a few hundred steps),
 *           check_assess (an assessed patient is treated here, sent to
 *           the parent's hospital, or sent home to v's population),
 *           check_waiting (waiting patients get free staff); wait for the
 *           children; check_realloc (patients sent up by the children,
 *           lowest id first); check_population (healthy people fall sick
 *           and go to v's hospital).
 *           BOTS sends a patient up into the parent's realloc list under
 *           a lock; here it goes to the child's own `up` list and the
 *           parent collects the lists after its wait - no lock, and since
 *           the parent takes them lowest id first (as BOTS does), the
 *           result does not depend on the schedule.
 * Result:   a digest of every village's lists, patient by patient (id,
 *           time, hospitals visited), in order. Verification: the
 *           number of patients is conserved.
 * Tasks:    one per village but the root, per step.
 */
#ifndef XSCHED_BENCH_HEALTH_H
#define XSCHED_BENCH_HEALTH_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define HEALTH_LEVELS 6
#define HEALTH_CITIES 4
#define HEALTH_POP 24
#define HEALTH_ASSESS_TIME 3
#define HEALTH_TREAT_TIME 10
/* Probabilities as thresholds on 53 random bits. */
#define HEALTH_P(p) ((uint64_t)((p) * 9007199254740992.0))
#define HEALTH_SICK_P HEALTH_P(0.004)
#define HEALTH_TREAT_P HEALTH_P(0.6)	/* BOTS's convalescence_p */
#define HEALTH_UP_P HEALTH_P(0.3)	/* BOTS's realloc_p */

struct health_patient {
	uint64_t id, seed;
	long time, time_left;
	long hosps_visited;
	struct health_patient *prev, *next;
};

struct health_list {
	struct health_patient *head, *tail;
};

struct health_village {
	int id, level;
	int staff, free_staff;
	struct health_village *child[HEALTH_CITIES];	/* none at level 1 */
	struct health_village *parent;
	struct health_list population, waiting, assess, inside;
	struct health_list realloc;	/* sent up by the children */
	struct health_list up;		/* sent up to the parent this step */
};

struct health_state {
	long steps;
	int nvillages, npatients;
	struct health_village *v;	/* v[0] is the root */
	struct health_patient *p;
};

BENCH_C_LINKAGE void health_tbb(void *st);

static inline bool health_rand(struct health_patient *p, uint64_t below)
{
	p->seed = bench_mix64(p->seed);
	return (p->seed >> 11) < below;
}

static inline void health_append(struct health_list *l,
				 struct health_patient *p)
{
	p->next = NULL;
	p->prev = l->tail;
	if (l->tail)
		l->tail->next = p;
	else
		l->head = p;
	l->tail = p;
}

static inline void health_remove(struct health_list *l,
				 struct health_patient *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		l->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		l->tail = p->prev;
}

static inline void health_put_in_hosp(struct health_village *v,
				      struct health_patient *p)
{
	p->hosps_visited++;
	if (v->free_staff > 0) {
		v->free_staff--;
		p->time_left = HEALTH_ASSESS_TIME;
		p->time += p->time_left;
		health_append(&v->assess, p);
	} else {
		health_append(&v->waiting, p);
	}
}

/* While the children run: inside, assess, waiting. */
static inline void health_before_wait(struct health_village *v)
{
	struct health_patient *p, *next;

	for (p = v->inside.head; p; p = next) {
		next = p->next;
		if (--p->time_left == 0) {
			v->free_staff++;
			health_remove(&v->inside, p);
			health_append(&v->population, p);
		}
	}
	for (p = v->assess.head; p; p = next) {
		next = p->next;
		if (--p->time_left)
			continue;
		health_remove(&v->assess, p);
		if (!health_rand(p, HEALTH_TREAT_P)) {
			v->free_staff++;
			health_append(&v->population, p);
		} else if (!v->parent || !health_rand(p, HEALTH_UP_P)) {
			p->time_left = HEALTH_TREAT_TIME;
			p->time += p->time_left;
			health_append(&v->inside, p);
		} else {
			v->free_staff++;
			health_append(&v->up, p);
		}
	}
	for (p = v->waiting.head; p; p = next) {
		next = p->next;
		if (v->free_staff > 0) {
			v->free_staff--;
			p->time_left = HEALTH_ASSESS_TIME;
			p->time += p->time_left;
			health_remove(&v->waiting, p);
			health_append(&v->assess, p);
		} else {
			p->time++;
		}
	}
}

/* After the children: the patients they sent up, then new patients. */
static inline void health_after_wait(struct health_village *v)
{
	struct health_patient *p, *next;

	for (int c = 0; c < HEALTH_CITIES && v->child[c]; c++) {
		struct health_list *up = &v->child[c]->up;

		while ((p = up->head)) {
			health_remove(up, p);
			health_append(&v->realloc, p);
		}
	}
	while (v->realloc.head) {
		struct health_patient *low = v->realloc.head;

		for (p = low->next; p; p = p->next)
			if (p->id < low->id)
				low = p;
		health_remove(&v->realloc, low);
		health_put_in_hosp(v, low);
	}
	for (p = v->population.head; p; p = next) {
		next = p->next;
		if (health_rand(p, HEALTH_SICK_P)) {
			health_remove(&v->population, p);
			health_put_in_hosp(v, p);
		}
	}
}

static inline void health_village_serial(struct health_village *v)
{
	for (int c = 0; c < HEALTH_CITIES && v->child[c]; c++)
		health_village_serial(v->child[c]);
	health_before_wait(v);
	health_after_wait(v);
}

static inline void health_teardown(void *p)
{
	struct health_state *st = (struct health_state *)p;

	free(st->v);
	free(st->p);
	free(st);
}

static inline void *health_setup(long n)
{
	struct health_state *st = (struct health_state *)calloc(1, sizeof(*st));
	int nv = 0;

	if (!st)
		return NULL;
	st->steps = n;
	for (int l = 0, w = 1; l < HEALTH_LEVELS; l++, w *= HEALTH_CITIES)
		nv += w;
	st->nvillages = nv;
	st->npatients = nv * HEALTH_POP;
	st->v = (struct health_village *)calloc((size_t)nv, sizeof(*st->v));
	st->p = (struct health_patient *)calloc((size_t)st->npatients,
						sizeof(*st->p));
	if (!st->v || !st->p) {
		health_teardown(st);
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

/* The villages in breadth-first order: v[i]'s children are
 * v[i * CITIES + 1 ..]; everyone at home, every hospital idle. */
static inline void health_reset(void *p)
{
	struct health_state *st = (struct health_state *)p;

	memset(st->v, 0, sizeof(*st->v) * (size_t)st->nvillages);
	for (int i = 0, level = HEALTH_LEVELS, end = 1; i < st->nvillages; i++) {
		struct health_village *v = &st->v[i];

		if (i == end) {
			level--;
			end = end * HEALTH_CITIES + 1;
		}
		v->id = i;
		v->level = level;
		v->staff = v->free_staff = 1 << level;
		v->parent = i ? &st->v[(i - 1) / HEALTH_CITIES] : NULL;
		for (int c = 0; level > 1 && c < HEALTH_CITIES; c++)
			v->child[c] = &st->v[i * HEALTH_CITIES + 1 + c];
		for (int k = 0; k < HEALTH_POP; k++) {
			struct health_patient *q = &st->p[i * HEALTH_POP + k];

			memset(q, 0, sizeof(*q));
			q->id = (uint64_t)(i * HEALTH_POP + k);
			q->seed = bench_mix64(q->id ^ 0x4845414c5448ull);
			health_append(&v->population, q);
		}
	}
}

static inline void health_serial(void *p)
{
	struct health_state *st = (struct health_state *)p;

	for (long t = 0; t < st->steps; t++)
		health_village_serial(&st->v[0]);
}

static inline uint64_t health_digest(const struct health_list *l,
				     uint64_t h, int *count)
{
	for (const struct health_patient *p = l->head; p; p = p->next) {
		h = bench_mix64(h ^ p->id);
		h = bench_mix64(h ^ (uint64_t)p->time);
		h = bench_mix64(h ^ (uint64_t)p->hosps_visited);
		++*count;
	}
	return bench_mix64(h + 1);
}

static inline uint64_t health_sum(const struct health_state *st, int *count)
{
	uint64_t h = 0;

	*count = 0;
	for (int i = 0; i < st->nvillages; i++) {
		const struct health_village *v = &st->v[i];

		h = health_digest(&v->population, h, count);
		h = health_digest(&v->waiting, h, count);
		h = health_digest(&v->assess, h, count);
		h = health_digest(&v->inside, h, count);
		h = health_digest(&v->realloc, h, count);
		h = health_digest(&v->up, h, count);
		h = bench_mix64(h ^ (uint64_t)v->free_staff);
	}
	return h;
}

static inline uint64_t health_checksum(const void *p)
{
	int count;

	return health_sum((const struct health_state *)p, &count);
}

static inline int health_verify(const void *p, char *why, int len)
{
	const struct health_state *st = (const struct health_state *)p;
	int count;

	health_sum(st, &count);
	if (count == st->npatients)
		return 0;
	snprintf(why, (size_t)len, "%d patients in the lists, expected %d",
		 count, st->npatients);
	return -EINVAL;
}

static inline uint64_t health_tasks(const void *p)
{
	const struct health_state *st = (const struct health_state *)p;

	return (uint64_t)(st->nvillages - 1) * (uint64_t)st->steps;
}

#ifndef __cplusplus
static const struct bench_problem health_problem = {
	.name = "health",
	.doc = "BOTS health: n steps of a 1365-village hospital simulation, "
	       "a task per village",
	.n_default = 3000,
	.n_quick = 20,
	.n_min = 0,
	.n_max = 1000000,
	.setup = health_setup,
	.teardown = health_teardown,
	.reset = health_reset,
	.serial = health_serial,
	.checksum = health_checksum,
	.verify = health_verify,
	.tasks = health_tasks,
};
#endif

#endif /* XSCHED_BENCH_HEALTH_H */
