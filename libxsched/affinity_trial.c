// SPDX-License-Identifier: MIT
/*
 * affinity_trial.c - the replay checks that its schedule pays.
 *
 * Whether a partition beats the static split depends on what the plan
 * cannot see: the caches' sizes (sysfs may not say; then every core counts
 * as its own LLC), the program's own locality (per-iteration data
 * streamed in order, which no address shares), and the price of a replay
 * by lookup when an iteration is a few nanoseconds of work. So the first
 * 3 x XSCHED_AFFINITY_TRIAL loops of xs_parallel_for() that replay a
 * schedule take turns between the schedule, the hybrid schedule (the
 * static split with its dynamic tail) and the static schedule, timed; from
 * then on the one with the lowest minimum runs. A loss against static (or
 * hybrid) is thus bounded by the trial loops.
 *
 * State: a few slots, one per (schedule, trip count), under a mutex (a
 * loop start already costs a job hand-off; this is two lock round trips).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "affinity.h"

#define XS_TRIAL_SLOTS 8

struct xs_trial {
	const struct xs_affinity_map *m; /* NULL: free */
	uint64_t n;
	uint32_t runs[XS_AFF_NKINDS];    /* by enum xs_aff_trial_kind */
	double best[XS_AFF_NKINDS];
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
	memset(t, 0, sizeof(*t));
	t->m = m;
	t->n = n;
	t->verdict = -1;
out:
	t->age = ++xs_trial_clock;
	return t;
}

int xs_affinity_trial_pick(const struct xs_affinity_map *m, uint64_t n, uint32_t trials)
{
	struct xs_trial *t;
	int pick;

	if (!trials || m->identity)
		return XS_AFF_RUN_SCHEDULE;
	pthread_mutex_lock(&xs_trial_lock);
	t = xs_trial_slot(m, n);
	if (t->verdict >= 0) {
		pick = t->verdict;
	} else {
		/* Turns: the schedule, hybrid, static, the schedule... */
		static const int turn[XS_AFF_NKINDS] = { XS_AFF_RUN_SCHEDULE, XS_AFF_RUN_HYBRID,
							 XS_AFF_RUN_STATIC };

		pick = turn[0];
		for (int i = 1; i < XS_AFF_NKINDS; i++)
			if (t->runs[turn[i]] < t->runs[pick])
				pick = turn[i];
	}
	pthread_mutex_unlock(&xs_trial_lock);
	return pick;
}

void xs_affinity_trial_done(const struct xs_affinity_map *m, uint64_t n, uint32_t trials,
			    int picked, double seconds, bool verbose)
{
	struct xs_trial *t;

	if (!trials || m->identity)
		return;
	pthread_mutex_lock(&xs_trial_lock);
	t = xs_trial_slot(m, n);
	if (t->verdict < 0) {
		if (!t->runs[picked] || seconds < t->best[picked])
			t->best[picked] = seconds;
		t->runs[picked]++;
		if (t->runs[XS_AFF_RUN_STATIC] >= trials) {
			static const char *const name[XS_AFF_NKINDS] = { "hybrid", "the schedule",
									 "static" };
			int v = XS_AFF_RUN_SCHEDULE;

			/* Ties keep the schedule, then hybrid. */
			if (t->best[XS_AFF_RUN_HYBRID] < t->best[v])
				v = XS_AFF_RUN_HYBRID;
			if (t->best[XS_AFF_RUN_STATIC] < t->best[v])
				v = XS_AFF_RUN_STATIC;
			t->verdict = v;
			if (verbose)
				fprintf(stderr, "xsched: affinity: loop of %llu iterations: best of "
					"%u loops each: the schedule %.3g s, hybrid %.3g s, static "
					"%.3g s; %s from now on\n", (unsigned long long)n, trials,
					t->best[XS_AFF_RUN_SCHEDULE], t->best[XS_AFF_RUN_HYBRID],
					t->best[XS_AFF_RUN_STATIC], name[v]);
		}
	}
	pthread_mutex_unlock(&xs_trial_lock);
}

void xs_affinity_trial_reset(void)
{
	pthread_mutex_lock(&xs_trial_lock);
	memset(xs_trials, 0, sizeof(xs_trials));
	pthread_mutex_unlock(&xs_trial_lock);
}
