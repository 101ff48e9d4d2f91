/* SPDX-License-Identifier: MIT */
/*
 * parallel.c - parallel regions: the default team, num_threads, if(0)/if(1),
 * nested regions and the level queries, and 10^4 consecutive regions with a
 * reduction each. (GOMP_parallel_start/end: parallel-legacy.c.)
 */
#include <omp.h>

#include "omp-check.h"

/* Runs a region with the given clauses and checks the team it got. */
static void check_team(const char *name, int nt_seen, unsigned mask, int arrived, int want)
{
	CHECK(name, nt_seen == want);
	CHECK(name, arrived == want);
	CHECK(name, mask == (want >= 32 ? ~0u : (1u << want) - 1));
	OK(name);
}

static void default_team(void)
{
	int want = omp_get_max_threads(), nt = -1, arrived = 0;
	unsigned mask = 0;

	CHECK("parallel.outside", !omp_in_parallel() && omp_get_level() == 0 &&
					  omp_get_num_threads() == 1 && omp_get_thread_num() == 0);
#pragma omp parallel
	{
		int t = omp_get_thread_num(), n = omp_get_num_threads();

		CHECK("parallel.default.thread-num", t >= 0 && t < n);
		CHECK("parallel.default.level", omp_get_level() == 1);
		CHECK("parallel.default.in-parallel", omp_in_parallel() == (n > 1));
		CHECK("parallel.default.active-level", omp_get_active_level() == (n > 1));
#pragma omp atomic
		arrived++;
#pragma omp atomic
		mask |= 1u << t;
#pragma omp single
		nt = n;
	}
	check_team("parallel.default", nt, mask, arrived, want);
}

static void num_threads_and_if(void)
{
	int nt = -1, arrived = 0;
	unsigned mask = 0;

#pragma omp parallel num_threads(3)
	{
#pragma omp atomic
		arrived++;
#pragma omp atomic
		mask |= 1u << omp_get_thread_num();
#pragma omp master
		nt = omp_get_num_threads();
	}
	check_team("parallel.num_threads(3)", nt, mask, arrived, 3);

	nt = -1, arrived = 0, mask = 0;
#pragma omp parallel num_threads(1)
	{
#pragma omp atomic
		arrived++;
#pragma omp atomic
		mask |= 1u << omp_get_thread_num();
		nt = omp_get_num_threads();
		CHECK("parallel.num_threads(1).active-level", omp_get_active_level() == 0);
		CHECK("parallel.num_threads(1).level", omp_get_level() == 1);
	}
	check_team("parallel.num_threads(1)", nt, mask, arrived, 1);

	volatile int zero = 0, one = 1;

	nt = -1, arrived = 0, mask = 0;
#pragma omp parallel if (zero) num_threads(4)
	{
#pragma omp atomic
		arrived++;
#pragma omp atomic
		mask |= 1u << omp_get_thread_num();
		nt = omp_get_num_threads();
		CHECK("parallel.if(0).level", omp_get_level() == 1);
		CHECK("parallel.if(0).active-level", omp_get_active_level() == 0);
		CHECK("parallel.if(0).in-parallel", !omp_in_parallel());
	}
	check_team("parallel.if(0)", nt, mask, arrived, 1);

	nt = -1, arrived = 0, mask = 0;
#pragma omp parallel if (one) num_threads(2)
	{
#pragma omp atomic
		arrived++;
#pragma omp atomic
		mask |= 1u << omp_get_thread_num();
#pragma omp master
		nt = omp_get_num_threads();
		CHECK("parallel.if(1).in-parallel", omp_in_parallel());
	}
	check_team("parallel.if(1)", nt, mask, arrived, 2);
}

