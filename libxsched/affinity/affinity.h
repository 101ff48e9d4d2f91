/* SPDX-License-Identifier: MIT */
/*
 * affinity.h - affinity-graph schedules (internal): record which logical
 * threads of a loop touch the same memory, build the affinity graph,
 * partition it along the machine, replay the result (Song, Moore and
 * Dongarra, "Feedback-directed thread scheduling with memory
 * considerations", HPDC'07; the seed affinity-graph-thread-scheduling.txt).
 *
 *   affinity_record.c  the recorder: page protection of registered regions
 *                      plus single-stepping, online inverted index
 *   affinity_graph.c   hypergraph -> weighted graph under DenseRatio
 *   affinity_file.c    the graph and schedule files; the replayed schedule
 *   affinity_trial.c   the replay times its schedule against hybrid and static
 *   affinity_choice.c  what an affinity loop runs, kept per runtime once settled
 *   affinity_plan.c    METIS partitioning along the topology (not in the
 *                      library: only xsched-affinity and xsched-bench link
 *                      -lmetis)
 *
 * A logical thread k of a loop of n iterations is iterations
 * [k g, min(n, (k + 1) g)) for the granule g. What the recorder writes is
 * the affinity graph in hyperedge form: for every address (at the recorded
 * granularity) the increasing list of logical threads that touched it. The
 * weighted graph (edge weight = addresses touched in common) follows from it
 * for any DenseRatio, so `plan` can choose the ratio.
 */
#ifndef XSCHED_AFFINITY_H
#define XSCHED_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xs_runtime;
struct xs_topology;

/* ---------------------------------------------------------------- */
/* The recorded hypergraph (affinity graph file) */

struct xs_aff_hgraph {
	uint64_t n;            /* iterations of the recorded loop */
	uint64_t granule;      /* iterations per logical thread */
	uint32_t nthreads;     /* logical threads T = ceil(n / granule) */
	uint32_t shift;        /* addresses are byte addresses >> shift */
	uint64_t naddrs;       /* distinct addresses touched */
	uint64_t nedges;       /* hyperedges: addresses touched by >= 2 threads */
	uint64_t nentries;     /* (address, thread) pairs */
	uint64_t accesses;     /* accesses seen (faults) */
	uint64_t dropped;      /* pairs not recorded: a memory cap was hit */
	double seconds;        /* wall time of the recorded loop */
	uint32_t *vweight;     /* nthreads: distinct addresses per thread */
	uint64_t *eoff;        /* nedges + 1 offsets into ethreads */
	uint32_t *ethreads;    /* nentries thread ids, increasing per edge */
};

/* affinity_graph.c: frees what a recording or a graph file filled in. */
void xs_aff_hgraph_free(struct xs_aff_hgraph *h);

/* ---------------------------------------------------------------- */
/* The weighted affinity graph (CSR, symmetric, no self loops) */

struct xs_aff_graph {
	uint32_t nv;
	uint64_t ne;           /* entries of adj: twice the edges */
	uint64_t *xadj;        /* nv + 1 */
	uint32_t *adj;         /* ne, increasing per vertex */
	uint32_t *w;           /* ne: addresses in common, >= 1 */
	uint32_t *vw;          /* nv: vertex weights, >= 1 */
	uint64_t pruned;       /* hyperedges dropped by DenseRatio */
};

/*
 * The graph of @h under @dense_ratio (0..1): an address touched by more
 * than dense_ratio x T threads adds no edge (the seed's Figure 4); others
 * add 1 to the weight of every pair of their threads. Returns 0, -EINVAL,
 * -E2BIG (more than @max_edges graph entries; message says so), -ENOMEM.
 */
int xs_aff_graph_build(const struct xs_aff_hgraph *h, double dense_ratio, uint64_t max_edges,
		       struct xs_aff_graph *g);
void xs_aff_graph_free(struct xs_aff_graph *g);

/* ---------------------------------------------------------------- */
/* Schedules */

