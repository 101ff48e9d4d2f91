// SPDX-License-Identifier: MIT
/*
 * reweight.c - victim tables re-weighted by load.
 *
 * The rows come from libxsched's own builder (victims.c: same core, same
 * LLC, same node, then nodes by distance, with weights 10240 / cost). Each
 * tick scales the weight of every victim by how much of its CPU is free of
 * foreign work, in 32 levels:
 *
 *   level  = min(load, 999) * 32 / 1000          (0 = idle .. 31 = busy)
 *   weight = max(1, static weight * (32 - level) / 32)
 *
 * and sorts each row by weight, highest first, ties in the static order.
 * A busy CPU sinks: at level 31 a same-LLC victim (2048) weighs 64 and a
 * same-node one 32, below an idle remote one at the usual SLIT distances
 * (487 at 21, 320 at 32); victims at equal weight keep their topological
 * order. Rows are
 * rebuilt only when some CPU's level changed, so a steady machine costs a
 * comparison per CPU per tick.
 */
#include <stdlib.h>
#include <string.h>

#include "xschedd.h"

#define XSD_LEVELS 32u

/* The published rows are libxsched's rows, re-ordered: same entry layout. */
_Static_assert(sizeof(struct xs_victim) == sizeof(struct xs_abi_victim) &&
		       __builtin_offsetof(struct xs_victim, weight) ==
			       __builtin_offsetof(struct xs_abi_victim, weight),
	       "struct xs_victim and struct xs_abi_victim differ");

static uint32_t xsd_level(uint32_t permille)
{
	return (permille > 999 ? 999 : permille) * XSD_LEVELS / 1000;
}

uint16_t xsd_victim_weight(uint16_t w, uint32_t permille)
{
	uint32_t v = (uint32_t)w * (XSD_LEVELS - xsd_level(permille)) / XSD_LEVELS;

	return (uint16_t)(v ? v : 1);
}

/* Sort key: weight descending, then position in the static row. */
struct xsd_entry {
	uint32_t key;
	uint32_t pos;
};

static int xsd_cmp(const void *a, const void *b)
{
	const struct xsd_entry *x = a, *y = b;

	return (x->key < y->key) - (x->key > y->key);
}

void xsd_victims_reweight(const struct xs_victim_table *base, const uint32_t *load,
			  uint8_t *level, struct xs_abi_victim *out)
{
	uint32_t n = base->ncpus, len = base->row_len;
	struct xsd_entry *e;
	bool changed = false;

	for (uint32_t c = 0; c < n; c++) {
		if (level[c] != xsd_level(load[c]))
			changed = true;
		level[c] = (uint8_t)xsd_level(load[c]);
	}
	if (!changed || !len)
		return;
	e = malloc(len * sizeof(*e));
	if (!e) {
		memset(level, 0xff, n); /* try again next tick */
		return;
	}
	for (uint32_t r = 0; r < n; r++) {
		const struct xs_victim *row = xs_victim_row(base, r);
		struct xs_abi_victim *o = out + (size_t)r * len;

		for (uint32_t k = 0; k < len; k++) {
			e[k].key = xsd_victim_weight(row[k].weight, load[row[k].cpu_index]);
			e[k].pos = k;
		}
		/* positions are distinct, so qsort's instability cannot show */
		for (uint32_t k = 0; k < len; k++)
			e[k].key = e[k].key << 16 | (0xffffu - e[k].pos);
		qsort(e, len, sizeof(*e), xsd_cmp);
		for (uint32_t k = 0; k < len; k++) {
			const struct xs_victim *v = &row[e[k].pos];

			o[k].cpu_index = v->cpu_index;
			o[k].locality = v->class;
			o[k].weight = (uint16_t)(e[k].key >> 16);
		}
	}
	free(e);
}
