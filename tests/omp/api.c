/* SPDX-License-Identifier: MIT */
/*
 * api.c - the omp_* API: thread, team and level queries, omp_get_wtime and
 * omp_get_wtick, simple and nested locks, omp_get_num_procs, the dynamic,
 * nested and max-active-levels settings, omp_set_num_threads and
 * omp_get_max_threads, omp_set_schedule/omp_get_schedule.
 */
#include <omp.h>
#include <time.h>

#include "omp-check.h"

static void queries(void)
{
	CHECK("api.serial.num-threads", omp_get_num_threads() == 1);
	CHECK("api.serial.thread-num", omp_get_thread_num() == 0);
	CHECK("api.serial.in-parallel", !omp_in_parallel());
	CHECK("api.serial.level", omp_get_level() == 0 && omp_get_active_level() == 0);
	CHECK("api.serial.ancestor", omp_get_ancestor_thread_num(0) == 0 &&
					     omp_get_ancestor_thread_num(1) == -1);
	CHECK("api.serial.team-size", omp_get_team_size(0) == 1 && omp_get_team_size(1) == -1);
	CHECK("api.serial.in-final", !omp_in_final());
	CHECK("api.num-procs", omp_get_num_procs() >= 1);
	CHECK("api.thread-limit", omp_get_thread_limit() >= 1);
	CHECK("api.max-threads", omp_get_max_threads() >= 1);
	CHECK("api.max-active-levels", omp_get_max_active_levels() >= 1);
	CHECK("api.supported-active-levels", omp_get_supported_active_levels() >= 1);
	CHECK("api.team-num", omp_get_team_num() == 0 && omp_get_num_teams() == 1);
	CHECK("api.cancellation", omp_get_cancellation() == 0);
	CHECK("api.max-task-priority", omp_get_max_task_priority() >= 0);

	int bad = 0, nt = 0;

#pragma omp parallel num_threads(3) reduction(+ : bad)
	{
		int t = omp_get_thread_num();

		bad += omp_get_num_threads() != 3;
		bad += t < 0 || t >= 3;
		bad += omp_get_level() != 1 || omp_get_active_level() != 1;
		bad += omp_get_team_size(1) != 3;
		bad += omp_get_ancestor_thread_num(1) != t;
		bad += !omp_in_parallel();
#pragma omp master
		nt = omp_get_num_threads();
	}
	CHECK("api.team.queries", bad == 0 && nt == 3);
	OK("api.queries");
}

static void wtime(void)
{
	double tick = omp_get_wtick(), prev = omp_get_wtime();

	CHECK("api.wtick", tick > 0 && tick < 1);
	for (int i = 0; i < 100000; i++) {
		double now = omp_get_wtime();

		CHECK("api.wtime.monotonic", now >= prev);
		prev = now;
	}
	double start = omp_get_wtime();
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	double slept = omp_get_wtime() - start;

	/* seconds, not milli- or microseconds */
	CHECK("api.wtime.unit", slept >= 0.015 && slept < 60);

	/* every thread sees a clock that moves forward */
	int bad = 0;
#pragma omp parallel reduction(+ : bad)
	{
		double a = omp_get_wtime(), b = omp_get_wtime();
		bad += b < a;
	}
	CHECK("api.wtime.threads", bad == 0);
	OK("api.wtime");
}

static omp_lock_t lock;
static omp_nest_lock_t nest;
static volatile long guarded;

