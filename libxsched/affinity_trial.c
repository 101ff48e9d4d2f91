// SPDX-License-Identifier: MIT
/*
 * affinity_trial.c - the replay checks that its schedule pays.
 *
 * Whether a partition beats the static split depends on what the plan
 * cannot see: the caches' sizes (sysfs may not say; then every core counts
 * as its own LLC), the program's own locality (per-iteration data
 * streamed in order, which no address shares), and the price of a replay
 * by lookup when an iteration is a few nanoseconds of work. So the first
 * 2 x XSCHED_AFFINITY_TRIAL loops of xs_parallel_for() that replay a
 * schedule alternate between the schedule and the hybrid schedule (the
 * static split with its dynamic tail), timed; from then on the one with
 * the lower minimum runs. A loss is thus bounded by the trial loops.
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
	uint32_t runs[2];                /* [0] hybrid, [1] the schedule */
	double best[2];
	int verdict;                     /* -1: trying; 0 hybrid; 1 schedule */
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
		return 1;
	pthread_mutex_lock(&xs_trial_lock);
	t = xs_trial_slot(m, n);
	if (t->verdict >= 0)
		pick = t->verdict;
	else
		pick = t->runs[1] <= t->runs[0]; /* the schedule first, then turns */
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
		if (t->runs[0] >= trials && t->runs[1] >= trials) {
			t->verdict = t->best[1] <= t->best[0];
			if (verbose)
				fprintf(stderr, "xsched: affinity: loop of %llu iterations: the "
					"schedule's best %.3g s, hybrid's %.3g s over %u loops each; "
					"%s from now on\n", (unsigned long long)n, t->best[1],
					t->best[0], trials,
					t->verdict ? "the schedule" : "hybrid");
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