static void nested(void)
{
	int saved = omp_get_max_active_levels(), arrived = 0;
	unsigned pairs = 0;

	/* Two active levels: 2 x 3 threads. */
	omp_set_max_active_levels(2);
	CHECK("parallel.nested.max-active-levels", omp_get_max_active_levels() == 2);
#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num();

#pragma omp parallel num_threads(3)
		{
			int inner = omp_get_thread_num();

			CHECK("parallel.nested.level", omp_get_level() == 2);
			CHECK("parallel.nested.active-level", omp_get_active_level() == 2);
			CHECK("parallel.nested.num-threads", omp_get_num_threads() == 3);
			CHECK("parallel.nested.ancestor(0)", omp_get_ancestor_thread_num(0) == 0);
			CHECK("parallel.nested.ancestor(1)", omp_get_ancestor_thread_num(1) == outer);
			CHECK("parallel.nested.ancestor(2)", omp_get_ancestor_thread_num(2) == inner);
			CHECK("parallel.nested.ancestor(3)", omp_get_ancestor_thread_num(3) == -1);
			CHECK("parallel.nested.ancestor(-1)", omp_get_ancestor_thread_num(-1) == -1);
			CHECK("parallel.nested.team-size(0)", omp_get_team_size(0) == 1);
			CHECK("parallel.nested.team-size(1)", omp_get_team_size(1) == 2);
			CHECK("parallel.nested.team-size(2)", omp_get_team_size(2) == 3);
			CHECK("parallel.nested.team-size(3)", omp_get_team_size(3) == -1);
			CHECK("parallel.nested.in-parallel", omp_in_parallel());
#pragma omp atomic
			arrived++;
#pragma omp atomic
			pairs |= 1u << (outer * 3 + inner);
		}
	}
	CHECK("parallel.nested.2x3", arrived == 6 && pairs == 0x3f);
	OK("parallel.nested.2x3");

	/* One active level: the inner regions are inactive teams of one. */
	omp_set_max_active_levels(1);
	arrived = 0, pairs = 0;
#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num();

#pragma omp parallel num_threads(3)
		{
			CHECK("parallel.inactive-inner.level", omp_get_level() == 2);
			CHECK("parallel.inactive-inner.active-level", omp_get_active_level() == 1);
			CHECK("parallel.inactive-inner.num-threads", omp_get_num_threads() == 1);
			CHECK("parallel.inactive-inner.thread-num", omp_get_thread_num() == 0);
			CHECK("parallel.inactive-inner.ancestor(1)",
			      omp_get_ancestor_thread_num(1) == outer);
			CHECK("parallel.inactive-inner.team-size(1)", omp_get_team_size(1) == 2);
			CHECK("parallel.inactive-inner.team-size(2)", omp_get_team_size(2) == 1);
			CHECK("parallel.inactive-inner.in-parallel", omp_in_parallel());
#pragma omp atomic
			arrived++;
#pragma omp atomic
			pairs |= 1u << outer;
		}
	}
	CHECK("parallel.inactive-inner", arrived == 2 && pairs == 3);
	OK("parallel.inactive-inner");

	/* An inactive outer region (if(0)) around an active inner one. */
	omp_set_max_active_levels(2);
	arrived = 0;
	volatile int zero = 0;
#pragma omp parallel if (zero)
	{
#pragma omp parallel num_threads(2)
		{
			CHECK("parallel.inactive-outer.level", omp_get_level() == 2);
			CHECK("parallel.inactive-outer.active-level", omp_get_active_level() == 1);
			CHECK("parallel.inactive-outer.team-size(1)", omp_get_team_size(1) == 1);
			CHECK("parallel.inactive-outer.team-size(2)", omp_get_team_size(2) == 2);
#pragma omp atomic
			arrived++;
		}
	}
	CHECK("parallel.inactive-outer", arrived == 2);
	OK("parallel.inactive-outer");

	/* Three levels deep, 2 x 2 x 2. */
	omp_set_max_active_levels(3);
	arrived = 0, pairs = 0;
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
	{
		CHECK("parallel.nested3.level", omp_get_level() == 3 && omp_get_active_level() == 3);
		int id = omp_get_ancestor_thread_num(1) * 4 + omp_get_ancestor_thread_num(2) * 2 +
			 omp_get_thread_num();
#pragma omp atomic
		arrived++;
#pragma omp atomic
		pairs |= 1u << id;
	}
	CHECK("parallel.nested3", arrived == 8 && pairs == 0xff);
	OK("parallel.nested3");
	omp_set_max_active_levels(saved);
}

static void many_regions(void)
{
	enum { REGIONS = 10000, N = 37 };
	long long total = 0;
	int want = omp_get_max_threads();

	for (int r = 0; r < REGIONS; r++) {
		long long s = 0;
		int members = 0;

#pragma omp parallel reduction(+ : members)
		{
			members += 1;
#pragma omp for reduction(+ : s)
			for (int i = 0; i < N; i++)
				s += (long long)i * r + 1;
		}
		CHECK("parallel.many-regions.members", members == want);
		CHECK("parallel.many-regions.sum", s == (long long)r * N * (N - 1) / 2 + N);
		total += s;
	}
	printf("parallel.many-regions checksum %lld\n", total);
	OK("parallel.many-regions");
}

int main(void)
{
	omp_set_dynamic(0);
	default_team();
	num_threads_and_if();
	nested();
	many_regions();
	return 0;
}
