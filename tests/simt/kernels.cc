// SPDX-License-Identifier: MIT
/*
 * kernels.cc - libxsched-cuda's device code under the host SIMT emulator,
 * behind the C API of simt-kernels.h. The kernels and ops are the
 * library's own headers; what is here stands in for the host side of the
 * library's .cu files (device memory is host memory, a launch is
 * simt::launch, cub's scan is a loop).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "simt-kernels.h"

#include "graph_ops.cuh"
#include "hash_table.h"
#include "lb_schedules.cuh"
#include "msgbuf.cuh"
#include "spmv_ops.cuh"
#include "sync_ops.cuh"

namespace {

char last_error[256];

int proto_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

bool grid_ok(const xs_simt_grid *g)
{
	return g && g->block >= 32 && g->block <= 1024 && g->block % 32 == 0 &&
	       g->group >= 1 && g->group <= (int32_t)g->block &&
	       !(g->group & (g->group - 1)) &&
	       (g->grid || g->sm_count >= 1);
}

/* The kernel xs::run<S> on the emulator. */
template <int S, class Op>
void emulate(const simt::launch_cfg &cfg, const int32_t *off, int32_t ntiles,
	     int32_t natoms, int32_t g, const Op &op)
{
	simt::launch(cfg, [&] { xs::run<S>(off, ntiles, natoms, g, op); });
}