/* The machine a schedule is for: each worker's node, LLC and core. */
struct xs_aff_machine {
	uint32_t nworkers;
	uint32_t *node, *llc, *core; /* nworkers each: topology indexes */
	uint64_t hash;               /* of nworkers and the three arrays */
	char desc[96];               /* "8 workers on 2 nodes, 4 LLCs, 8 cores" */
};

/* The machine of @topo with @nworkers placed by @bind (enum
 * xs_bind_policy), as the runtime places them. Returns 0 or -errno. */
int xs_aff_machine_from_topology(const struct xs_topology *topo, int bind, uint32_t nworkers,
				 struct xs_aff_machine *m);
/* The machine of a runtime's workers. */
int xs_aff_machine_from_runtime(const struct xs_runtime *rt, struct xs_aff_machine *m);
void xs_aff_machine_free(struct xs_aff_machine *m);

/*
 * A schedule: worker w runs the logical threads order[start[w] ..
 * start[w + 1]) in that order, then its dynamic tail goes to whoever is
 * idle (the hybrid schedule over positions, loop.c). Every logical thread
 * appears exactly once in order.
 */
struct xs_affinity_map {
	uint64_t n;
	uint64_t granule;
	uint32_t nthreads;
	uint32_t nworkers;
	uint64_t machine;      /* xs_aff_machine hash it was planned for */
	char machine_desc[96];
	uint32_t *start;       /* nworkers + 1 */
	uint32_t *order;       /* nthreads */
	/* order[i] == i for every i (not in the file: set by the plan and the
	 * reader): worker w's block is consecutive iterations, and the replay
	 * hands out whole ranges instead of looking positions up. */
	bool identity;
};

void xs_affinity_map_free(struct xs_affinity_map *m);

/* Set @m->identity from its order. */
void xs_affinity_map_classify(struct xs_affinity_map *m);

/* Check the invariants above. 0, or -EINVAL with a reason in @why. */
int xs_affinity_map_check(const struct xs_affinity_map *m, char *why, size_t len);

/*
 * Files. Both are little-endian, fixed-width, versioned, with a FNV-1a
 * checksum over everything but the checksum word. Readers reject a file of
 * another kind (foreign), another version, a bad checksum or inconsistent
 * counts (corrupt), with a message naming @path on stderr, and return
 * -EINVAL (-errno of open/read). Writers return 0 or -errno.
 */
int xs_aff_hgraph_write(const char *path, const struct xs_aff_hgraph *h);
int xs_aff_hgraph_read(const char *path, struct xs_aff_hgraph *h);
int xs_affinity_map_write(const char *path, const struct xs_affinity_map *m);
int xs_affinity_map_read(const char *path, struct xs_affinity_map *m);
/* The readers' parsers: the file image @data of @len bytes, named @path in
 * messages (the fuzz target feeds them from memory). */
int xs_aff_hgraph_parse(const char *path, const void *data, size_t len,
			struct xs_aff_hgraph *h);
int xs_affinity_map_parse(const char *path, const void *data, size_t len,
			  struct xs_affinity_map *m);
/* Store in a file image of either kind the checksum its bytes give, as a
 * writer would (for forged files: tests, the fuzz target). */
void xs_aff_file_seal(void *image, size_t len);

/* Whether @m fits a loop of @n iterations on machine @mach: 0, or
 * -ESTALE with the reason (naming @path) on stderr. */
int xs_affinity_map_fits(const struct xs_affinity_map *m, const char *path, uint64_t n,
			 const struct xs_aff_machine *mach);

/*
 * Replay: the schedule for a loop of @n iterations on @nthreads workers of
 * @rt, from XSCHED_AFFINITY_FILE (loaded and checked once per process; a
 * rejection is reported once), or NULL: the loop runs hybrid.
 */
const struct xs_affinity_map *xs_affinity_lookup(struct xs_runtime *rt, uint64_t n,
						 uint32_t nthreads);

/* Replay @m instead of XSCHED_AFFINITY_FILE (NULL: the file again); the
 * caller keeps @m alive while loops may use it (benchmarks, tests). */
void xs_affinity_override(const struct xs_affinity_map *m);

