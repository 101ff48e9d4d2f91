// SPDX-License-Identifier: MIT
/*
 * hash_table.c - reading back the synchronization server's hash table.
 */
#include <errno.h>
#include <stdlib.h>

#include "hash_table.h"

struct pair {
	uint32_t k;
	int64_t v;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

int32_t xs_hash_table_collect(const uint32_t *keys, const int64_t *vals,
			      int32_t capacity, uint32_t *out_keys,
			      int64_t *out_vals)
{
	struct pair *pairs = malloc(sizeof(*pairs) * ((size_t)capacity + 1));
	int32_t i, m = 0;

	if (!pairs)
		return -ENOMEM;
	for (i = 0; i < capacity; i++)
		if (keys[i] != XS_EMPTY_KEY)
			pairs[m++] = (struct pair){ keys[i], vals[i] };
	qsort(pairs, (size_t)m, sizeof(*pairs), pair_cmp);
	for (i = 0; i < m; i++) {
		out_keys[i] = pairs[i].k;
		out_vals[i] = pairs[i].v;
	}
	free(pairs);
	return m;
}
