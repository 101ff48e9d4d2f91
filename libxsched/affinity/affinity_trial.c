// SPDX-License-Identifier: MIT
/*
 * affinity_trial.c - the replay checks that its schedule pays.
 *
 * Whether a partition beats the static split depends on what the plan
 * cannot see: the caches' sizes (sysfs may not say; then every core counts
 * as its own LLC), the program's own locality (per-iteration data
 * streamed in order, which no address shares), and the price of a replay
 * by lookup when an iteration is a few nanoseconds of work. So the first
 * loops of xs_parallel_for() that replay a schedule take turns between the
 * schedule, the hybrid schedule (the static split with its dynamic tail)
 * and the static schedule, timed; from then on the one that was fastest
 * against static runs. A loss against static (or hybrid) is thus bounded
 * by the trial loops.
 *
 * A kind runs in blocks of XS_TRIAL_BLOCK loops and only the last of a
 * block is timed. What a schedule wins is where the data sits when its
 * loop starts: a worker finds the lines its part wrote in the previous
 * loop still in its own cache. The loop right after a switch finds them
 * where the other kind left them (in the other core's cache, to be
 * fetched or invalidated line by line) and pays for the switch, not for
 * the schedule. XSCHED_AFFINITY_TRIAL is the number of rounds (timed loops
 * per kind).
 *
 * The verdict compares kinds round by round: each timed loop over the
 * static loop of its round (the two ran a few loops apart, under the same
 * load), the median of these ratios over the rounds; static's is 1. On a
 * shared machine a loop's time swings by 10x and more with what else
 * runs; the best time of each kind says which kind was luckiest, the
 * ratio within a round says which is faster.
 *
 * A plan's static split (an identity order) is tried too: its replay
 * hands out whole ranges through the hybrid dispenser, whose dynamic tail
 * costs a slot array and a wake-up per loop that the static schedule does
 * without; for loops of a few microseconds (SpMV of a 30 x 30 matrix) that
 * made it 1.4-2.9x static's time (medians, on the loaded machine).
 *
 * State: a few slots, one per (schedule, trip count), under a mutex: two
 * lock round trips and two clock reads per loop while trying. A kept kind
 * is remembered by the runtime (affinity_choice.c), so a settled loop pays
 * none of them; evicting or forgetting a kept verdict moves the epoch.
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "affinity/affinity.h"

#define XS_TRIAL_SLOTS 8
#define XS_TRIAL_MAX 64 /* rounds: XSCHED_AFFINITY_TRIAL's maximum */
/* Loops per block of one kind: the first warm-up (untimed), the last timed
 * (1: every loop timed, kinds alternating loop by loop, as before). */
#ifndef XS_TRIAL_BLOCK
#define XS_TRIAL_BLOCK 2
#endif

struct xs_trial {
	const struct xs_affinity_map *m; /* NULL: free */
	uint64_t n;
	uint32_t runs[XS_AFF_NKINDS];    /* timed loops, by enum xs_aff_trial_kind */
	double secs[XS_AFF_NKINDS][XS_TRIAL_MAX]; /* timed loops, by round */
	uint64_t step;                   /* trial loops done: block and place in it */
	int verdict;                     /* -1: trying; else the kind kept */
	uint64_t age;
};

static pthread_mutex_t xs_trial_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xs_trial xs_trials[XS_TRIAL_SLOTS];
static uint64_t xs_trial_clock;

double xs_affinity_trial_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The slot of (@m, @n), taking the oldest when none: locked. */
static struct xs_trial *xs_trial_slot(const struct xs_affinity_map *m, uint64_t n)
{
	struct xs_trial *t = &xs_trials[0];

	for (int i = 0; i < XS_TRIAL_SLOTS; i++) {
		if (xs_trials[i].m == m && xs_trials[i].n == n) {
			t = &xs_trials[i];
			goto out;
		}
		if (xs_trials[i].age < t->age)
			t = &xs_trials[i];
	}
	/* An evicted verdict may be remembered by a runtime's choice. */
	if (t->m && t->verdict >= 0)
		xs_affinity_epoch_bump();
	memset(t, 0, sizeof(*t));
	t->m = m;
	t->n = n;
	t->verdict = -1;
out:
	t->age = ++xs_trial_clock;
	return t;
}