/* What a loop that could replay a schedule runs instead (the trial). */
enum xs_aff_trial_kind {
	XS_AFF_RUN_HYBRID,
	XS_AFF_RUN_SCHEDULE,
	XS_AFF_RUN_STATIC,
	XS_AFF_NKINDS
};

/*
 * The trial (affinity_trial.c): what the next loop of @n iterations runs
 * (enum xs_aff_trial_kind; *@settled, if not NULL: true when it is the
 * kept kind, or @trials is 0, so the answer will not change until a reset
 * or an eviction moves the epoch). The kinds take turns in blocks of two loops,
 * the schedule first: a warm-up loop, then a timed one; after @trials
 * blocks of each kind the kind with the lowest median over the rounds of
 * its timed loop over static's is kept (static: 1; ties keep the schedule,
 * then hybrid). @trials
 * 0: always the schedule (an identity @m, the static split, is tried too). xs_affinity_trial_done()
 * reports the loop's @seconds under the @picked kind (@verbose: say the
 * verdict on stderr). xs_affinity_trial_verdict(): the kind kept for
 * (@m, @n), or -1 while trying (or never tried).
 * xs_affinity_trial_reset() forgets every verdict (a new schedule at the
 * same address: benchmarks, tests).
 */
int xs_affinity_trial_pick(const struct xs_affinity_map *m, uint64_t n, uint32_t trials,
			   bool *settled);
void xs_affinity_trial_done(const struct xs_affinity_map *m, uint64_t n, uint32_t trials,
			    int picked, double seconds, bool verbose);
int xs_affinity_trial_verdict(const struct xs_affinity_map *m, uint64_t n);
void xs_affinity_trial_reset(void);
double xs_affinity_trial_now(void);

/*
 * The choice (affinity_choice.c): what an XS_LOOP_AFFINITY loop of @n
 * iterations on @rt runs. @map: the schedule to replay (NULL: none, run
 * @kind); @tried: the schedule whose trial this loop is part of, so the
 * caller times the loop and hands the time to xs_affinity_trial_done()
 * (NULL: nothing to time). Once the lookup and the trial are settled for
 * (@rt, @n), the answer is remembered in @rt (the thread that runs a loop
 * on @rt is the only one that reads or writes it) and repeated without a
 * lock or a clock read, until xs_affinity_epoch_bump() says that a
 * schedule or a verdict changed.
 */
struct xs_aff_choice {
	const struct xs_affinity_map *map;
	const struct xs_affinity_map *tried;
	int kind; /* enum xs_aff_trial_kind */
};

#define XS_AFF_MEMO_SLOTS 4

struct xs_aff_memo {
	uint64_t epoch; /* 0: empty */
	uint64_t n;
	int64_t trials;
	const struct xs_affinity_map *map;
	int kind;
};

void xs_affinity_choose(struct xs_runtime *rt, uint64_t n, struct xs_aff_choice *c);

/* affinity_epoch.c: moved by every change of a schedule or a verdict, read
 * by the choice to know its remembered answers are still good. */
void xs_affinity_epoch_bump(void);
uint64_t xs_affinity_epoch(void);

/* ---------------------------------------------------------------- */
/* Recording */

/* Granule for @n iterations under option value @opt (0 = auto). */
uint64_t xs_aff_granule(uint64_t n, int64_t opt);

struct xs_aff_record_cfg {
	uint32_t shift;        /* address granularity, log2 bytes (0..12) */
	bool step;             /* single-step (every access) where possible */
	uint64_t max_edges;    /* distinct addresses kept (0: default) */
	uint64_t max_entries;  /* (address, thread) pairs kept (0: default) */
	/* Watch one page in @sample (0 or 1: every page), the same pages for
	 * the whole loop, chosen by a hash of the page number: faults fall by
	 * about that factor, and so do the addresses seen. */
	uint32_t sample;
	/* Watch only this many pages at a time (0: all): each logical thread
	 * gets the next `window` watched pages (a ring in address order) and
	 * at most `window` faults, so faults <= window x logical threads. */
	uint64_t window;
};

