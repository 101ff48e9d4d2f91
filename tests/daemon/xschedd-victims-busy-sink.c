// SPDX-License-Identifier: MIT
/*
 * The daemon's load re-weighting (daemon/reweight.c) over libxsched's own
 * victim rows, on the synthetic 2 sockets x 2 nodes x 4 cores machine:
 * idle, every row keeps the topology's order; with one CPU fully busy that
 * CPU is last in every other row and its weight is the lowest; rows stay
 * permutations (xs_victim_table_check) with non-increasing weights; and a
 * row changes only when a load crosses a level.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"
#include "xschedd.h"

FIXTURE(rw) {
	struct xs_topology *topo;
	struct xs_victim_table *base;
	struct xs_abi_victim *out;
	uint32_t *load;
	uint8_t *level;
};

FIXTURE_SETUP(rw)
{
	self->topo = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	ASSERT_NE(NULL, self->topo);
	self->base = xs_victim_table_build(self->topo);
	ASSERT_NE(NULL, self->base);
	ASSERT_LT(2, self->base->ncpus);
	self->out = calloc((size_t)self->base->ncpus * self->base->row_len, sizeof(*self->out));
	self->load = calloc(self->base->ncpus, sizeof(*self->load));
	self->level = malloc(self->base->ncpus);
	ASSERT_NE(NULL, self->out);
	ASSERT_NE(NULL, self->load);
	ASSERT_NE(NULL, self->level);
	memset(self->level, 0xff, self->base->ncpus);
}

FIXTURE_TEARDOWN(rw)
{
	free(self->out);
	free(self->load);
	free(self->level);
	xs_victim_table_free(self->base);
	xs_topology_free(self->topo);
}

/* The output as a libxsched table, for xs_victim_table_check(). */
static int check_rows(const struct xs_victim_table *base, struct xs_abi_victim *out)
{
	struct xs_victim_table t = { base->ncpus, base->row_len, (struct xs_victim *)out };

	for (uint32_t r = 0; r < base->ncpus; r++)
		for (uint32_t k = 1; k < base->row_len; k++)
			if (out[r * base->row_len + k].weight > out[r * base->row_len + k - 1].weight)
				return -1;
	return xs_victim_table_check(&t);
}

TEST_F(rw, idle_keeps_topology_order)
{
	size_t n = (size_t)self->base->ncpus * self->base->row_len;

	xsd_victims_reweight(self->base, self->load, self->level, self->out);
	ASSERT_EQ(0, memcmp(self->out, self->base->victims, n * sizeof(*self->out)));
	ASSERT_EQ(0, check_rows(self->base, self->out));
}

TEST_F(rw, busy_cpu_sinks_to_last_in_every_row)
{
	uint32_t n = self->base->ncpus, len = self->base->row_len, busy = 1;

	self->load[busy] = 1000;
	xsd_victims_reweight(self->base, self->load, self->level, self->out);
	ASSERT_EQ(0, check_rows(self->base, self->out));
	for (uint32_t r = 0; r < n; r++) {
		if (r == busy)
			continue;
		EXPECT_EQ(busy, self->out[r * len + len - 1].cpu_index);
		EXPECT_GT(self->out[r * len + len - 2].weight, self->out[r * len + len - 1].weight);
	}
	/* the busy CPU's own row is unchanged: nobody else is busy */
	ASSERT_EQ(0, memcmp(self->out + busy * len, self->base->victims + busy * len,
			    len * sizeof(*self->out)));
}

TEST_F(rw, partly_busy_sinks_within_its_class)
{
	uint32_t len = self->base->row_len, pos = len;
	const struct xs_abi_victim *row = self->out; /* row 0 */
	uint16_t w;

	/* CPU 1 shares CPU 0's LLC (2048); 30% busy scales it by 23/32 to
	 * 1472: after the idle same-LLC CPUs, before every same-node (1024)
	 * and remote one */
	ASSERT_EQ(1u, self->base->victims[0].cpu_index);
	ASSERT_EQ(XS_VICTIM_LLC, self->base->victims[0].class);
	self->load[1] = 300;
	xsd_victims_reweight(self->base, self->load, self->level, self->out);
	ASSERT_EQ(0, check_rows(self->base, self->out));
	w = xsd_victim_weight(self->base->victims[0].weight, 300);
	EXPECT_EQ(1472, w);
	for (uint32_t k = 0; k < len; k++)
		if (row[k].cpu_index == 1)
			pos = k;
	ASSERT_GT(len, pos);
	EXPECT_EQ(w, row[pos].weight);
	for (uint32_t k = 0; k < pos; k++)
		EXPECT_EQ(XS_VICTIM_LLC, row[k].locality);
	for (uint32_t k = pos + 1; k < len; k++)
		EXPECT_LT(XS_VICTIM_LLC, row[k].locality);
}

TEST_F(rw, rows_change_only_with_a_level)
{
	size_t n = (size_t)self->base->ncpus * self->base->row_len;

	xsd_victims_reweight(self->base, self->load, self->level, self->out);
	memset(self->out, 0, n * sizeof(*self->out));
	self->load[2] = 10; /* still level 0 */
	xsd_victims_reweight(self->base, self->load, self->level, self->out);
	EXPECT_EQ(0, self->out[0].weight); /* untouched */
	self->load[2] = 900;
	xsd_victims_reweight(self->base, self->load, self->level, self->out);
	ASSERT_EQ(0, check_rows(self->base, self->out));
	EXPECT_EQ(1, xsd_victim_weight(1, 1000));
	EXPECT_EQ(1024 / 32, xsd_victim_weight(1024, 1000));
}

TEST_HARNESS_MAIN