static void locks(void)
{
	enum { ITERS = 20000 };
	int bad = 0, nt = 0;

	omp_init_lock(&lock);
	CHECK("api.lock.test-free", omp_test_lock(&lock) == 1);
	omp_unset_lock(&lock);

	/* A held lock cannot be taken by another thread. */
#pragma omp parallel num_threads(2) reduction(+ : bad)
	{
		if (omp_get_thread_num() == 0)
			omp_set_lock(&lock);
#pragma omp barrier
		if (omp_get_thread_num() == 1)
			bad += omp_test_lock(&lock) != 0;
#pragma omp barrier
		if (omp_get_thread_num() == 0)
			omp_unset_lock(&lock);
#pragma omp barrier
		if (omp_get_thread_num() == 1) {
			bad += omp_test_lock(&lock) != 1;
			omp_unset_lock(&lock);
		}
	}
	CHECK("api.lock.test-held", bad == 0);

	/* non-atomic increments under the lock */
	guarded = 0;
#pragma omp parallel
	{
#pragma omp single
		nt = omp_get_num_threads();
		for (int i = 0; i < ITERS; i++) {
			if (i % 2) {
				omp_set_lock(&lock);
			} else {
				while (!omp_test_lock(&lock))
					;
			}
			guarded = guarded + 1;
			omp_unset_lock(&lock);
		}
	}
	CHECK("api.lock.exclusive", guarded == (long)nt * ITERS);
	omp_destroy_lock(&lock);
	OK("api.lock");

	omp_init_nest_lock(&nest);
	CHECK("api.nest-lock.first", omp_test_nest_lock(&nest) == 1);
	omp_set_nest_lock(&nest);
	CHECK("api.nest-lock.count", omp_test_nest_lock(&nest) == 3);
	bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
	{
		if (omp_get_thread_num() == 1)
			bad += omp_test_nest_lock(&nest) != 0;	/* owned by thread 0 */
	}
	CHECK("api.nest-lock.other-thread", bad == 0);
	omp_unset_nest_lock(&nest);
	omp_unset_nest_lock(&nest);
	omp_unset_nest_lock(&nest);
	bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
	{
		if (omp_get_thread_num() == 1) {
			bad += omp_test_nest_lock(&nest) != 1;	/* released */
			omp_unset_nest_lock(&nest);
		}
	}
	CHECK("api.nest-lock.released", bad == 0);

	guarded = 0;
#pragma omp parallel
	for (int i = 0; i < ITERS; i++) {
		omp_set_nest_lock(&nest);
		omp_set_nest_lock(&nest);
		guarded = guarded + 1;
		omp_unset_nest_lock(&nest);
		guarded = guarded + 1;
		omp_unset_nest_lock(&nest);
	}
	CHECK("api.nest-lock.exclusive", guarded == 2L * nt * ITERS);
	omp_destroy_nest_lock(&nest);
	OK("api.nest-lock");
}

static void settings(void)
{
	int saved_levels = omp_get_max_active_levels();

	omp_set_dynamic(1);
	CHECK("api.dynamic.set", omp_get_dynamic() == 1);
	omp_set_dynamic(0);
	CHECK("api.dynamic.clear", omp_get_dynamic() == 0);
	OK("api.dynamic");

	omp_set_max_active_levels(3);
	CHECK("api.max-active-levels.3", omp_get_max_active_levels() == 3);
	omp_set_max_active_levels(1);
	CHECK("api.max-active-levels.1", omp_get_max_active_levels() == 1);
	omp_set_max_active_levels(saved_levels);
	OK("api.max-active-levels");

	omp_set_nested(1);
	CHECK("api.nested.set", omp_get_nested() == 1);
	omp_set_nested(0);
	CHECK("api.nested.clear", omp_get_nested() == 0);
	omp_set_max_active_levels(saved_levels);
	OK("api.nested");

	int saved_threads = omp_get_max_threads();

	for (int n = 1; n <= 5; n++) {
		int team = 0;

		omp_set_num_threads(n);
		CHECK("api.set-num-threads.max-threads", omp_get_max_threads() == n);
#pragma omp parallel
#pragma omp master
		team = omp_get_num_threads();
		CHECK("api.set-num-threads.team", team == n);
	}
	/* the setting is per task: a region's threads inherit the outer one */
	omp_set_num_threads(2);
	int inner = 0;
#pragma omp parallel
	{
#pragma omp master
		inner = omp_get_max_threads();
	}
	CHECK("api.set-num-threads.inherited", inner == 2);
	omp_set_num_threads(saved_threads);
	OK("api.set-num-threads");

	static const struct {
		omp_sched_t kind;
		int chunk;
	} sched[] = {
		{ omp_sched_static, 4 },
		{ omp_sched_dynamic, 1 },
		{ omp_sched_dynamic, 9 },
		{ omp_sched_guided, 3 },
		{ omp_sched_dynamic | omp_sched_monotonic, 2 },
		{ omp_sched_guided | omp_sched_monotonic, 5 },
	};
	omp_sched_t kind0;
	int chunk0;

	omp_get_schedule(&kind0, &chunk0);
	for (size_t k = 0; k < sizeof sched / sizeof sched[0]; k++) {
		omp_sched_t kind;
		int chunk;

		omp_set_schedule(sched[k].kind, sched[k].chunk);
		omp_get_schedule(&kind, &chunk);
		CHECK("api.schedule.round-trip", kind == sched[k].kind && chunk == sched[k].chunk);
	}
	omp_sched_t kind;
	int chunk;

	omp_set_schedule(omp_sched_auto, 0);
	omp_get_schedule(&kind, &chunk);
	CHECK("api.schedule.auto", kind == omp_sched_auto);
	omp_set_schedule(kind0, chunk0);
	OK("api.schedule");
}

int main(void)
{
	omp_set_dynamic(0);
	queries();
	wtime();
	locks();
	settings();
	return 0;
}
