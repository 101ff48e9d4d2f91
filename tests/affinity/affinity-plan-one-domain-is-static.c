// SPDX-License-Identifier: MIT
/*
 * Where every worker shares one cache domain, the plan is the static split:
 * on a synthetic machine of 1 node, 1 LLC, 4 cores, the planted graph
 * (affinity-planted.h, groups scattered over the ids) gets the identity
 * order and xs_block's blocks, and `show` says so; --force keeps METIS's
 * partition (the groups together, the order no longer the identity).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "affinity/affinity.h"
#include "topology-test.h"
#include "xs_test.h"

#include "affinity-planted.h"

#define WORKERS 4

FIXTURE(one_domain)
{
	char root[PATH_MAX], dir[64], graph[128], sched[128], cmd[8 * PATH_MAX];
	const char *build;
};

FIXTURE_SETUP(one_domain)
{
	self->build = getenv("XS_BUILDDIR");
	if (!self->build || !*self->build)
		self->build = "build";
	snprintf(self->cmd, sizeof(self->cmd), "%s/xsched-affinity", self->build);
	if (access(self->cmd, X_OK))
		SKIP(return, "%.200s not built", self->cmd);
	ASSERT_EQ(0, xs_test_mksysfs(self->root, sizeof(self->root), "--spec 1s1n4c"));
	snprintf(self->dir, sizeof(self->dir), "/tmp/xsched-affinity-one-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->graph, sizeof(self->graph), "%s/graph", self->dir);
	snprintf(self->sched, sizeof(self->sched), "%s/schedule", self->dir);
	ne = nent = 0;
	planted(self->graph);
}

FIXTURE_TEARDOWN(one_domain)
{
	char cmd[3 * PATH_MAX];

	if (!self->dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", self->dir, self->root);
	EXPECT_EQ(0, system(cmd));
}

/* Plan with @extra options; 0 or the shell's status. */
static int plan(FIXTURE_DATA(one_domain) *self, const char *extra)
{
	snprintf(self->cmd, sizeof(self->cmd), "XSCHED_SYSFS_ROOT='%s' XSCHED_BIND=compact "
		 "'%s/xsched-affinity' plan '%s' -o '%s' --workers %d --dense-ratio 1 %s "
		 ">/dev/null", self->root, self->build, self->graph, self->sched, WORKERS, extra);
	return system(self->cmd);
}

TEST_F(one_domain, plan_is_the_static_split_and_show_says_so)
{
	struct xs_affinity_map m;
	char line[512];
	bool said = false;
	FILE *f;

	ASSERT_EQ(0, plan(self, ""));
	ASSERT_EQ(0, xs_affinity_map_read(self->sched, &m));
	ASSERT_EQ(WORKERS, m.nworkers);
	EXPECT_TRUE(m.identity);
	for (uint32_t i = 0; i < m.nthreads; i++) {
		ASSERT_EQ(i, m.order[i]);
	}
	/* xs_block of T = 96 over 4: 24 each. */
	for (uint32_t w = 0; w <= WORKERS; w++) {
		EXPECT_EQ(w * (T / WORKERS), m.start[w]);
	}
	xs_affinity_map_free(&m);
	snprintf(self->cmd, sizeof(self->cmd), "'%s/xsched-affinity' show '%s'", self->build,
		 self->sched);
	f = popen(self->cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		said |= strstr(line, "identity order") != NULL;
	EXPECT_EQ(0, pclose(f));
	EXPECT_TRUE(said);
}

TEST_F(one_domain, force_keeps_the_partition)
{
	struct xs_affinity_map m;
	uint32_t owner[T];

	ASSERT_EQ(0, plan(self, "--force"));
	ASSERT_EQ(0, xs_affinity_map_read(self->sched, &m));
	EXPECT_FALSE(m.identity);
	for (uint32_t w = 0; w < m.nworkers; w++)
		for (uint32_t p = m.start[w]; p < m.start[w + 1]; p++)
			owner[m.order[p]] = w;
	for (uint32_t g = 0; g < GROUPS; g++) {
		for (uint32_t i = 1; i < PER; i++) {
			EXPECT_EQ(owner[id_of(g * PER)], owner[id_of(g * PER + i)])
				TH_LOG("group %u split", g);
		}
	}
	xs_affinity_map_free(&m);
}

TEST_HARNESS_MAIN
