// SPDX-License-Identifier: MIT
/*
 * affinity_plan.c - an affinity schedule from an affinity graph: METIS
 * partitions the logical threads recursively along the machine, the way
 * the seed's Section 3.1 does with Chaco: first among the NUMA nodes, then
 * within each node among its LLCs, then among the cores of an LLC, then
 * among the workers of a core (SMT siblings). At each level the parts'
 * target weights are proportional to the workers under them. A level with
 * a single group is skipped. Within a worker's part the logical threads are
 * ordered breadth-first over the part's subgraph (the seed's IRREG
 * reordering: threads that share data run one after the other) where that
 * adds reuse between neighbours over ascending order, else ascending.
 *
 * The partition pays only where it keeps sharing inside a cache domain
 * (an LLC of a node); its price is the program's own locality (streamed
 * per-iteration data, which no address shares) and a schedule replayed by
 * lookup. So where the workers share one cache domain, or METIS keeps no
 * more than a tenth of the static split's cross-domain weight inside the
 * domains, the plan is the static split itself (identity order, xs_block's
 * blocks): the replay then equals the hybrid schedule, never slower than
 * static by more than its dynamic tail.
 *
 * Not part of libxsched: it is what links -lmetis, and only the planner
 * (xsched-affinity) and the benchmarks need it.
 */
#include <errno.h>
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "affinity/affinity.h"

enum { XS_LVL_NODE, XS_LVL_LLC, XS_LVL_CORE, XS_LVL_WORKER, XS_NLVL };

struct xs_plan {
	const struct xs_aff_graph *g;
	const struct xs_aff_machine *m;
	uint32_t *owner;   /* vertex -> worker */
	int64_t *local;    /* vertex -> index in the current subgraph, or -1 */
	idx_t *vwgt;       /* scaled vertex weights (idx_t sums must not overflow) */
	int ret;
};

static uint32_t xs_key(const struct xs_aff_machine *m, int level, uint32_t w)
{
	switch (level) {
	case XS_LVL_NODE:
		return m->node[w];
	case XS_LVL_LLC:
		return m->llc[w];
	case XS_LVL_CORE:
		return m->core[w];
	default:
		return w;
	}
}

/* Split @nv vertices @v into @k parts with target fractions @tp: part[]. */
static int xs_metis_split(struct xs_plan *p, const uint32_t *v, uint32_t nv, uint32_t k,
			  real_t *tp, idx_t *part)
{
	const struct xs_aff_graph *g = p->g;
	idx_t *xadj = NULL, *adj = NULL, *wgt = NULL, *vw = NULL;
	idx_t n = (idx_t)nv, ncon = 1, nparts = (idx_t)k, obj = 0;
	idx_t options[METIS_NOPTIONS];
	real_t ub = 1.03f;
	uint64_t ne = 0;
	int ret = -ENOMEM, r;

	if (nv <= k) { /* nothing to partition: one each */
		for (uint32_t i = 0; i < nv; i++)
			part[i] = (idx_t)i;
		return 0;
	}
	for (uint32_t i = 0; i < nv; i++)
		p->local[v[i]] = i;
	for (uint32_t i = 0; i < nv; i++)
		for (uint64_t e = g->xadj[v[i]]; e < g->xadj[v[i] + 1]; e++)
			ne += p->local[g->adj[e]] >= 0;
	xadj = malloc(((size_t)nv + 1) * sizeof(*xadj));
	adj = malloc((ne ? ne : 1) * sizeof(*adj));
	wgt = malloc((ne ? ne : 1) * sizeof(*wgt));
	vw = malloc((size_t)nv * sizeof(*vw));
	if (!xadj || !adj || !wgt || !vw)
		goto out;
	ne = 0;
	xadj[0] = 0;
	for (uint32_t i = 0; i < nv; i++) {
		for (uint64_t e = g->xadj[v[i]]; e < g->xadj[v[i] + 1]; e++) {
			int64_t l = p->local[g->adj[e]];

			if (l < 0)
				continue;
			adj[ne] = (idx_t)l;
			wgt[ne++] = (idx_t)(g->w[e] < (uint32_t)IDX_MAX ? g->w[e] : IDX_MAX);
		}
		xadj[i + 1] = (idx_t)ne;
		vw[i] = p->vwgt[v[i]];
	}
	METIS_SetDefaultOptions(options);
	options[METIS_OPTION_SEED] = 1;
	options[METIS_OPTION_NUMBERING] = 0;
	r = METIS_PartGraphRecursive(&n, &ncon, xadj, adj, vw, NULL, wgt, &nparts, tp, &ub,
				     options, &obj, part);
	if (r != METIS_OK) {
		fprintf(stderr, "xsched: affinity: METIS_PartGraphRecursive failed (%d) on %u "
			"vertices into %u parts\n", r, nv, k);
		ret = -EIO;
		goto out;
	}
	ret = 0;
out:
	for (uint32_t i = 0; i < nv; i++)
		p->local[v[i]] = -1;
	free(xadj);
	free(adj);
	free(wgt);
	free(vw);
	return ret;
}

