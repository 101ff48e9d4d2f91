// SPDX-License-Identifier: MIT
/*
 * teams.c - the teams construct on the host.
 *
 * A league of N teams runs on the encountering thread, one team after the
 * other, as libgomp does on the host: each team's initial thread is this
 * thread, with omp_get_team_num() its number. A team's parallel regions
 * are ordinary regions (team.c), so a league of N teams of P threads does
 * what OpenMP asks, only not N teams at once. The league is thread-local
 * (xg_league), as in libgomp: the other threads of a parallel region met
 * inside a team see a league of one.
 *
 * nteams-var (OMP_NUM_TEAMS, omp_set_num_teams) is the number of teams of
 * a league without num_teams (libgomp's 3 when it is 0), and
 * teams-thread-limit-var (OMP_TEAMS_THREAD_LIMIT) the thread limit of a
 * team without thread_limit; both are process-wide, as in libgomp.
 */
#include <limits.h>

#include "gomp.h"

__thread struct xg_league xg_league __attribute__((tls_model("initial-exec")));

/* Relaxed: ICVs set by the program between regions; a race between
 * omp_set_num_teams() and a teams construct is the program's. */
static _Atomic int xg_nteams = -1, xg_teams_thread_limit = -1;

/* The environment's values, on first use. */
static void xg_teams_env(void)
{
	if (xs_load_relaxed(&xg_nteams) < 0 || xs_load_relaxed(&xg_teams_thread_limit) < 0) {
		xg_env_init();
		int expected = -1;

		/* Relaxed (see above); a CAS, so that a value the program
		 * set meanwhile is not overwritten by the environment's. */
		xs_cas_strong_relaxed(&xg_nteams, &expected, (int)xg_env.num_teams);
		expected = -1;
		xs_cas_strong_relaxed(&xg_teams_thread_limit, &expected,
				      (int)xg_env.teams_thread_limit);
	}
}

/* Set the current task's thread-limit-var to @limit (0: leave it);
 * returns the value to restore. */
static uint32_t xg_teams_limit(uint32_t limit)
{
	uint32_t old = xg_task_self()->icv->thread_limit;

	if (limit)
		xg_icv_writable()->thread_limit = limit > INT_MAX ? UINT32_MAX : limit;
	return old;
}

XG_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
			      unsigned thread_limit, unsigned flags)
{
	struct xg_league saved = xg_league;
	uint32_t old;

	(void)flags;
	xg_teams_env();
	if (!thread_limit)
		thread_limit = (unsigned)xs_load_relaxed(&xg_teams_thread_limit);
	old = xg_teams_limit(thread_limit);
	if (!num_teams) {
		int n = xs_load_relaxed(&xg_nteams);

		num_teams = n > 0 ? (unsigned)n : 3;
	}
	xg_league.num_teams = num_teams - 1;
	for (xg_league.team_num = 0; xg_league.team_num < num_teams; xg_league.team_num++)
		fn(data);
	xg_league = saved;
	if (thread_limit)
		xg_icv_writable()->thread_limit = old;
}

/* Inside a target region (gcc's host code for `target teams`). */
XG_EXPORT void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
	(void)num_teams; /* one team, as libgomp's host fallback */
	xg_teams_limit(thread_limit);
}

/* gcc 12: `while (GOMP_teams4(...)) body;` runs the body once per team. */
XG_EXPORT bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high,
			   unsigned thread_limit, bool first)
{
	(void)num_teams_high;
	if (first) {
		xg_teams_limit(thread_limit);
		xg_league.num_teams = num_teams_low ? num_teams_low - 1 : 0;
		xg_league.team_num = 0;
		return true;
	}
	if (xg_league.team_num == xg_league.num_teams)
		return false;
	xg_league.team_num++;
	return true;
}

XG_EXPORT int omp_get_num_teams(void)
{
	return (int)xg_league.num_teams + 1;
}

XG_EXPORT int omp_get_team_num(void)
{
	return (int)xg_league.team_num;
}

XG_EXPORT void omp_set_num_teams(int num_teams)
{
	xg_teams_env();
	if (num_teams >= 0)
		xs_store_relaxed(&xg_nteams, num_teams);
}

XG_EXPORT int omp_get_max_teams(void)
{
	xg_teams_env();
	return xs_load_relaxed(&xg_nteams);
}

XG_EXPORT void omp_set_teams_thread_limit(int thread_limit)
{
	xg_teams_env();
	if (thread_limit >= 0)
		xs_store_relaxed(&xg_teams_thread_limit, thread_limit);
}

XG_EXPORT int omp_get_teams_thread_limit(void)
{
	xg_teams_env();
	return xs_load_relaxed(&xg_teams_thread_limit);
}
