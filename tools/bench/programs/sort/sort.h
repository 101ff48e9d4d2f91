/* SPDX-License-Identifier: MIT */
/*
 * sort.h - BOTS multisort (Cilk's cilksort): sort n ints.
 *
 * cilksort(A, tmp, n): below SORT_QUICK_CUTOFF elements, quicksort (with
 * insertion sort below SORT_INSERTION_CUTOFF); otherwise split into four
 * quarters, sort them as 4 tasks, wait, merge pairs into tmp as 2 tasks,
 * wait, and merge tmp back into A with a direct call.
 * cilkmerge: below SORT_MERGE_CUTOFF elements in the smaller range, a
 * sequential merge; otherwise split both ranges at the median of the larger
 * (binary search in the smaller), merge both halves as 2 tasks, wait.
 * The cut-offs are BOTS's defaults. The serial version is the same recursion
 * with calls for spawns.
 *
 * Input: 0..n-1 shuffled (BOTS's fill_array + scramble_array, with
 * splitmix64 for BOTS's LCG), so the sorted result is 0..n-1.
 * n = 2^24 (64 MiB of data plus as much scratch).
 */
#ifndef XSCHED_BENCH_SORT_H
#define XSCHED_BENCH_SORT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define SORT_QUICK_CUTOFF 2048
#define SORT_MERGE_CUTOFF 2048
#define SORT_INSERTION_CUTOFF 20

typedef int sort_elm;

struct sort_state {
	long n;
	sort_elm *a;		/* sorted in place */
	sort_elm *tmp;		/* scratch, n elements */
	sort_elm *input;	/* the shuffled input, copied to a before a run */
	uint64_t spawns;	/* counted by the serial version */
};

BENCH_C_LINKAGE void sort_tbb(void *st);

static inline sort_elm sort_med3(sort_elm a, sort_elm b, sort_elm c)
{
	if (a < b)
		return b < c ? b : (a < c ? c : a);
	return b > c ? b : (a > c ? c : a);
}

static inline sort_elm *sort_partition(sort_elm *low, sort_elm *high)
{
	sort_elm pivot = sort_med3(*low, *high, low[(high - low) / 2]);
	sort_elm *lo = low, *hi = high;
	sort_elm h, l;

	for (;;) {
		while ((h = *hi) > pivot)
			hi--;
		while ((l = *lo) < pivot)
			lo++;
		if (lo >= hi)
			break;
		*hi-- = l;
		*lo++ = h;
	}
	/* a trivial partition leaves *high, the largest, on the right */
	return hi < high ? hi : hi - 1;
}

static inline void sort_insertion(sort_elm *low, sort_elm *high)
{
	for (sort_elm *q = low + 1; q <= high; ++q) {
		sort_elm a = *q;
		sort_elm *p;

		for (p = q - 1; p >= low && *p > a; p--)
			p[1] = *p;
		p[1] = a;
	}
}

/* Sort [low, high]. */
static inline void sort_quick(sort_elm *low, sort_elm *high)
{
	while (high - low >= SORT_INSERTION_CUTOFF) {
		sort_elm *p = sort_partition(low, high);

		sort_quick(low, p);
		low = p + 1;
	}
	sort_insertion(low, high);
}

/* Merge [low1, high1] and [low2, high2] into lowdest (BOTS seqmerge). */
static inline void sort_merge_seq(sort_elm *low1, sort_elm *high1,
				  sort_elm *low2, sort_elm *high2,
				  sort_elm *lowdest)
{
	sort_elm a1, a2;

	/* fast loop: stops one short of either end, so loads stay in range */
	if (low1 < high1 && low2 < high2) {
		a1 = *low1;
		a2 = *low2;
		for (;;) {
			if (a1 < a2) {
				*lowdest++ = a1;
				a1 = *++low1;
				if (low1 >= high1)
					break;
			} else {
				*lowdest++ = a2;
				a2 = *++low2;
				if (low2 >= high2)
					break;
			}
		}
	}
	if (low1 <= high1 && low2 <= high2) {
		a1 = *low1;
		a2 = *low2;
		for (;;) {
			if (a1 < a2) {
				*lowdest++ = a1;
				if (++low1 > high1)
					break;
				a1 = *low1;
			} else {
				*lowdest++ = a2;
				if (++low2 > high2)
					break;
				a2 = *low2;
			}
		}
	}
	if (low1 > high1)
		memcpy(lowdest, low2, sizeof(sort_elm) * (size_t)(high2 - low2 + 1));
	else
		memcpy(lowdest, low1, sizeof(sort_elm) * (size_t)(high1 - low1 + 1));
}

