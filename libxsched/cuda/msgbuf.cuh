/* SPDX-License-Identifier: MIT */
/*
 * msgbuf.cuh - the message passing of the synchronization server (Wang,
 * Fussell and Lin, "Fast Fine-Grained Global Synchronization on GPUs",
 * ASPLOS '19, section 3.2).
 *
 * One circular buffer per server block in global memory:
 *
 *   write_idx   slots [write_idx, ...) are free to reserve; a sending warp
 *               reserves c slots with one atomicAdd (monotone, mod 2^32)
 *   read_idx    slots before it have been consumed and may be rewritten;
 *               written by the owning server only (st.release)
 *   valid[]     bit s % 32 of word (s % CAP) / 32 is set once slot s holds
 *               a message (atomicOr after a fence), cleared by the server
 *               before read_idx moves past s
 *   slot[]      the messages
 *
 * Invariants:
 *   - read_idx <= every unconsumed reservation; a sender writes slot s only
 *     when s < read_idx + CAP (it waits for that with an acquire load);
 *   - a valid bit is set only for a reserved, fully written slot, and only
 *     between its write and the server's retirement of it;
 *   - a sending warp holds at most one reservation that it has not yet
 *     written, and only on the buffer whose space it waits for. Hence the
 *     earliest unwritten reservation of any buffer can always complete:
 *     everything before it is written, the server consumes it, read_idx
 *     reaches its start, and c <= CAP. No deadlock, as long as all blocks
 *     are co-resident (the launch is cooperative).
 */
#ifndef XSCHED_CUDA_MSGBUF_CUH
#define XSCHED_CUDA_MSGBUF_CUH

#include <stdint.h>

#include "atomics.cuh"

#define XS_MB_CAP 4096u			/* slots per buffer, power of two */
#define XS_MB_WORDS (XS_MB_CAP / 32)
#define XS_SYNC_MAX_SERVERS 64
#define XS_SYNC_LOCKS 4096		/* shared-memory locks per server */
#define XS_SYNC_MSGS_PER_OP 2		/* most messages one client op sends */
#define XS_SYNC_RING 8			/* batches in flight per server */

