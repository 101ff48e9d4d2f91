/* SPDX-License-Identifier: MIT */
/*
 * tree-mix.h - the random numbers of the tests' random spawn trees: a
 * node's value and its children's seeds come from its seed alone, so a
 * serial walk computes the checksum every schedule must reproduce.
 */
#ifndef XSCHED_TESTS_TREE_MIX_H
#define XSCHED_TESTS_TREE_MIX_H

#include <stdint.h>

/* splitmix64's step and finaliser: the value of a node from its seed. */
static inline uint64_t tree_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif /* XSCHED_TESTS_TREE_MIX_H */