/* The body of a recorded loop: iterations [lo, hi). */
typedef void (*xs_aff_chunk_fn)(void *ctx, uint64_t lo, uint64_t hi);

/*
 * Run the @n iterations of @fn on the calling thread, logical thread by
 * logical thread (granule @granule), watching the registered regions, and
 * fill @h. Nothing else may touch the regions meanwhile. Returns 0,
 * -ENODATA (no region registered), -EBUSY (a recording is under way),
 * -ENOMEM, -errno of mprotect/sigaction.
 */
int xs_aff_record(uint64_t n, uint64_t granule, const struct xs_aff_record_cfg *cfg,
		  xs_aff_chunk_fn fn, void *ctx, struct xs_aff_hgraph *h);

/* Whether the single-step mode (every access) exists on this machine. */
bool xs_aff_can_step(void);

/*
 * loop.c's hook: when XSCHED_AFFINITY_RECORD is set and no loop was
 * recorded yet, record this loop on worker 0 of @rt (the job's other
 * workers idle), write the graph and return 1; return 0 when the loop
 * should run normally, -errno on failure (reported).
 */
int xs_affinity_record_loop(struct xs_runtime *rt, uint64_t n, xs_aff_chunk_fn fn, void *ctx);

/* ---------------------------------------------------------------- */
/* Planning (affinity_plan.c; links -lmetis) */

/* What the plan chose. */
enum xs_aff_plan_kind {
	XS_AFF_PLAN_METIS,        /* partitioned along the machine */
	XS_AFF_PLAN_STATIC_ONE,   /* static split: the workers share one cache domain */
	XS_AFF_PLAN_STATIC_NOGAIN /* static split: METIS cut no less between domains */
};

struct xs_aff_plan_cfg {
	/* Keep METIS's partition even where the plan would choose the static
	 * split (one cache domain, or too little saved between domains). */
	bool force;
	/* Order a part breadth-first only where the reuse between neighbours
	 * in the order grows at least by this factor over ascending order
	 * (0: 1.25). */
	double bfs_gain;
};

struct xs_aff_plan_stats {
	uint64_t cut;          /* edge weight between workers */
	uint64_t cut_node;     /* ... between nodes */
	uint64_t cut_llc;      /* ... between LLCs */
	uint64_t total;        /* all edge weight */
	/* The same for METIS's partition and for the static split, whichever
	 * the plan kept. */
	uint64_t metis_cut_llc, static_cut_llc, metis_cut, static_cut;
	uint32_t domains;      /* distinct (node, LLC) of the workers */
	uint32_t parts_bfs;    /* workers whose part is ordered breadth-first */
	enum xs_aff_plan_kind kind;
	double seconds;
};

/*
 * Partition @g along @mach (nodes, then LLCs, then cores, then workers);
 * each part runs breadth-first where that adds reuse (@cfg->bfs_gain), in
 * ascending order otherwise. Where the workers share one cache domain, or
 * the partition saves less than a tenth of the static split's edge weight
 * between domains, the schedule is the static split (identity order, equal
 * blocks) unless @cfg->force. @cfg may be NULL (defaults). Returns 0,
 * -ENOMEM, -EIO (METIS failed).
 */
int xs_aff_plan(const struct xs_aff_graph *g, const struct xs_aff_machine *mach, uint64_t n,
		uint64_t granule, const struct xs_aff_plan_cfg *cfg, struct xs_affinity_map *out,
		struct xs_aff_plan_stats *st);

/*
 * The edge weight of @g between the workers of schedule @m (@cut) and of
 * the static split of the same loop (@static_cut), out of @total: how a
 * schedule planned from one recording fares on another (a sampled
 * recording's plan on the full graph). -EINVAL if @g has not @m's logical
 * threads, -ENOMEM.
 */
int xs_aff_schedule_cut(const struct xs_aff_graph *g, const struct xs_affinity_map *m,
			uint64_t *cut, uint64_t *static_cut, uint64_t *total);

/* One line for @st->kind ("partitioned along the machine", ...). */
const char *xs_aff_plan_kind_str(enum xs_aff_plan_kind kind);

#endif /* XSCHED_AFFINITY_H */