/* xs::launch of lb_kernels.cuh, on the emulator. */
template <class Op>
int run_schedule(int s, const xs_simt_grid *g, const int32_t *off,
		 int32_t ntiles, int32_t natoms, const Op &op)
{
	int32_t b = (int32_t)g->block, gs = g->group;
	simt::launch_cfg cfg = { g->grid, g->block, 0, false };

	if (!grid_ok(g))
		return -EINVAL;
	if (ntiles <= 0)
		return 0;
	if (!cfg.grid)
		cfg.grid = xs_grid_size(g->sm_count,
					xs_schedule_threads(s, ntiles, natoms,
							    b, gs), b);
	switch (s) {
	case XS_CUDA_SCHED_THREAD_MAPPED:
		emulate<XS_CUDA_SCHED_THREAD_MAPPED>(cfg, off, ntiles, natoms, gs, op);
		break;
	case XS_CUDA_SCHED_WARP_MAPPED:
		emulate<XS_CUDA_SCHED_WARP_MAPPED>(cfg, off, ntiles, natoms, gs, op);
		break;
	case XS_CUDA_SCHED_BLOCK_MAPPED:
		emulate<XS_CUDA_SCHED_BLOCK_MAPPED>(cfg, off, ntiles, natoms, gs, op);
		break;
	case XS_CUDA_SCHED_GROUP_MAPPED:
		cfg.smem = xs::group_mapped_smem(b, gs);
		emulate<XS_CUDA_SCHED_GROUP_MAPPED>(cfg, off, ntiles, natoms, gs, op);
		break;
	case XS_CUDA_SCHED_MERGE_PATH:
		emulate<XS_CUDA_SCHED_MERGE_PATH>(cfg, off, ntiles, natoms, gs, op);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* A plain kernel over n items, 256 threads a block, as graph.cu's. */
template <class F>
void run_plain(int32_t sm_count, int64_t n, F &&f)
{
	simt::launch_cfg cfg = { xs_grid_size(sm_count, n, 256), 256, 0, false };

	simt::launch(cfg, f);
}

struct cover_op {
	const int32_t *off;
	int32_t *hits, *ends, *complete, *wrong;
	float *sum;

	float atom(int32_t t, int32_t a) const
	{
		if (a < off[t] || a >= off[t + 1])
			atomicAdd(wrong, 1);
		else
			atomicAdd(&hits[a - off[0]], 1);
		return 1.0f;
	}

	void tile(int32_t t, float s, bool c) const
	{
		atomicAdd(&ends[t], 1);
		atomicAdd(&complete[t], c ? 1 : 0);
		atomicAdd(&sum[t], s);
	}
};

int32_t grid_sm(const xs_simt_grid *g)
{
	return g->sm_count >= 1 ? g->sm_count : 1;
}

/* graph.cu's traverse() on the emulator. */
int traverse(const xs_csr *m, int32_t src, int s, const xs_simt_grid *g,
	     int32_t *depth, float *dist)
{
	int32_t n = m->rows, nf = 1, level = 0, cur = 0, count = 0;
	std::vector<int32_t> front[2] = { std::vector<int32_t>(n + 1),
					   std::vector<int32_t>(n + 1) };
	std::vector<int32_t> deg(n + 1), scan(n + 1), inq(n + 1, 0);
	int32_t sm = grid_sm(g);
	int32_t *pinq = dist ? inq.data() : NULL;
	int ret = 0;

	if (!grid_ok(g))
		return -EINVAL;
	if (m->rows != m->cols || src < 0 || src >= n)
		return -EINVAL;
	if (depth)
		memset(depth, 0xff, sizeof(int32_t) * (size_t)n);
	if (dist)
		run_plain(sm, n, [&] { xs::fill_inf(dist, n); });
	simt::launch({ 1, 32, 0, false }, [&] {
		if (threadIdx.x == 0)
			xs::init_source(depth, dist, front[0].data(), src);
	});
	while (nf > 0) {
		int32_t natoms = 0, *in = front[cur].data();

		if (level > n)
			return proto_error("no fixed point after %d expansions",
					   level);
		run_plain(sm, (int64_t)nf + 1, [&] {
			xs::frontier_degrees(m->offsets, in, nf, deg.data(),
					     pinq);
		});
		for (int32_t i = 0; i <= nf; i++) {
			scan[i] = natoms;
			natoms += deg[i];
		}
		count = 0;
		xs::frontier_base f = { m->offsets, m->indices, in, scan.data(),
					front[cur ^ 1].data(), &count };

		if (depth) {
			xs::bfs_op op = { f, depth, level + 1 };

			ret = run_schedule(s, g, scan.data(), nf, natoms, op);
		} else {
			xs::sssp_op op = { f, m->values, dist, inq.data() };

			ret = run_schedule(s, g, scan.data(), nf, natoms, op);
		}
		if (ret)
			return ret;
		if (count > n)
			return proto_error("expansion %d wrote %d > %d vertices",
					   level, count, n);
		nf = count;
		cur ^= 1;
		level++;
	}
	return level;
}

/* Everything a server run shares, zeroed as sync_server.cu's memsets. */
struct sync_mem {
	xs::msgbuf *bufs;
	xs::sync_ctl ctl;

	explicit sync_mem(int32_t ns)
	{
		bufs = (xs::msgbuf *)aligned_alloc(64, sizeof(xs::msgbuf) *
						   (size_t)ns);
		if (bufs)
			memset(bufs, 0, sizeof(xs::msgbuf) * (size_t)ns);
		memset(&ctl, 0, sizeof(ctl));
	}
	~sync_mem() { free(bufs); }
};

bool sync_ok(const xs_simt_sync *o)
{
	return o && o->block >= 64 && o->block <= 1024 && o->block % 32 == 0 &&
	       o->clients >= 1 &&
	       (o->mode == XS_CUDA_SYNC_GLOBAL_LOCK ||
		(o->mode == XS_CUDA_SYNC_SERVER && o->servers >= 1 &&
		 o->servers <= XS_SYNC_MAX_SERVERS));
}

/* sync_launch() of sync_server.cu, then the drained-buffers check. */
template <class Prod, class CS>
int run_server(const xs_simt_sync *o, int32_t n, Prod prod, CS cs)
{
	int32_t ns = o->servers, nc = o->clients;
	sync_mem mem(ns);
	size_t smem = sizeof(xs::server_shared);
	simt::launch_cfg cfg;

	if (!mem.bufs)
		return -ENOMEM;
	if (xs::client_smem((int)o->block) > smem)
		smem = xs::client_smem((int)o->block);
	cfg = { (uint32_t)(ns + nc), o->block, smem, true };
	simt::launch(cfg, [&] {
		xs::sync_kernel(mem.bufs, &mem.ctl, ns, nc, n, prod, cs);
	});
	for (int32_t s = 0; s < ns; s++) {
		const xs::msgbuf *b = &mem.bufs[s];

		if (b->read_idx != b->write_idx)
			return proto_error("server %d stopped at read index %u "
					   "of %u written", s, b->read_idx,
					   b->write_idx);
		for (uint32_t w = 0; w < XS_MB_WORDS; w++)
			if (b->valid[w])
				return proto_error("server %d left valid bits "
						   "%#x in word %u", s,
						   b->valid[w], w);
	}
	if (!mem.ctl.terminate || mem.ctl.clients_done != (uint32_t)nc)
		return proto_error("%u of %d clients done, terminate %u",
				   mem.ctl.clients_done, nc, mem.ctl.terminate);
	return 0;
}

} /* namespace */

extern "C" const char *xs_simt_error(void)
{
	return last_error;
}

extern "C" int xs_simt_spmv(const struct xs_csr *a, int schedule,
			    const struct xs_simt_grid *g, const float *x,
			    float *y)
{
	xs::spmv_op op = { a->indices, a->values, x, y };

	/* Merge-path adds split rows into y: zeroed first, as spmv.cu. */
	if (schedule == XS_CUDA_SCHED_MERGE_PATH)
		memset(y, 0, sizeof(float) * (size_t)a->rows);
	return run_schedule(schedule, g, a->offsets, a->rows, a->nnz, op);
}

extern "C" int xs_simt_spmm(const struct xs_csr *a, int schedule,
			    const struct xs_simt_grid *g, const float *b,
			    int32_t n, float *c)
{
	int ret = 0;

	memset(c, 0, sizeof(float) * (size_t)a->rows * (size_t)n);
	for (int32_t col = 0; !ret && col < n; col++) {
		xs::spmm_op op = { a->indices, a->values, b, c, n, col };

		ret = run_schedule(schedule, g, a->offsets, a->rows, a->nnz,
				   op);
	}
	return ret;
}

extern "C" int xs_simt_cover(const int32_t *offsets, int32_t ntiles,
			     int schedule, const struct xs_simt_grid *g,
			     int32_t *hits, int32_t *ends, int32_t *complete,
			     float *sum)
{
	int32_t natoms = offsets[ntiles] - offsets[0], wrong = 0;
	cover_op op = { offsets, hits, ends, complete, &wrong, sum };
	int ret;

	memset(hits, 0, sizeof(int32_t) * (size_t)natoms);
	memset(ends, 0, sizeof(int32_t) * (size_t)ntiles);
	memset(complete, 0, sizeof(int32_t) * (size_t)ntiles);
	memset(sum, 0, sizeof(float) * (size_t)ntiles);
	ret = run_schedule(schedule, g, offsets, ntiles, natoms, op);
	if (!ret && wrong)
		ret = proto_error("%d atoms visited as part of a tile they are "
				  "not in", wrong);
	return ret;
}

extern "C" int xs_simt_bfs(const struct xs_csr *graph, int32_t source,
			   int schedule, const struct xs_simt_grid *g,
			   int32_t *depth)
{
	return traverse(graph, source, schedule, g, depth, NULL);
}

extern "C" int xs_simt_sssp(const struct xs_csr *graph, int32_t source,
			    int schedule, const struct xs_simt_grid *g,
			    float *dist)
{
	return traverse(graph, source, schedule, g, NULL, dist);
}

extern "C" int xs_simt_hash_upsert(const struct xs_simt_sync *o,
				   const uint32_t *keys, const int32_t *deltas,
				   int32_t n, int32_t capacity,
				   uint32_t *out_keys, int64_t *out_vals)
{
	std::vector<uint32_t> tk(capacity, XS_EMPTY_KEY);
	std::vector<long long> tv(capacity, 0);
	int ret = 0;

	if (!sync_ok(o) || capacity < 32 || (capacity & (capacity - 1)))
		return -EINVAL;
	if (o->mode == XS_CUDA_SYNC_SERVER) {
		xs::hash_prod prod = { keys, deltas };
		xs::hash_cs cs = { tk.data(), tv.data(), NULL,
				   (uint32_t)capacity / (uint32_t)o->servers,
				   o->servers, 0 };
		uint32_t overflow = 0;

		cs.overflow = &overflow;
		ret = run_server(o, n, prod, cs);
		if (!ret && overflow)
			ret = -ENOSPC;
	} else {
		std::vector<uint32_t> locks(XS_GLOBAL_LOCKS, 0);
		uint32_t overflow = 0;

		simt::launch({ (uint32_t)o->clients, o->block, 0, false }, [&] {
			xs::hash_global_lock(keys, deltas, n, tk.data(),
					     tv.data(), (uint32_t)capacity,
					     locks.data(), &overflow);
		});
		if (overflow)
			ret = -ENOSPC;
	}
	if (ret)
		return ret;
	return xs_hash_table_collect(tk.data(), (const int64_t *)tv.data(),
				     capacity, out_keys, out_vals);
}

extern "C" int xs_simt_bank_transfer(const struct xs_simt_sync *o,
				     int64_t *balances, int32_t naccounts,
				     const int32_t *from, const int32_t *to,
				     const int32_t *amounts, int32_t n)
{
	long long *bal = (long long *)balances;

	static_assert(sizeof(long long) == sizeof(int64_t), "balances");
	if (!sync_ok(o) || naccounts < 1)
		return -EINVAL;
	if (o->mode == XS_CUDA_SYNC_SERVER) {
		xs::bank_prod prod = { from, to, amounts };
		xs::bank_cs cs = { bal, o->servers, 0 };

		return run_server(o, n, prod, cs);
	}
	std::vector<uint32_t> locks(XS_GLOBAL_LOCKS, 0);

	simt::launch({ (uint32_t)o->clients, o->block, 0, false }, [&] {
		xs::bank_global_lock(from, to, amounts, n, bal, locks.data());
	});
	return 0;
}