/* Give vertices @v to workers @w, starting at @level. */
static void xs_plan_rec(struct xs_plan *p, uint32_t *v, uint32_t nv, uint32_t *w, uint32_t nw,
			int level)
{
	uint32_t *gkey = NULL, *gsize = NULL, *gstart = NULL, *wtmp = NULL, *vtmp = NULL;
	uint32_t ng = 0;
	real_t *tp = NULL;
	idx_t *part = NULL;

	if (p->ret)
		return;
	if (nw == 1) {
		for (uint32_t i = 0; i < nv; i++)
			p->owner[v[i]] = w[0];
		return;
	}
	gkey = malloc(nw * sizeof(*gkey));
	gsize = calloc(nw, sizeof(*gsize));
	gstart = calloc(nw + 1, sizeof(*gstart));
	wtmp = malloc(nw * sizeof(*wtmp));
	if (!gkey || !gsize || !gstart || !wtmp) {
		p->ret = -ENOMEM;
		goto out;
	}
	/* The first level at which the workers fall into several groups. */
	for (; level < XS_NLVL; level++) {
		ng = 0;
		for (uint32_t i = 0; i < nw; i++) {
			uint32_t key = xs_key(p->m, level, w[i]), g = 0;

			while (g < ng && gkey[g] != key)
				g++;
			if (g == ng)
				gkey[ng++] = key;
			gsize[g]++;
		}
		if (ng > 1)
			break;
		memset(gsize, 0, nw * sizeof(*gsize));
	}
	for (uint32_t g = 0; g < ng; g++)
		gstart[g + 1] = gstart[g] + gsize[g];
	/* Workers grouped, in their order within each group. */
	memset(gsize, 0, nw * sizeof(*gsize));
	for (uint32_t i = 0; i < nw; i++) {
		uint32_t key = xs_key(p->m, level, w[i]), g = 0;

		while (gkey[g] != key)
			g++;
		wtmp[gstart[g] + gsize[g]++] = w[i];
	}
	memcpy(w, wtmp, nw * sizeof(*w));
	tp = malloc(ng * sizeof(*tp));
	part = malloc((nv ? nv : 1) * sizeof(*part));
	vtmp = malloc((nv ? nv : 1) * sizeof(*vtmp));
	if (!tp || !part || !vtmp) {
		p->ret = -ENOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < ng; g++)
		tp[g] = (real_t)gsize[g] / (real_t)nw;
	p->ret = xs_metis_split(p, v, nv, ng, tp, part);
	if (p->ret)
		goto out;
	{
		uint32_t *vcnt = calloc(ng + 1, sizeof(*vcnt)), *vfill = calloc(ng, sizeof(*vfill));

		if (!vcnt || !vfill) {
			free(vcnt);
			free(vfill);
			p->ret = -ENOMEM;
			goto out;
		}
		for (uint32_t i = 0; i < nv; i++)
			vcnt[part[i] + 1]++;
		for (uint32_t g = 0; g < ng; g++)
			vcnt[g + 1] += vcnt[g];
		for (uint32_t i = 0; i < nv; i++)
			vtmp[vcnt[part[i]] + vfill[part[i]]++] = v[i];
		memcpy(v, vtmp, nv * sizeof(*v));
		for (uint32_t g = 0; g < ng && !p->ret; g++)
			xs_plan_rec(p, v + vcnt[g], vcnt[g + 1] - vcnt[g], w + gstart[g], gsize[g],
				    level + 1);
		free(vcnt);
		free(vfill);
	}
out:
	free(gkey);
	free(gsize);
	free(gstart);
	free(wtmp);
	free(vtmp);
	free(tp);
	free(part);
}

