// SPDX-License-Identifier: MIT
/*
 * xs_victim_table_check() accepts every table the builder makes and rejects
 * a table (as the daemon might publish one) that breaks a row invariant:
 * self as victim, a duplicate, an index out of range, a bad class, a zero
 * weight, or a row length that does not match ncpus.
 */
#include <errno.h>

#include "kselftest_harness.h"
#include "topology-test.h"

FIXTURE(table) {
	struct xs_topology *topo;
	struct xs_victim_table *vt;
};

FIXTURE_SETUP(table)
{
	self->topo = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	ASSERT_NE(NULL, self->topo);
	self->vt = xs_victim_table_build(self->topo);
	ASSERT_NE(NULL, self->vt);
}

FIXTURE_TEARDOWN(table)
{
	xs_victim_table_free(self->vt);
	xs_topology_free(self->topo);
}

TEST_F(table, built_table_passes)
{
	EXPECT_EQ(0, xs_victim_table_check(self->vt));
}

TEST_F(table, corrupt_rows_fail)
{
	struct xs_victim *v = self->vt->victims + 5 * self->vt->row_len; /* row 5 */
	struct xs_victim saved = v[2];

	v[2].cpu_index = 5;                  /* itself */
	EXPECT_EQ(-EINVAL, xs_victim_table_check(self->vt));
	v[2].cpu_index = v[3].cpu_index;     /* duplicate */
	EXPECT_EQ(-EINVAL, xs_victim_table_check(self->vt));
	v[2].cpu_index = self->vt->ncpus;    /* out of range */
	EXPECT_EQ(-EINVAL, xs_victim_table_check(self->vt));
	v[2] = saved;
	v[2].class = XS_VICTIM_REMOTE + 1;
	EXPECT_EQ(-EINVAL, xs_victim_table_check(self->vt));
	v[2] = saved;
	v[2].weight = 0;
	EXPECT_EQ(-EINVAL, xs_victim_table_check(self->vt));
	v[2] = saved;
	EXPECT_EQ(0, xs_victim_table_check(self->vt));
	self->vt->row_len--;
	EXPECT_EQ(-EINVAL, xs_victim_table_check(self->vt));
	self->vt->row_len++;
	EXPECT_EQ(-EINVAL, xs_victim_table_check(NULL));
}

TEST_HARNESS_MAIN
