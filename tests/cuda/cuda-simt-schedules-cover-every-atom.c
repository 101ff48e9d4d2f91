// SPDX-License-Identifier: MIT
/*
 * cuda-simt-schedules-cover-every-atom: the device code of every
 * load-balancing schedule (lb_schedules.cuh), run by the host SIMT
 * emulator, gives each atom to exactly one thread and finishes each tile
 * as the op contract says: once and complete for the tile-per-worker and
 * group-mapped schedules; for merge-path either once and complete or in
 * pieces that all say incomplete. Every tile set of up to 5 tiles of 0..3
 * atoms, then seeded skewed ones with hubs and offsets that do not start
 * at 0; one-warp grids, odd grids that stride, and the library's own grid
 * sizes; several scheduler seeds. No GPU needed.
 */
#include "kselftest_harness.h"
#include "../../libxsched/cuda/lb.h"
#include "cuda-lb-helpers.h"
#include "simt/simt-kernels.h"

struct launch {
	int schedule;
	uint32_t grid, block;
	int32_t group;
};

static const struct launch launches[] = {
	{ XS_CUDA_SCHED_THREAD_MAPPED, 1, 32, 1 },
	{ XS_CUDA_SCHED_THREAD_MAPPED, 3, 64, 1 },
	{ XS_CUDA_SCHED_THREAD_MAPPED, 0, 64, 1 },
	{ XS_CUDA_SCHED_WARP_MAPPED, 1, 32, 1 },
	{ XS_CUDA_SCHED_WARP_MAPPED, 3, 64, 1 },
	{ XS_CUDA_SCHED_WARP_MAPPED, 0, 96, 1 },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 1, 32, 1 },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 2, 96, 1 },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 0, 64, 1 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 1, 32, 1 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 3, 64, 2 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 2, 64, 8 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 0, 64, 32 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 2, 128, 64 },	/* block barrier */
	{ XS_CUDA_SCHED_GROUP_MAPPED, 0, 128, 128 },
	{ XS_CUDA_SCHED_MERGE_PATH, 1, 32, 1 },
	{ XS_CUDA_SCHED_MERGE_PATH, 3, 64, 1 },
	{ XS_CUDA_SCHED_MERGE_PATH, 0, 64, 1 },
};
#define N_LAUNCHES (sizeof(launches) / sizeof(launches[0]))

/* Check every launch on tile sets [first, last) of the generator. */
static void cover_sets(struct __test_metadata *_metadata, long first,
		       long last)
{
	static int32_t hits[XS_LB_MAX_TILES * 400 + 1];
	int32_t ends[XS_LB_MAX_TILES], complete[XS_LB_MAX_TILES];
	float sum[XS_LB_MAX_TILES];
	struct lb_gen gen = { .rng = 0 };
	long sets = 0, runs = 0;

	while (gen.index < last && lb_next(&gen)) {
		size_t l;

		if (gen.index <= first)
			continue;
		sets++;
		for (l = 0; l < N_LAUNCHES; l++) {
			const struct launch *ln = &launches[l];
			struct xs_simt_grid g = { ln->grid, ln->block, ln->group, 1 };
			int merge = ln->schedule == XS_CUDA_SCHED_MERGE_PATH;
			int32_t a, t;

			xs_simt_seed((uint64_t)sets * 131 + l);
			ASSERT_EQ(0, xs_simt_cover(gen.offsets, gen.ntiles,
						   ln->schedule, &g, hits, ends,
						   complete, sum))
				TH_LOG("set %ld, %s: %s", gen.index,
				       xs_cuda_schedule_name(ln->schedule),
				       xs_simt_error());
			runs++;
			for (a = 0; a < gen.natoms; a++)
				ASSERT_EQ(1, hits[a])
					TH_LOG("set %ld, %s grid %u block %u g %d: "
					       "atom %d visited %d times",
					       gen.index,
					       xs_cuda_schedule_name(ln->schedule),
					       ln->grid, ln->block, ln->group,
					       gen.offsets[0] + a, hits[a]);
			for (t = 0; t < gen.ntiles; t++) {
				int32_t n = xs_tile_atoms(gen.offsets, t);

				ASSERT_EQ((float)n, sum[t])
					TH_LOG("set %ld, %s: tile %d sums %g "
					       "of %d atoms", gen.index,
					       xs_cuda_schedule_name(ln->schedule),
					       t, sum[t], n);
				if (!merge || complete[t]) {
					ASSERT_EQ(1, ends[t]);
					ASSERT_EQ(1, complete[t]);
				} else {
					ASSERT_LE(1, ends[t]);
				}
			}
		}
	}
	TH_LOG("%ld tile sets, %ld emulated launches", sets, runs);
}

/* About 25000 emulated launches: more than the harness's default 30 s
 * on a slow machine. */
FIXTURE(sets) {};
FIXTURE_SETUP(sets) {}
FIXTURE_TEARDOWN(sets) {}

/* Every tile set of up to XS_LB_SMALL_TILES tiles of 0..3 atoms. */
TEST_F_TIMEOUT(sets, small_tile_sets_every_schedule, 240)
{
	cover_sets(_metadata, 0, lb_small_sets());
}

/* Seeded skewed sets: hubs, empty runs, offsets not starting at 0. */
TEST_F_TIMEOUT(sets, random_skewed_tile_sets_every_schedule, 240)
{
	cover_sets(_metadata, lb_small_sets(), 1L << 30);
}

TEST_HARNESS_MAIN