/* The last element of [low, high] that is <= val, or low - 1. */
static inline sort_elm *sort_binsplit(sort_elm val, sort_elm *low,
				      sort_elm *high)
{
	while (low != high) {
		sort_elm *mid = low + ((high - low + 1) >> 1);

		if (val <= *mid)
			high = mid - 1;
		else
			low = mid;
	}
	return *low > val ? low - 1 : low;
}

/*
 * One level of cilkmerge. Returns 1 when the merge is done (small or empty
 * smaller range), 0 when the caller must merge the two halves
 * h[0] = [low1, high1] + [low2, high2] -> lowdest and h[1] likewise.
 */
struct sort_merge_args {
	sort_elm *low1, *high1, *low2, *high2, *lowdest;
};

static inline int sort_merge_split(struct sort_merge_args m,
				   struct sort_merge_args h[2])
{
	if (m.high2 - m.low2 > m.high1 - m.low1) {
		sort_elm *t = m.low1;

		m.low1 = m.low2;
		m.low2 = t;
		t = m.high1;
		m.high1 = m.high2;
		m.high2 = t;
	}
	if (m.high2 < m.low2) {	/* the smaller range is empty */
		memcpy(m.lowdest, m.low1,
		       sizeof(sort_elm) * (size_t)(m.high1 - m.low1 + 1));
		return 1;
	}
	if (m.high2 - m.low2 < SORT_MERGE_CUTOFF) {
		sort_merge_seq(m.low1, m.high1, m.low2, m.high2, m.lowdest);
		return 1;
	}
	sort_elm *split1 = m.low1 + (m.high1 - m.low1 + 1) / 2;
	sort_elm *split2 = sort_binsplit(*split1, m.low2, m.high2);
	long lowsize = (long)(split1 - m.low1) + (long)(split2 - m.low2);

	/* the median goes straight to its place between the halves */
	m.lowdest[lowsize + 1] = *split1;
	h[0].low1 = m.low1;
	h[0].high1 = split1 - 1;
	h[0].low2 = m.low2;
	h[0].high2 = split2;
	h[0].lowdest = m.lowdest;
	h[1].low1 = split1 + 1;
	h[1].high1 = m.high1;
	h[1].low2 = split2 + 1;
	h[1].high2 = m.high2;
	h[1].lowdest = m.lowdest + lowsize + 2;
	return 0;
}

static inline void sort_merge_serial(struct sort_merge_args m, uint64_t *spawns)
{
	struct sort_merge_args h[2];

	if (sort_merge_split(m, h))
		return;
	*spawns += 2;
	sort_merge_serial(h[0], spawns);
	sort_merge_serial(h[1], spawns);
}

/* The three merges of a cilksort level of @size elements at @low. */
static inline void sort_level_merges(sort_elm *low, sort_elm *tmp, long size,
				     struct sort_merge_args m[3])
{
	long q = size / 4;
	sort_elm *A = low, *B = A + q, *C = B + q, *D = C + q;
	sort_elm *tmpA = tmp, *tmpC = tmp + 2 * q;

	m[0].low1 = A, m[0].high1 = A + q - 1;
	m[0].low2 = B, m[0].high2 = B + q - 1, m[0].lowdest = tmpA;
	m[1].low1 = C, m[1].high1 = C + q - 1;
	m[1].low2 = D, m[1].high2 = low + size - 1, m[1].lowdest = tmpC;
	m[2].low1 = tmpA, m[2].high1 = tmpC - 1;
	m[2].low2 = tmpC, m[2].high2 = tmpA + size - 1, m[2].lowdest = A;
}

