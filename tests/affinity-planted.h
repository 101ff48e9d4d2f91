/* SPDX-License-Identifier: MIT */
/*
 * affinity-planted.h - a planted affinity graph for the plan tests: 8 tight
 * groups of 12 logical threads, linked in pairs (what an LLC should share)
 * and in fours (what a node should share). The groups' logical threads are
 * scattered over the ids (a fixed permutation, id_of()), so the static
 * split cuts them and only a partition keeps them together.
 */
#ifndef XS_TEST_AFFINITY_PLANTED_H
#define XS_TEST_AFFINITY_PLANTED_H

#include <stdlib.h>
#include "affinity/affinity.h"

#define GROUPS 8
#define PER 12
#define T (GROUPS * PER)

static uint64_t eoff[256];
static uint32_t th[4096];
static uint64_t ne, nent;

static inline void edge_begin(void)
{
	eoff[ne] = nent;
}

/* Logical thread t of the planted groups is id (t * 37) mod T (37 is
 * prime to T): neighbours in a group are far apart in id. */
static inline uint32_t id_of(uint32_t t)
{
	return t * 37 % T;
}

static inline void edge_add(uint32_t t)
{
	uint32_t i = nent;

	th[nent++] = id_of(t);
	/* Each hyperedge's threads increase. */
	while (i > eoff[ne] && th[i - 1] > th[i]) {
		uint32_t x = th[i - 1];

		th[i - 1] = th[i];
		th[i] = x;
		i--;
	}
}

static inline void edge_end(void)
{
	eoff[++ne] = nent;
}

static inline void planted(const char *path)
{
	static uint32_t vw[T];
	struct xs_aff_hgraph h = { .n = T, .granule = 1, .nthreads = T, .vweight = vw,
				   .eoff = eoff, .ethreads = th };

	for (uint32_t t = 0; t < T; t++)
		vw[t] = 10;
	for (uint32_t g = 0; g < GROUPS; g++)
		for (int r = 0; r < 10; r++) {
			edge_begin();
			for (uint32_t i = 0; i < PER; i++)
				edge_add(g * PER + i);
			edge_end();
		}
	for (uint32_t a = 0; a < GROUPS / 2; a++)
		for (int r = 0; r < 3; r++) {
			edge_begin();
			for (uint32_t g = 2 * a; g < 2 * a + 2; g++)
				for (uint32_t i = 0; i < 4; i++)
					edge_add(g * PER + i);
			edge_end();
		}
	for (uint32_t b = 0; b < GROUPS / 4; b++) {
		edge_begin();
		for (uint32_t g = 4 * b; g < 4 * b + 4; g++)
			for (uint32_t i = 4; i < 6; i++)
				edge_add(g * PER + i);
		edge_end();
	}
	h.nedges = ne;
	h.nentries = nent;
	if (xs_aff_hgraph_write(path, &h))
		abort();
}

#endif