static int xs_trial_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median over the rounds of @kind's time over static's: locked. */
static double xs_trial_ratio(const struct xs_trial *t, int kind)
{
	double r[XS_TRIAL_MAX];
	uint32_t m = t->runs[XS_AFF_RUN_STATIC];

	for (uint32_t i = 0; i < m; i++)
		r[i] = t->secs[XS_AFF_RUN_STATIC][i] > 0 ?
			t->secs[kind][i] / t->secs[XS_AFF_RUN_STATIC][i] : 1.0;
	qsort(r, m, sizeof(r[0]), xs_trial_cmp);
	return m % 2 ? r[m / 2] : (r[m / 2 - 1] + r[m / 2]) / 2;
}

/* Turns, block by block: the schedule, hybrid, static, the schedule... */
static int xs_trial_turn(const struct xs_trial *t)
{
	static const int turn[XS_AFF_NKINDS] = { XS_AFF_RUN_SCHEDULE, XS_AFF_RUN_HYBRID,
						 XS_AFF_RUN_STATIC };

	return turn[t->step / XS_TRIAL_BLOCK % XS_AFF_NKINDS];
}

int xs_affinity_trial_pick(const struct xs_affinity_map *m, uint64_t n, uint32_t trials,
			   bool *settled)
{
	struct xs_trial *t;
	int pick;

	if (settled)
		*settled = !trials;
	if (!trials)
		return XS_AFF_RUN_SCHEDULE;
	pthread_mutex_lock(&xs_trial_lock);
	t = xs_trial_slot(m, n);
	pick = t->verdict >= 0 ? t->verdict : xs_trial_turn(t);
	if (settled)
		*settled = t->verdict >= 0;
	pthread_mutex_unlock(&xs_trial_lock);
	return pick;
}

void xs_affinity_trial_done(const struct xs_affinity_map *m, uint64_t n, uint32_t trials,
			    int picked, double seconds, bool verbose)
{
	struct xs_trial *t;

	if (!trials)
		return;
	pthread_mutex_lock(&xs_trial_lock);
	t = xs_trial_slot(m, n);
	/* A loop of another kind than the block's (two loops picked at once)
	 * counts for nothing: the block's kind runs again. */
	if (t->verdict < 0 && picked == xs_trial_turn(t)) {
		bool timed = t->step % XS_TRIAL_BLOCK == XS_TRIAL_BLOCK - 1;

		t->step++;
		if (timed && t->runs[picked] < XS_TRIAL_MAX)
			t->secs[picked][t->runs[picked]++] = seconds;
		if (t->runs[XS_AFF_RUN_STATIC] >= trials ||
		    t->runs[XS_AFF_RUN_STATIC] == XS_TRIAL_MAX) {
			static const char *const name[XS_AFF_NKINDS] = { "hybrid", "the schedule",
									 "static" };
			double rs = xs_trial_ratio(t, XS_AFF_RUN_SCHEDULE);
			double rh = xs_trial_ratio(t, XS_AFF_RUN_HYBRID);
			int v = XS_AFF_RUN_SCHEDULE;

			/* Ties keep the schedule, then hybrid. */
			if (rh < rs)
				v = XS_AFF_RUN_HYBRID;
			if (1.0 < (v == XS_AFF_RUN_HYBRID ? rh : rs))
				v = XS_AFF_RUN_STATIC;
			t->verdict = v;
			if (verbose)
				fprintf(stderr, "xsched: affinity: loop of %llu iterations, %u rounds "
					"of a warm-up and a timed loop each: median time over "
					"static's: the schedule %.3f, hybrid %.3f; %s from now on\n",
					(unsigned long long)n, t->runs[XS_AFF_RUN_STATIC], rs, rh,
					name[v]);
		}
	}
	pthread_mutex_unlock(&xs_trial_lock);
}

int xs_affinity_trial_verdict(const struct xs_affinity_map *m, uint64_t n)
{
	int v = -1;

	pthread_mutex_lock(&xs_trial_lock);
	for (int i = 0; i < XS_TRIAL_SLOTS; i++)
		if (xs_trials[i].m == m && xs_trials[i].n == n)
			v = xs_trials[i].verdict;
	pthread_mutex_unlock(&xs_trial_lock);
	return v;
}

void xs_affinity_trial_reset(void)
{
	pthread_mutex_lock(&xs_trial_lock);
	memset(xs_trials, 0, sizeof(xs_trials));
	xs_affinity_epoch_bump();
	pthread_mutex_unlock(&xs_trial_lock);
}