static inline void sort_cilksort_serial(sort_elm *low, sort_elm *tmp,
					long size, uint64_t *spawns)
{
	long q = size / 4;
	struct sort_merge_args m[3];

	if (size < SORT_QUICK_CUTOFF) {
		sort_quick(low, low + size - 1);
		return;
	}
	*spawns += 6;
	sort_cilksort_serial(low, tmp, q, spawns);
	sort_cilksort_serial(low + q, tmp + q, q, spawns);
	sort_cilksort_serial(low + 2 * q, tmp + 2 * q, q, spawns);
	sort_cilksort_serial(low + 3 * q, tmp + 3 * q, size - 3 * q, spawns);
	sort_level_merges(low, tmp, size, m);
	sort_merge_serial(m[0], spawns);
	sort_merge_serial(m[1], spawns);
	sort_merge_serial(m[2], spawns);
}

static inline void sort_teardown(void *p)
{
	struct sort_state *st = (struct sort_state *)p;

	free(st->a);
	free(st->tmp);
	free(st->input);
	free(st);
}

static inline void *sort_setup(long n)
{
	struct sort_state *st = (struct sort_state *)calloc(1, sizeof(*st));
	uint64_t r = 1;

	if (!st)
		return NULL;
	st->n = n;
	st->a = (sort_elm *)malloc(sizeof(sort_elm) * (size_t)n);
	st->tmp = (sort_elm *)malloc(sizeof(sort_elm) * (size_t)n);
	st->input = (sort_elm *)malloc(sizeof(sort_elm) * (size_t)n);
	if (!st->a || !st->tmp || !st->input) {
		sort_teardown(st);
		errno = ENOMEM;
		return NULL;
	}
	for (long i = 0; i < n; i++)
		st->input[i] = (sort_elm)i;
	for (long i = 0; i < n; i++) {
		long j = (long)((r = bench_mix64(r)) % (uint64_t)n);
		sort_elm t = st->input[i];

		st->input[i] = st->input[j];
		st->input[j] = t;
	}
	memset(st->tmp, 0, sizeof(sort_elm) * (size_t)n);	/* fault it in */
	return st;
}

static inline void sort_reset(void *p)
{
	struct sort_state *st = (struct sort_state *)p;

	memcpy(st->a, st->input, sizeof(sort_elm) * (size_t)st->n);
}

static inline void sort_serial(void *p)
{
	struct sort_state *st = (struct sort_state *)p;

	st->spawns = 0;
	sort_cilksort_serial(st->a, st->tmp, st->n, &st->spawns);
}

static inline uint64_t sort_checksum(const void *p)
{
	const struct sort_state *st = (const struct sort_state *)p;
	uint64_t h = 0;

	for (long i = 0; i < st->n; i++)
		h = h * 0x100000001b3ull + (uint32_t)st->a[i];
	return h;
}

static inline int sort_verify(const void *p, char *why, int len)
{
	const struct sort_state *st = (const struct sort_state *)p;

	for (long i = 0; i < st->n; i++) {
		if (st->a[i] != (sort_elm)i) {
			snprintf(why, (size_t)len, "a[%ld] = %d, expected %ld",
				 i, st->a[i], i);
			return -EINVAL;
		}
	}
	return 0;
}

static inline uint64_t sort_tasks(const void *p)
{
	return ((const struct sort_state *)p)->spawns;
}

#ifndef __cplusplus
static const struct bench_problem sort_problem = {
	.name = "sort",
	.doc = "BOTS multisort (cilksort + parallel merge) of n ints",
	.n_default = 1L << 24,
	.n_quick = 1L << 16,
	.n_min = 4,
	.n_max = 1L << 28,
	.setup = sort_setup,
	.teardown = sort_teardown,
	.reset = sort_reset,
	.serial = sort_serial,
	.checksum = sort_checksum,
	.verify = sort_verify,
	.tasks = sort_tasks,
};
#endif

#endif /* XSCHED_BENCH_SORT_H */