namespace xs {

struct __align__(16) msg {
	uint32_t id;		/* data id: owner server is id % nservers */
	int32_t arg;
	uint32_t op;
	uint32_t pad;
};

struct msgbuf {
	uint32_t write_idx;
	uint32_t pad0[31];	/* write_idx and read_idx on their own lines */
	uint32_t read_idx;
	uint32_t pad1[31];
	uint32_t valid[XS_MB_WORDS];
	struct msg slot[XS_MB_CAP];
};

/* Global control block of one run. */
struct sync_ctl {
	uint32_t clients_done;	/* client blocks that have sent everything */
	uint32_t terminate;	/* set (release) by the last client block */
	uint32_t overflow;	/* an application ran out of room */
	uint32_t pad[29];
};

/*
 * One warp sends the c messages at @m (shared memory) to buffer @b:
 * reserve, wait for space, write coalesced, fence, set the valid bits
 * (one atomicOr per 32-slot word).
 */
static __device__ void send_run(msgbuf *b, const msg *m, uint32_t c,
				uint32_t lane)
{
	uint32_t base = 0;

	if (lane == 0) {
		base = atomicAdd(&b->write_idx, c);
		/* Acquire pairs with the server's st_release of read_idx:
		 * its bit clearing and its followers' reads of the old
		 * messages in these slots happen before our writes. */
		while (base + c - ld_acquire(&b->read_idx) > XS_MB_CAP)
			__nanosleep(100);
	}
	base = __shfl_sync(0xffffffffu, base, 0);
	__syncwarp();	/* lane 0's acquire before every lane's writes */
	for (uint32_t k = lane; k < c; k += 32)
		b->slot[(base + k) % XS_MB_CAP] = m[k];
	__syncwarp();
	/* Every lane's message data is visible GPU-wide before any valid
	 * bit: pairs with the leader's fence after it reads the bits. */
	__threadfence();
	for (uint32_t k = lane; k < c; k += 32) {
		uint32_t s = base + k, bit = s % 32;

		if (k == 0 || bit == 0) {	/* first slot of a word run */
			uint32_t run = min(32 - bit, c - k);
			uint32_t mask = (run == 32 ? 0xffffffffu :
					 ((1u << run) - 1)) << bit;

			atomicOr(&b->valid[(s % XS_MB_CAP) / 32], mask);
		}
	}
	__syncwarp();
}

/*
 * Client block: the ops [0, n) are strided over the client blocks, one op
 * per thread per round. @prod(i, m) writes op i's messages (at most
 * XS_SYNC_MSGS_PER_OP) and returns how many. Each round the block counts
 * its messages per destination (shared atomics), sorts them into shared
 * memory by destination (a counting sort), and one warp per destination
 * sends each destination's run with one reservation: aggregation in
 * scratchpad, coalesced global writes.
 * Shared memory: client_smem(blockDim.x) bytes at @smem.
 */
static inline size_t client_smem(int block)
{
	return 2 * XS_SYNC_MAX_SERVERS * sizeof(int32_t) +
	       (size_t)block * XS_SYNC_MSGS_PER_OP * sizeof(msg);
}

template <class Prod>
__device__ void client(msgbuf *bufs, int32_t ns, sync_ctl *ctl, int32_t cid,
		       int32_t nclients, int32_t n, const Prod &prod, char *smem)
{
	int32_t *cnt = (int32_t *)smem;
	int32_t *off = cnt + XS_SYNC_MAX_SERVERS;
	msg *stage = (msg *)(off + XS_SYNC_MAX_SERVERS);
	uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	uint32_t nwarps = blockDim.x >> 5;

	for (int64_t base = (int64_t)cid * blockDim.x; base < n;
	     base += (int64_t)nclients * blockDim.x) {
		msg m[XS_SYNC_MSGS_PER_OP];
		int32_t dst[XS_SYNC_MSGS_PER_OP], rank[XS_SYNC_MSGS_PER_OP];
		int64_t i = base + tid;
		int nm = 0;

		if (tid < (uint32_t)ns)
			cnt[tid] = 0;
		__syncthreads();
		if (i < n)
			nm = prod(i, m);
#pragma unroll
		for (int k = 0; k < XS_SYNC_MSGS_PER_OP; k++)
			if (k < nm) {
				dst[k] = m[k].id % ns;
				rank[k] = atomicAdd(&cnt[dst[k]], 1);
			}
		__syncthreads();
		if (tid == 0)
			for (int32_t d = 0, s = 0; d < ns; d++) {
				off[d] = s;
				s += cnt[d];
			}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < XS_SYNC_MSGS_PER_OP; k++)
			if (k < nm)
				stage[off[dst[k]] + rank[k]] = m[k];
		__syncthreads();
		for (int32_t d = warp; d < ns; d += nwarps)
			if (cnt[d])	/* warp-uniform */
				send_run(&bufs[d], stage + off[d], cnt[d], lane);
		__syncthreads();	/* stage is reused next round */
	}
	if (tid == 0) {
		/* This block's valid bits (set by all warps before the
		 * barrier above) are visible before its count. */
		__threadfence();
		if (atomicAdd(&ctl->clients_done, 1) == (uint32_t)nclients - 1) {
			/* Acquire every other client's count (and so its
			 * bits), then release them all with the flag; pairs
			 * with the servers' ld_acquire of terminate. */
			__threadfence();
			st_release(&ctl->terminate, 1);
		}
	}
}

/* Shared memory of a server block. */
struct server_shared {
	int32_t locks[XS_SYNC_LOCKS];
	volatile uint32_t asg_start[32];	/* per follower warp */
	volatile uint32_t asg_tag[32];		/* 0: free; else size|batch */
	uint32_t batch_start[XS_SYNC_RING];
	uint32_t batch_count[XS_SYNC_RING];
	uint32_t batch_done[XS_SYNC_RING];	/* follower shared atomics */
	volatile uint32_t stop;
};

#define XS_ASG_BUSY 0x80000000u