/* Weight of edge (u, v) of @g, 0 if none (adj is increasing per vertex). */
static uint64_t xs_edge_w(const struct xs_aff_graph *g, uint32_t u, uint32_t v)
{
	uint64_t lo = g->xadj[u], hi = g->xadj[u + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (g->adj[mid] == v)
			return g->w[mid];
		if (g->adj[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Reuse of an order: the weight shared by each logical thread with the
 * one run just before it. */
static uint64_t xs_reuse(const struct xs_aff_graph *g, const uint32_t *q, uint32_t len)
{
	uint64_t r = 0;

	for (uint32_t i = 1; i < len; i++)
		r += xs_edge_w(g, q[i - 1], q[i]);
	return r;
}

/*
 * Each worker's part breadth-first (roots by increasing id) where that
 * shares at least @gain times the weight between neighbours that
 * ascending order shares, else ascending: ascending keeps the program's
 * own order (the streaming of per-iteration data the graph does not show:
 * nothing is shared there) and runs of consecutive iterations the replay
 * hands out as one range. Returns the number of parts ordered
 * breadth-first, or -ENOMEM.
 */
static int xs_plan_order(const struct xs_aff_graph *g, const uint32_t *owner, uint32_t nworkers,
			 double gain, struct xs_affinity_map *out)
{
	uint32_t *fill = calloc(nworkers, sizeof(*fill));
	uint32_t *asc = malloc((size_t)g->nv * sizeof(*asc));
	uint8_t *seen = calloc(g->nv, 1);
	int nbfs = 0;

	if (!fill || !seen || !asc) {
		free(fill);
		free(seen);
		free(asc);
		return -ENOMEM;
	}
	for (uint32_t u = 0; u < g->nv; u++)
		out->start[owner[u] + 1]++;
	for (uint32_t w = 0; w < nworkers; w++)
		out->start[w + 1] += out->start[w];
	for (uint32_t u = 0; u < g->nv; u++)
		asc[out->start[owner[u]] + fill[owner[u]]++] = u;
	memset(fill, 0, nworkers * sizeof(*fill));
	for (uint32_t r = 0; r < g->nv; r++) {
		uint32_t w = owner[r], *q = out->order + out->start[w], head = fill[w];

		if (seen[r])
			continue;
		seen[r] = 1;
		q[fill[w]++] = r;
		/* The worker's slice of order is the queue. */
		while (head < fill[w]) {
			uint32_t u = q[head++];

			for (uint64_t e = g->xadj[u]; e < g->xadj[u + 1]; e++) {
				uint32_t v = g->adj[e];

				if (seen[v] || owner[v] != w)
					continue;
				seen[v] = 1;
				q[fill[w]++] = v;
			}
		}
	}
	for (uint32_t w = 0; w < nworkers; w++) {
		uint32_t a = out->start[w], len = out->start[w + 1] - a;
		uint64_t rb = xs_reuse(g, out->order + a, len), ra = xs_reuse(g, asc + a, len);

		if ((double)rb >= gain * (double)ra && rb > ra)
			nbfs++;
		else
			memcpy(out->order + a, asc + a, (size_t)len * sizeof(*asc));
	}
	free(fill);
	free(seen);
	free(asc);
	return nbfs;
}

/* The static split as logical threads: worker w's iterations are
 * xs_block's, so its logical threads start at ceil(lo / granule). */
static void xs_static_owner(uint64_t n, uint64_t granule, uint32_t nv, uint32_t P,
			    uint32_t *start, uint32_t *owner)
{
	uint64_t q = n / P, r = n % P;

	for (uint32_t w = 0; w <= P; w++) {
		uint64_t lo = w == P ? n : w * q + (w < r ? w : r), k = lo / granule + (lo % granule != 0);

		start[w] = (uint32_t)(k < nv ? k : nv);
	}
	for (uint32_t w = 0; w < P; w++)
		for (uint32_t u = start[w]; u < start[w + 1]; u++)
			owner[u] = w;
}

/* Edge weight of @g cut by @owner: between workers and between domains. */
static void xs_cuts(const struct xs_aff_graph *g, const struct xs_aff_machine *mach,
		    const uint32_t *owner, struct xs_aff_plan_stats *st)
{
	st->total = st->cut = st->cut_node = st->cut_llc = 0;
	for (uint32_t u = 0; u < g->nv; u++) {
		for (uint64_t e = g->xadj[u]; e < g->xadj[u + 1]; e++) {
			uint32_t x = owner[u], y = owner[g->adj[e]];

			if (g->adj[e] < u)
				continue;
			st->total += g->w[e];
			st->cut += x != y ? g->w[e] : 0;
			st->cut_node += mach->node[x] != mach->node[y] ? g->w[e] : 0;
			st->cut_llc += mach->node[x] != mach->node[y] ||
				       mach->llc[x] != mach->llc[y] ? g->w[e] : 0;
		}
	}
}

/* Weight of @g's edges whose ends have different @owner. */
static uint64_t xs_owner_cut(const struct xs_aff_graph *g, const uint32_t *owner, uint64_t *total)
{
	uint64_t cut = 0;

	*total = 0;
	for (uint32_t u = 0; u < g->nv; u++)
		for (uint64_t e = g->xadj[u]; e < g->xadj[u + 1]; e++) {
			if (g->adj[e] < u)
				continue;
			*total += g->w[e];
			cut += owner[u] != owner[g->adj[e]] ? g->w[e] : 0;
		}
	return cut;
}

int xs_aff_schedule_cut(const struct xs_aff_graph *g, const struct xs_affinity_map *m,
			uint64_t *cut, uint64_t *static_cut, uint64_t *total)
{
	uint32_t *owner, *start;

	if (g->nv != m->nthreads || !m->nworkers)
		return -EINVAL;
	owner = malloc((g->nv ? g->nv : 1) * sizeof(*owner));
	start = malloc(((size_t)m->nworkers + 1) * sizeof(*start));
	if (!owner || !start) {
		free(owner);
		free(start);
		return -ENOMEM;
	}
	for (uint32_t w = 0; w < m->nworkers; w++)
		for (uint32_t p = m->start[w]; p < m->start[w + 1]; p++)
			owner[m->order[p]] = w;
	*cut = xs_owner_cut(g, owner, total);
	xs_static_owner(m->n, m->granule, g->nv, m->nworkers, start, owner);
	*static_cut = xs_owner_cut(g, owner, total);
	free(owner);
	free(start);
	return 0;
}

const char *xs_aff_plan_kind_str(enum xs_aff_plan_kind kind)
{
	switch (kind) {
	case XS_AFF_PLAN_METIS:
		return "partitioned along the machine (METIS)";
	case XS_AFF_PLAN_STATIC_ONE:
		return "the static split: the workers share one cache domain, nothing to keep "
		       "apart";
	default:
		return "the static split: METIS cuts no less than a tenth below it between "
		       "cache domains";
	}
}

int xs_aff_plan(const struct xs_aff_graph *g, const struct xs_aff_machine *mach, uint64_t n,
		uint64_t granule, const struct xs_aff_plan_cfg *cfg, struct xs_affinity_map *out,
		struct xs_aff_plan_stats *st)
{
	struct xs_plan p = { .g = g, .m = mach };
	uint32_t *v = NULL, *w = NULL, *sowner = NULL, *sstart = NULL;
	uint64_t total = 0, scale;
	struct xs_aff_plan_stats ss;
	struct timespec t0, t1;
	bool force = cfg && cfg->force;
	double gain = cfg && cfg->bfs_gain > 0 ? cfg->bfs_gain : 1.25;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(*st));
	if (!g->nv || !mach->nworkers || !granule ||
	    n / granule + (n % granule != 0) != g->nv)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p.owner = calloc(g->nv, sizeof(*p.owner));
	p.local = malloc(g->nv * sizeof(*p.local));
	p.vwgt = malloc(g->nv * sizeof(*p.vwgt));
	v = malloc(g->nv * sizeof(*v));
	w = malloc(mach->nworkers * sizeof(*w));
	sowner = malloc(g->nv * sizeof(*sowner));
	sstart = malloc(((size_t)mach->nworkers + 1) * sizeof(*sstart));
	out->start = calloc((size_t)mach->nworkers + 1, sizeof(*out->start));
	out->order = malloc(g->nv * sizeof(*out->order));
	if (!p.owner || !p.local || !p.vwgt || !v || !w || !sowner || !sstart || !out->start ||
	    !out->order)
		goto out;
	for (uint32_t u = 0; u < g->nv; u++)
		total += g->vw[u];
	scale = total / (1u << 30) + 1;
	for (uint32_t u = 0; u < g->nv; u++) {
		p.local[u] = -1;
		p.vwgt[u] = (idx_t)(g->vw[u] / scale ? g->vw[u] / scale : 1);
		v[u] = u;
	}
	for (uint32_t i = 0; i < mach->nworkers; i++)
		w[i] = i;
	/* Cache domains: distinct (node, LLC) pairs among the workers. */
	for (uint32_t i = 0; i < mach->nworkers; i++) {
		uint32_t j = 0;

		while (j < i && (mach->node[j] != mach->node[i] || mach->llc[j] != mach->llc[i]))
			j++;
		st->domains += j == i;
	}
	xs_static_owner(n, granule, g->nv, mach->nworkers, sstart, sowner);
	xs_cuts(g, mach, sowner, &ss);
	xs_plan_rec(&p, v, g->nv, w, mach->nworkers, XS_LVL_NODE);
	ret = p.ret;
	if (ret)
		goto out;
	xs_cuts(g, mach, p.owner, st);
	st->metis_cut_llc = st->cut_llc;
	st->metis_cut = st->cut;
	st->static_cut_llc = ss.cut_llc;
	st->static_cut = ss.cut;
	if (st->domains < 2)
		st->kind = XS_AFF_PLAN_STATIC_ONE;
	else if (!st->static_cut_llc ||
		 (double)st->metis_cut_llc > 0.9 * (double)st->static_cut_llc)
		st->kind = XS_AFF_PLAN_STATIC_NOGAIN;
	else
		st->kind = XS_AFF_PLAN_METIS;
	if (st->kind != XS_AFF_PLAN_METIS && !force) {
		memcpy(out->start, sstart, ((size_t)mach->nworkers + 1) * sizeof(*sstart));
		for (uint32_t u = 0; u < g->nv; u++)
			out->order[u] = u;
		st->total = ss.total;
		st->cut = ss.cut;
		st->cut_node = ss.cut_node;
		st->cut_llc = ss.cut_llc;
	} else {
		if (force)
			st->kind = XS_AFF_PLAN_METIS;
		ret = xs_plan_order(g, p.owner, mach->nworkers, gain, out);
		if (ret < 0)
			goto out;
		st->parts_bfs = (uint32_t)ret;
		ret = 0;
	}
	out->n = n;
	out->granule = granule;
	out->nthreads = g->nv;
	out->nworkers = mach->nworkers;
	out->machine = mach->hash;
	snprintf(out->machine_desc, sizeof(out->machine_desc), "%s", mach->desc);
	xs_affinity_map_classify(out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
out:
	free(p.owner);
	free(p.local);
	free(p.vwgt);
	free(v);
	free(w);
	free(sowner);
	free(sstart);
	if (ret)
		xs_affinity_map_free(out);
	return ret;
}
