// SPDX-License-Identifier: MIT
/*
 * faults.cc - kernels with the bugs the host SIMT emulator must catch,
 * for tests/cuda/cuda-simt-emulator-finds-faults.c. Each fault_* runs one
 * launch; the emulator is expected to abort it with a diagnostic (or, for
 * the race, to give a wrong sum for some seeds).
 */
#include <errno.h>
#include <string.h>

#include "simt.h"
#include "simt-faults.h"

namespace {

/* Lane 0 of warp 0 goes to the block barrier while its warp waits for it
 * in a full-mask shuffle: nobody can move. */
void barrier_inside_warp_collective()
{
	if (threadIdx.x == 0)
		__syncthreads();
	else if (threadIdx.x < 32)
		(void)__shfl_sync(0xffffffffu, (int)threadIdx.x, 0);
	else
		__syncthreads();
}

/* Lane 5 leaves; the rest shuffle with a full mask. */
void collective_with_exited_lane()
{
	if (threadIdx.x % 32 == 5)
		return;
	(void)__shfl_sync(0xffffffffu, (int)threadIdx.x, 0);
}

/* Lanes 0..15 read lane 20 through a half-warp mask. */
void shuffle_outside_mask()
{
	if (threadIdx.x >= 16)
		return;
	(void)__shfl_sync(0x0000ffffu, (int)threadIdx.x, 20);
}

/* Thread 0 waits for a flag that nobody sets. */
void spin_for_ever()
{
	static volatile int flag;

	if (threadIdx.x == 0)
		while (!flag)
			XS_SPIN_WAIT();
}

/*
 * Block sum through shared memory in two rounds: warp sums into partial[],
 * a barrier, warp 0 adds them up. Without the second barrier a fast warp's
 * next-round write can overtake warp 0's read of this round.
 */
void block_sum(const int *in, int rounds, int with_barrier, long long *out)
{
	__shared__ int partial[32];
	unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

	for (int r = 0; r < rounds; r++) {
		int v = in[r * blockDim.x + threadIdx.x];

		for (int d = 16; d > 0; d >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, d);
		if (lane == 0)
			partial[warp] = v;
		__syncthreads();
		if (warp == 0) {
			v = lane < blockDim.x / 32 ? partial[lane] : 0;
			for (int d = 16; d > 0; d >>= 1)
				v += __shfl_down_sync(0xffffffffu, v, d);
			if (lane == 0)
				*out += v;
		}
		if (with_barrier)
			__syncthreads();
	}
}

} /* namespace */

extern "C" int xs_simt_fault(const char *name)
{
	simt::launch_cfg cfg = { 1, 64, 0, false };

	if (!strcmp(name, "barrier-inside-warp-collective"))
		simt::launch(cfg, [] { barrier_inside_warp_collective(); });
	else if (!strcmp(name, "collective-with-exited-lane"))
		simt::launch(cfg, [] { collective_with_exited_lane(); });
	else if (!strcmp(name, "shuffle-outside-mask"))
		simt::launch(cfg, [] { shuffle_outside_mask(); });
	else if (!strcmp(name, "spin-for-ever"))
		simt::launch(cfg, [] { spin_for_ever(); });
	else
		return -EINVAL;
	return 0;
}

extern "C" long long xs_simt_block_sum(int with_barrier, uint64_t seed)
{
	const int rounds = 8, block = 128;
	static int in[rounds * block];
	long long sum = 0;

	for (int i = 0; i < rounds * block; i++)
		in[i] = i % 13 + 1;
	xs_simt_seed(seed);
	simt::launch({ 1, block, 0, false },
		     [&] { block_sum(in, rounds, with_barrier, &sum); });
	return sum;
}