/*
 * Leader warp (warp 0 of a server block). Loop:
 *  1. retire finished batches in order: clear their valid bits, fence,
 *     release read_idx past them;
 *  2. read 32 bitmask words (one per lane), find the run of consecutive
 *     valid slots from head (ballot + shuffle), and hand it to follower
 *     warps in chunks of at most 32 through the assignment slots;
 *  3. when nothing is valid: stop once the termination flag is set, every
 *     reserved slot has been handed out and every batch retired.
 */
static __device__ void leader(msgbuf *b, sync_ctl *ctl, server_shared *sh)
{
	const uint32_t full = 0xffffffffu;
	uint32_t lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
	uint32_t head = 0, retired = 0, ring_head = 0, ring_tail = 0;
	uint32_t next_f = 1;

	for (;;) {
		/* 1. Retire, oldest batch first. */
		while (ring_tail != ring_head) {
			uint32_t bs = ring_tail % XS_SYNC_RING, done = 0;
			uint32_t start = sh->batch_start[bs];
			uint32_t cnt = sh->batch_count[bs];

			if (lane == 0)
				done = ((volatile uint32_t *)sh->batch_done)[bs];
			done = __shfl_sync(full, done, 0);
			if (done != cnt)
				break;
			/* Relative to the batch's first word, so that index
			 * wrap-around (mod 2^32) needs no care. */
			uint32_t sk = start % 32, nw = (sk + cnt + 31) / 32;

			for (uint32_t j = lane; j < nw; j += 32) {
				uint32_t lo = max(sk, j * 32);
				uint32_t hi = min(sk + cnt, j * 32 + 32);
				uint32_t n = hi - lo;
				uint32_t mask = (n == 32 ? full : ((1u << n) - 1))
						<< (lo % 32);

				atomicAnd(&b->valid[(start / 32 + j) %
						    XS_MB_WORDS], ~mask);
			}
			__syncwarp();
			/* Cleared bits (and the followers' reads, ordered
			 * before their done counts) before the slots are
			 * handed back: pairs with send_run's ld_acquire. */
			__threadfence();
			if (lane == 0) {
				st_release(&b->read_idx, start + cnt);
				sh->batch_done[bs] = 0;
			}
			retired = start + cnt;
			ring_tail++;
		}

		/* 2. Scan for consecutive valid slots from head. */
		uint32_t count = 0;

		if (ring_head - ring_tail < XS_SYNC_RING) {
			uint32_t word = (head / 32 + lane) % XS_MB_WORDS;
			uint32_t bits = ld_relaxed(&b->valid[word]);
			uint32_t skip = head % 32;

			if (lane == 0)	/* slots before head count as valid */
				bits |= (1u << skip) - 1;
			uint32_t gaps = __ballot_sync(full, bits != full);

			if (gaps == 0) {
				count = 32 * 32 - skip;
			} else {
				uint32_t f = __ffs(gaps) - 1;
				uint32_t fb = __shfl_sync(full, bits, f);

				count = f * 32 + (__ffs(~fb) - 1) - skip;
			}
			/* Positions past retired + CAP alias slots still in
			 * flight, whose bits are still set. */
			count = min(count, XS_MB_CAP - (head - retired));
		}
		if (count > 0) {
			/* Acquire: valid bits observed before the followers
			 * read the messages; pairs with send_run's fence. */
			__threadfence();
			uint32_t bs = ring_head % XS_SYNC_RING;

			if (lane == 0) {
				sh->batch_start[bs] = head;
				sh->batch_count[bs] = count;
				for (uint32_t o = 0; o < count; o += 32) {
					uint32_t sz = min(32u, count - o);

					while (sh->asg_tag[next_f] != 0) {
						next_f = next_f + 1 == nwarps ?
							 1 : next_f + 1;
						XS_SPIN_WAIT();
					}
					sh->asg_start[next_f] = head + o;
					/* start before the tag publishing it */
					__threadfence_block();
					sh->asg_tag[next_f] =
						XS_ASG_BUSY | (bs << 8) | sz;
					next_f = next_f + 1 == nwarps ? 1 :
						 next_f + 1;
				}
			}
			__syncwarp();
			head += count;
			ring_head++;
			continue;
		}

		/* 3. Termination. */
		uint32_t stop = 0;

		if (lane == 0 && ld_acquire(&ctl->terminate))
			stop = head == ld_relaxed(&b->write_idx) &&
			       ring_head == ring_tail;
		stop = __shfl_sync(full, stop, 0);
		if (stop) {
			if (lane == 0)
				sh->stop = 1;
			return;
		}
	}
}

