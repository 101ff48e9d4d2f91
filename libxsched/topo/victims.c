// SPDX-License-Identifier: MIT
/*
 * victims.c - per-CPU victim tables derived from the topology.
 *
 * Row r lists every other usable CPU v exactly once, sorted by
 *
 *   (class, distance, node rotation, member rotation)
 *
 *   class           SMT < LLC < NODE < REMOTE (nested: see topology.h)
 *   distance        SLIT distance node(r) -> node(v); differs only in REMOTE
 *   node rotation   the k remote nodes at one distance, in node order,
 *                   starting with the (node(r) mod k)-th: on a symmetric
 *                   machine the nodes of one socket each prefer a different
 *                   node of the other socket
 *   member rotation a bucket is the victims of one class on one node; its
 *                   members, in cpu order, are taken starting at position
 *                   rank(r) mod |bucket|, where rank(r) is r's position among
 *                   the CPUs of its own group at that level (its core for
 *                   SMT, its LLC for LLC, its node for NODE and REMOTE).
 *                   Without SMT that starts the same-LLC victims right after
 *                   r itself; across groups it spreads the thieves of one
 *                   group over the victims of another, so that not every
 *                   thief hits the same victim first.
 *
 * Weight (the daemon may later re-weight by load; readers must not assume
 * these exact values):
 *
 *   weight = XS_VICTIM_WEIGHT(cost) = 10240 / cost, cost in SLIT units:
 *   SMT 2, LLC 5, NODE 10, REMOTE max(SLIT distance, 11)
 *
 * so a same-node victim weighs 1024, weights strictly decrease from class to
 * class and with distance (21 -> 487, 255 -> 40), and victims of equal cost
 * weigh the same: within a bucket the order, not the weight, breaks ties.
 * Invariant of every row: weights are non-increasing along the row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topology.h"

#define COST_SMT 2u
#define COST_LLC 5u
#define COST_NODE 10u
#define COST_REMOTE_MIN 11u

struct entry {
	uint64_t key; /* class:2 | distance:8 | node index:8 | cpu index:16 */
	uint32_t idx;
};

#define KEY_GROUP_SHIFT 24  /* key >> this identifies (class, distance) */
#define KEY_BUCKET_SHIFT 16 /* key >> this identifies (class, distance, node) */

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static enum xs_victim_class victim_class(const struct xs_cpu_info *r,
					 const struct xs_cpu_info *v)
{
	if (r->node != v->node)
		return XS_VICTIM_REMOTE;
	if (r->core_group == v->core_group)
		return XS_VICTIM_SMT;
	if (r->llc == v->llc)
		return XS_VICTIM_LLC;
	return XS_VICTIM_NODE;
}

static uint32_t victim_cost(const struct xs_topology *topo, uint32_t r, uint32_t v,
			    enum xs_victim_class cls)
{
	uint32_t d;

	switch (cls) {
	case XS_VICTIM_SMT:
		return COST_SMT;
	case XS_VICTIM_LLC:
		return COST_LLC;
	case XS_VICTIM_NODE:
		return COST_NODE;
	default:
		d = topo->distance[topo->cpus[r].node][topo->cpus[v].node];
		return d < COST_REMOTE_MIN ? COST_REMOTE_MIN : d;
	}
}

/*
 * rank[level][i]: position of CPU index i among the CPUs (in index order)
 * that share its core (level 0), LLC (1), node (2).
 */
static int compute_ranks(const struct xs_topology *topo, uint32_t *rank[3])
{
	uint32_t n = topo->ncpus, *seen;

	seen = calloc(n, sizeof(*seen)); /* groups per level are at most ncpus */
	if (!seen)
		return -ENOMEM;
	for (int level = 0; level < 3; level++) {
		memset(seen, 0, n * sizeof(*seen));
		for (uint32_t i = 0; i < n; i++) {
			const struct xs_cpu_info *c = &topo->cpus[i];
			uint32_t g = level == 0 ? c->core_group : level == 1 ? c->llc : c->node;

			rank[level][i] = seen[g]++;
		}
	}
	free(seen);
	return 0;
}

static void rotate(struct entry *e, uint32_t len, uint32_t by, struct entry *tmp)
{
	by %= len;
	if (!by)
		return;
	memcpy(tmp, e, by * sizeof(*e));
	memmove(e, e + by, (len - by) * sizeof(*e));
	memcpy(e + len - by, tmp, by * sizeof(*e));
}

static void build_row(const struct xs_topology *topo, uint32_t r, uint32_t *rank[3],
		      struct entry *e, struct entry *tmp, struct xs_victim *row)
{
	const struct xs_cpu_info *rc = &topo->cpus[r];
	uint32_t n = topo->ncpus, len = 0;

