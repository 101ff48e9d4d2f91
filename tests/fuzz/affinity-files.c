// SPDX-License-Identifier: MIT
/*
 * affinity-files.c - fuzz the readers of xsched-affinity's graph and
 * schedule files (libxsched/affinity/affinity_file.c), and what consumes what they
 * accept.
 *
 * Input: a flags byte, a DenseRatio byte, then the file image.
 *   flags bit 0: 0 a graph file (`xsched-affinity record`), 1 a schedule
 *                (`plan`; what XSCHED_AFFINITY_FILE names)
 *   flags bit 1: seal the image first (store the checksum its bytes give,
 *                xs_aff_file_seal()), so inputs get past the checksum to
 *                the counts and contents; without it the checksum check
 *                itself is fuzzed
 * The parsers are the readers' own (xs_aff_hgraph_parse() and
 * xs_affinity_map_parse(), under xs_aff_hgraph_read() and
 * xs_affinity_map_read()). Promises: a rejected file is -EINVAL (or
 * -ENOMEM), with its message on stderr; an accepted graph builds into a
 * symmetric CSR affinity graph without self loops under any DenseRatio
 * (or is refused as too big, -E2BIG); an accepted schedule passes
 * xs_affinity_map_check() and is either fitted or called stale against
 * the workers of tests/machines/2s2n4c.
 */
#include "fuzz.h"
#include "affinity/affinity.h"
#include "topo/topology.h"

/* Graph entries a fuzzed graph may build into (the tool's default is far
 * larger; a small cap keeps an input's cost bounded). */
#define FUZZ_AFF_MAX_EDGES (1u << 16)

static struct xs_topology *topo;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char root[4096];

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/tests/machines/2s2n4c", fuzz_srcdir());
	topo = xs_topology_load(root);
	if (!topo) {
		fprintf(stderr, "affinity-files: cannot load %s\n", root);
		exit(1);
	}
	return 0;
}

/* Whether vertex @v of @g has neighbour @u (adj is increasing per vertex). */
static bool graph_has(const struct xs_aff_graph *g, uint32_t v, uint32_t u, uint32_t *w)
{
	uint64_t lo = g->xadj[v], hi = g->xadj[v + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (g->adj[mid] == u) {
			*w = g->w[mid];
			return true;
		}
		if (g->adj[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void check_graph(const struct xs_aff_hgraph *h, double ratio)
{
	struct xs_aff_graph g;
	int ret = xs_aff_graph_build(h, ratio, FUZZ_AFF_MAX_EDGES, &g);

	if (ret) {
		FUZZ_CHECK(ret == -E2BIG || ret == -ENOMEM || ret == -EINVAL);
		return;
	}
	FUZZ_CHECK(g.nv == h->nthreads);
	FUZZ_CHECK(g.xadj[0] == 0 && g.xadj[g.nv] == g.ne && g.ne <= FUZZ_AFF_MAX_EDGES);
	for (uint32_t v = 0; v < g.nv; v++) {
		FUZZ_CHECK(g.vw[v] >= 1);
		FUZZ_CHECK(g.xadj[v + 1] >= g.xadj[v]);
		for (uint64_t i = g.xadj[v]; i < g.xadj[v + 1]; i++) {
			uint32_t back;

			FUZZ_CHECK(g.adj[i] < g.nv && g.adj[i] != v && g.w[i] >= 1);
			FUZZ_CHECK(i == g.xadj[v] || g.adj[i] > g.adj[i - 1]);
			FUZZ_CHECK(graph_has(&g, g.adj[i], v, &back) && back == g.w[i]);
		}
	}
	xs_aff_graph_free(&g);
}

static void check_schedule(const struct xs_affinity_map *m)
{
	struct xs_aff_machine mach;
	char why[160];
	int ret;

	FUZZ_CHECK(xs_affinity_map_check(m, why, sizeof(why)) == 0);
	FUZZ_CHECK(m->machine_desc[sizeof(m->machine_desc) - 1] == '\0');
	if (m->nworkers > topo->ncpus)
		return;
	if (xs_aff_machine_from_topology(topo, XS_BIND_COMPACT, m->nworkers, &mach))
		return;
	ret = xs_affinity_map_fits(m, "fuzz-schedule", m->n, &mach);
	FUZZ_CHECK(ret == 0 || ret == -ESTALE);
	FUZZ_CHECK(ret == -ESTALE || m->machine == mach.hash);
	xs_aff_machine_free(&mach);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xs_affinity_map m;
	struct xs_aff_hgraph h;
	uint8_t flags, ratio;
	void *image;
	int ret;

	if (!topo)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 2)
		return 0;
	flags = data[0];
	ratio = data[1];
	data += 2;
	size -= 2;
	/* A private copy of exactly the file's bytes (ASan sees any overread). */
	image = malloc(size ? size : 1);
	if (!image)
		abort();
	memcpy(image, data, size);
	if (flags & 2)
		xs_aff_file_seal(image, size);
	if (flags & 1) {
		ret = xs_affinity_map_parse("fuzz-schedule", image, size, &m);
		if (ret) {
			FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM);
			FUZZ_CHECK(!m.start && !m.order);
		} else {
			check_schedule(&m);
			xs_affinity_map_free(&m);
		}
	} else {
		ret = xs_aff_hgraph_parse("fuzz-graph", image, size, &h);
		if (ret) {
			FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM);
		} else {
			check_graph(&h, ratio / 255.0);
			xs_aff_hgraph_free(&h);
		}
	}
	free(image);
	return 0;
}