/*
 * Follower warp f: wait for an assignment, read its messages (coalesced,
 * L2 only: the lines may be stale in this SM's L1 from an earlier lap),
 * run each message's critical section under the shared-memory lock of its
 * data id, then count the batch done and free the assignment slot.
 * @cs(m) is the critical section; @lock_of(m) picks the lock.
 */
template <class CS>
__device__ void follower(msgbuf *b, server_shared *sh, const CS &cs)
{
	const uint32_t full = 0xffffffffu;
	uint32_t lane = threadIdx.x & 31, f = threadIdx.x >> 5;

	for (;;) {
		uint32_t tag = 0;

		if (lane == 0) {
			while ((tag = sh->asg_tag[f]) == 0 && !sh->stop)
				XS_SPIN_WAIT();
			/* Tag observed before its start and messages:
			 * pairs with the leader's fences. */
			__threadfence();
		}
		tag = __shfl_sync(full, tag, 0);
		__syncwarp();
		if (tag == 0)
			return;
		uint32_t start = sh->asg_start[f], sz = tag & 63;
		uint32_t bs = (tag >> 8) & (XS_SYNC_RING - 1);
		bool pending = lane < sz;
		msg m = {};

		if (pending) {
			int4 raw = __ldcg((const int4 *)&b->slot[(start + lane) %
								 XS_MB_CAP]);

			m.id = (uint32_t)raw.x;
			m.arg = raw.y;
			m.op = (uint32_t)raw.z;
		}
		/* Lanes that collide on a lock retry; the winner finishes,
		 * so the warp always progresses. */
		while (__any_sync(full, pending)) {
			if (pending) {
				int32_t *lk = &sh->locks[cs.lock_of(m)];

				if (atomicCAS(lk, 0, 1) == 0) {
					cs(m);
					/* The critical section's writes
					 * before the unlock; pairs with the
					 * next holder's CAS. */
					__threadfence_block();
					atomicExch(lk, 0);
					pending = false;
				}
			}
		}
		__syncwarp();
		if (lane == 0) {
			/* Message reads (consumed above) before the count
			 * that lets the leader recycle the slots. */
			__threadfence_block();
			atomicAdd(&sh->batch_done[bs], sz);
			sh->asg_tag[f] = 0;
		}
	}
}

template <class CS>
__device__ void server(msgbuf *b, sync_ctl *ctl, const CS &cs, char *smem)
{
	server_shared *sh = (server_shared *)smem;

	for (uint32_t i = threadIdx.x; i < XS_SYNC_LOCKS; i += blockDim.x)
		sh->locks[i] = 0;
	if (threadIdx.x < 32) {
		sh->asg_tag[threadIdx.x] = 0;
		sh->asg_start[threadIdx.x] = 0;
	}
	if (threadIdx.x < XS_SYNC_RING)
		sh->batch_done[threadIdx.x] = 0;
	if (threadIdx.x == 0)
		sh->stop = 0;
	__syncthreads();
	if (threadIdx.x < 32)
		leader(b, ctl, sh);
	else
		follower(b, sh, cs);
}

/* The synchronization-server kernel: blocks [0, ns) serve, the rest are
 * clients. Launched cooperatively so that all blocks are co-resident. */
template <class Prod, class CS>
__global__ void __launch_bounds__(1024)
sync_kernel(msgbuf *bufs, sync_ctl *ctl, int32_t ns, int32_t nc, int32_t n,
	    Prod prod, CS cs)
{
	XS_EXTERN_SHARED(char, xs_sync_smem);

	if ((int32_t)blockIdx.x < ns) {
		cs.server = blockIdx.x;
		server(&bufs[blockIdx.x], ctl, cs, xs_sync_smem);
	} else {
		client(bufs, ns, ctl, blockIdx.x - ns, nc, n, prod,
		       xs_sync_smem);
	}
}

} /* namespace xs */

#endif /* XSCHED_CUDA_MSGBUF_CUH */