	for (uint32_t v = 0; v < n; v++) {
		const struct xs_cpu_info *vc = &topo->cpus[v];
		uint64_t cls, d;

		if (v == r)
			continue;
		cls = victim_class(rc, vc);
		d = topo->distance[rc->node][vc->node];
		e[len].key = cls << 32 | d << 24 | (uint64_t)vc->node << 16 | v;
		e[len++].idx = v;
	}
	qsort(e, len, sizeof(*e), cmp_entry);

	/* each (class, distance) group: rotate its node buckets, then itself */
	for (uint32_t g = 0, gend = 0; g < len; g = gend) {
		enum xs_victim_class cls = (enum xs_victim_class)(e[g].key >> 32);
		uint32_t level = cls == XS_VICTIM_SMT ? 0 : cls == XS_VICTIM_LLC ? 1 : 2;
		uint32_t starts[XS_MAX_NODES], k = 0;

		for (uint32_t b = g, end; b < len &&
		     e[b].key >> KEY_GROUP_SHIFT == e[g].key >> KEY_GROUP_SHIFT; b = end) {
			for (end = b + 1; end < len &&
			     e[end].key >> KEY_BUCKET_SHIFT == e[b].key >> KEY_BUCKET_SHIFT; end++)
				;
			rotate(e + b, end - b, rank[level][r], tmp);
			starts[k++] = b; /* one bucket per node: k <= nnodes */
			gend = end;
		}
		rotate(e + g, gend - g, starts[rc->node % k] - g, tmp);
		for (uint32_t i = g; i < gend; i++) {
			row[i].cpu_index = e[i].idx;
			row[i].class = (uint16_t)cls;
			row[i].weight = XS_VICTIM_WEIGHT(victim_cost(topo, r, e[i].idx, cls));
		}
	}
}

struct xs_victim_table *xs_victim_table_build(const struct xs_topology *topo)
{
	struct xs_victim_table *vt = NULL;
	struct entry *e = NULL, *tmp = NULL;
	uint32_t *rank[3] = { NULL, NULL, NULL };
	uint32_t n;
	int ret = -EINVAL;

	if (!topo || !topo->ncpus || topo->ncpus > XS_MAX_CPUS)
		goto out;
	n = topo->ncpus;
	ret = -ENOMEM;
	vt = calloc(1, sizeof(*vt));
	e = calloc(n, sizeof(*e));
	tmp = calloc(n, sizeof(*tmp));
	for (int l = 0; l < 3; l++)
		rank[l] = calloc(n, sizeof(*rank[l]));
	if (!vt || !e || !tmp || !rank[0] || !rank[1] || !rank[2])
		goto out;
	vt->ncpus = n;
	vt->row_len = n - 1;
	if (vt->row_len) {
		vt->victims = calloc((size_t)n * vt->row_len, sizeof(*vt->victims));
		if (!vt->victims)
			goto out;
	}
	ret = compute_ranks(topo, rank);
	if (ret)
		goto out;
	for (uint32_t r = 0; r < n && vt->row_len; r++)
		build_row(topo, r, rank, e, tmp, vt->victims + (size_t)r * vt->row_len);
	/* compute_ranks() left ret == 0; debug builds check the invariants */
#ifdef XS_DEBUG
	ret = xs_victim_table_check(vt);
#endif
out:
	free(e);
	free(tmp);
	for (int l = 0; l < 3; l++)
		free(rank[l]);
	if (ret) {
		xs_victim_table_free(vt);
		errno = -ret;
		return NULL;
	}
	return vt;
}

int xs_victim_table_check(const struct xs_victim_table *vt)
{
	uint32_t *seen, n;
	int ret = -EINVAL;

	if (!vt || !vt->ncpus || vt->ncpus > XS_MAX_CPUS || vt->row_len != vt->ncpus - 1 ||
	    (vt->row_len && !vt->victims))
		return -EINVAL;
	n = vt->ncpus;
	/* seen[v] == r + 1: v already listed in row r; no clearing per row */
	seen = calloc(n, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (uint32_t r = 0; r < n; r++) {
		const struct xs_victim *row = xs_victim_row(vt, r);

		for (uint32_t k = 0; k < vt->row_len; k++) {
			uint32_t v = row[k].cpu_index;

			if (v >= n || v == r || seen[v] == r + 1 ||
			    row[k].class > XS_VICTIM_REMOTE || !row[k].weight)
				goto out;
			seen[v] = r + 1;
		}
	}
	ret = 0;
out:
	free(seen);
	return ret;
}

void xs_victim_table_free(struct xs_victim_table *vt)
{
	if (!vt)
		return;
	free(vt->victims);
	free(vt);
}
