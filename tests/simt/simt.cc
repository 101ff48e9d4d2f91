// SPDX-License-Identifier: MIT
/*
 * simt.cc - the fiber scheduler of the host SIMT emulator (see simt.h).
 *
 * State of a launch:
 *   runnable   fibers that may be switched to; a fiber waiting in a block
 *              barrier or a warp collective is not in it, so the random
 *              pick never wastes a switch on a fiber that cannot move
 *   live       fibers that have not returned from the kernel body
 *   delayed    fibers held back until a later switch (a min-heap on the
 *              switch count): at a sync point a running fiber is delayed
 *              with probability 1/8, a released waiter with 1/4, for a
 *              heavy-tailed number of switches (up to 64 per live fiber). Uniform random picks
 *              alone keep all fibers nearly in step and almost never
 *              open a window where one warp runs far ahead of another;
 *              delays do (as warps descheduled on a real SM).
 * Invariant: runnable and delayed are disjoint subsets of live; a live
 * fiber in neither waits in a barrier or collective, and only an arrival
 * of another fiber can release it. Hence runnable and delayed both empty
 * while live is not = deadlock.
 *
 * Everything runs on the launching OS thread; nothing here is shared
 * between OS threads, so no atomics are needed.
 */
#include "simt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#include <queue>
#include <vector>

namespace simt {

namespace {

const size_t stack_bytes = 64 << 10;
const size_t guard_bytes = 4096;

struct block;

struct fiber {
	ids id;
	ucontext_t ctx;
	char *stack;		/* mmap'ed, guard page below */
	block *blk;
	unsigned int warp;	/* index in blk->warps */
	const char *site;	/* last sync point, for diagnostics */
	int runnable_pos;	/* index in runnable, -1 when not in it */
	uint64_t wake_at;	/* while delayed: the switch it returns at */
	bool live;
};

/*
 * One rendezvous of a warp collective. COLLECTING while lanes of @mask
 * arrive; the last arrival copies the deposits to out and makes it
 * DRAINING, until every lane of the mask has read out; then it is FREE.
 * A new collective on the same mask never joins a DRAINING one, so out is
 * never overwritten before all its readers have it.
 */
struct rendezvous {
	enum { FREE, COLLECTING, DRAINING } state;
	uint32_t mask, arrived, readers;
	uint64_t in[32], out[32];
	fiber *waiting[32];
};

struct warp {
	fiber *lanes[32];
	uint32_t exited;
	rendezvous rdv[32];	/* collecting or draining, per mask */
};

struct block {
	unsigned int live;	/* threads that have not returned */
	unsigned int arrived;	/* at the current barrier */
	std::vector<fiber *> at_barrier;
	std::vector<warp> warps;
	std::vector<unsigned char> smem;
};

struct later {
	bool operator()(const fiber *a, const fiber *b) const
	{
		return a->wake_at > b->wake_at;
	}
};

struct scheduler {
	std::vector<fiber *> runnable;
	std::priority_queue<fiber *, std::vector<fiber *>, later> delayed;
	std::vector<fiber *> fibers;	/* of this launch, for diagnostics */
	std::vector<char *> stacks;	/* kept from launch to launch */
	ucontext_t main_ctx;
	fiber *cur;
	unsigned int live;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	uint64_t switches;
	struct timespec start;
	double timeout_s;
	void (*body)(void *);
	void *arg;
};

scheduler S;

uint64_t next_random()
{
	/* xorshift64* */
	S.rng ^= S.rng >> 12;
	S.rng ^= S.rng << 25;
	S.rng ^= S.rng >> 27;
	return S.rng * 0x2545f4914f6cdd1dull;
}

double cpu_seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

void dump_fibers(FILE *f)
{
	for (fiber *x : S.fibers)
		if (x->live)
			fprintf(f, "simt:   block %u thread %u: %s at %s\n",
				x->id.block_idx.x, x->id.thread_idx.x,
				x->runnable_pos < 0 ? "waits" : "runs",
				x->site ? x->site : "(start)");
}

void make_runnable(fiber *f)
{
	if (f->runnable_pos >= 0)
		return;
	f->runnable_pos = (int)S.runnable.size();
	S.runnable.push_back(f);
}

void make_waiting(fiber *f)
{
	int i = f->runnable_pos;
	fiber *last = S.runnable.back();

	if (i < 0)
		return;
	S.runnable[i] = last;
	last->runnable_pos = i;
	S.runnable.pop_back();
	f->runnable_pos = -1;
}

void delay(fiber *f)
{
	/* Heavy-tailed: mostly short, sometimes long enough (up to 64
	 * switches per live fiber) for whole warps to run far ahead. */
	uint64_t span = (S.live + 32) << (next_random() % 7);

	f->wake_at = S.switches + 1 + next_random() % span;
	S.delayed.push(f);
}

/* A waiter may go on, now or after a delay. */
void release(fiber *f)
{
	if (next_random() % 4 == 0)
		delay(f);
	else
		make_runnable(f);
}

/* Switch from the running fiber (or main) to a random runnable one; back
 * to main when no fiber is live. */
void reschedule()
{
	ucontext_t *from = S.cur ? &S.cur->ctx : &S.main_ctx;
	fiber *prev = S.cur;

	if (prev && prev->runnable_pos >= 0 && next_random() % 8 == 0) {
		make_waiting(prev);
		delay(prev);
	}
	while (!S.delayed.empty() &&
	       (S.delayed.top()->wake_at <= S.switches || S.runnable.empty())) {
		make_runnable(S.delayed.top());
		S.delayed.pop();
	}
	if (S.runnable.empty()) {
		if (S.live) {
			fprintf(stderr, "simt: deadlock: every live thread "
				"waits in a barrier or warp collective\n");
			dump_fibers(stderr);
			abort();
		}
		S.cur = NULL;
		current = NULL;
		if (prev)
			swapcontext(from, &S.main_ctx);
		return;
	}
	if (++S.switches % 65536 == 0 && S.timeout_s > 0 &&
	    cpu_seconds_since(&S.start) > S.timeout_s) {
		fprintf(stderr, "simt: launch still running after %.0f s of CPU time "
			"(livelock? XS_SIMT_TIMEOUT): last sync points:\n",
			S.timeout_s);
		dump_fibers(stderr);
		abort();
	}
	S.cur = S.runnable[next_random() % S.runnable.size()];
	current = &S.cur->id;
	if (S.cur != prev)
		swapcontext(from, &S.cur->ctx);
}

void thread_exit(fiber *f)
{
	block *b = f->blk;
	warp &w = b->warps[f->warp];
	unsigned int lane = f->id.thread_idx.x % 32;

	f->live = false;
	make_waiting(f);
	S.live--;
	b->live--;
	w.exited |= 1u << lane;
	/* Exited threads count as arrived at the block barrier (as on the
	 * hardware), so the others may now be complete. */
	if (b->arrived && b->arrived == b->live) {
		for (fiber *x : b->at_barrier)
			release(x);
		b->at_barrier.clear();
		b->arrived = 0;
	}
	/* A collective that waits for this lane can never complete. */
	for (rendezvous &r : w.rdv)
		if (r.state == rendezvous::COLLECTING && (r.mask >> lane & 1))
			fail("thread %u exited while lanes of mask %#x wait "
			     "for it in a warp collective", f->id.thread_idx.x,
			     r.mask);
}

void trampoline()
{
	fiber *f = S.cur;

	S.body(S.arg);
	thread_exit(f);
	reschedule();
	/* not reached: a finished fiber is never switched to again */
	abort();
}

char *stack_get(size_t i)
{
	while (S.stacks.size() <= i) {
		void *p = mmap(NULL, stack_bytes + guard_bytes,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			perror("simt: mmap of a fiber stack");
			abort();
		}
		mprotect(p, guard_bytes, PROT_NONE);
		S.stacks.push_back((char *)p);
	}
	return S.stacks[i];
}

/* A context that starts the kernel body on f's stack (out of line: the
 * caller's locals must not live across getcontext). */
__attribute__((noinline)) void fiber_context(fiber *f)
{
	getcontext(&f->ctx);
	f->ctx.uc_stack.ss_sp = f->stack + guard_bytes;
	f->ctx.uc_stack.ss_size = stack_bytes;
	f->ctx.uc_link = NULL;
	makecontext(&f->ctx, trampoline, 0);
}

/* Create the fibers of blocks [b0, b1) and run them to completion. */
void run_blocks(const launch_cfg &cfg, unsigned int b0, unsigned int b1)
{
	unsigned int nwarps = (cfg.block + 31) / 32;
	std::vector<block> blocks(b1 - b0);
	std::vector<fiber> fibers((size_t)(b1 - b0) * cfg.block);
	size_t k = 0;

	S.fibers.clear();
	for (unsigned int bi = b0; bi < b1; bi++) {
		block &b = blocks[bi - b0];

		b.live = cfg.block;
		b.arrived = 0;
		b.warps.assign(nwarps, warp());
		b.smem.assign(cfg.smem, 0xa5);
		for (unsigned int t = 0; t < cfg.block; t++, k++) {
			fiber &f = fibers[k];

			f.id.thread_idx = { t, 0, 0 };
			f.id.block_idx = { bi, 0, 0 };
			f.id.block_dim = { cfg.block, 1, 1 };
			f.id.grid_dim = { cfg.grid, 1, 1 };
			f.blk = &b;
			f.warp = t / 32;
			f.site = NULL;
			f.live = true;
			f.runnable_pos = -1;
			f.stack = stack_get(k);
			b.warps[t / 32].lanes[t % 32] = &f;
			fiber_context(&f);
			release(&f);
			S.fibers.push_back(&f);
			S.live++;
		}
		/* Lanes past the end of a partial last warp never arrive. */
		b.warps[nwarps - 1].exited = cfg.block % 32 ?
			~0u << (cfg.block % 32) : 0;
	}
	S.cur = NULL;
	reschedule();
	S.fibers.clear();
}

} /* namespace */

ids *current;

void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "simt: ");
	if (S.cur)
		fprintf(stderr, "block %u thread %u: ", S.cur->id.block_idx.x,
			S.cur->id.thread_idx.x);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void yield(const char *site)
{
	if (!S.cur)
		fail("%s called outside a kernel", site);
	S.cur->site = site;
	reschedule();
}

unsigned int lane()
{
	return S.cur->id.thread_idx.x % 32;
}

void *dynamic_smem()
{
	return S.cur->blk->smem.data();
}

void block_barrier()
{
	fiber *f = S.cur;
	block *b = f->blk;

	f->site = "__syncthreads";
	if (++b->arrived == b->live) {
		for (fiber *x : b->at_barrier)
			release(x);
		b->at_barrier.clear();
		b->arrived = 0;
	} else {
		b->at_barrier.push_back(f);
		make_waiting(f);
	}
	reschedule();
}

void warp_exchange(uint32_t mask, uint64_t v, uint64_t out[32],
		   const char *site)
{
	fiber *f = S.cur;
	warp &w = f->blk->warps[f->warp];
	unsigned int l = lane();
	rendezvous *r = NULL;

	f->site = site;
	if (!(mask >> l & 1))
		fail("%s with mask %#x, which leaves out the calling lane %u",
		     site, mask, l);
	if (mask & w.exited)
		fail("%s with mask %#x names exited lanes %#x", site, mask,
		     mask & w.exited);
	for (rendezvous &x : w.rdv)
		if (x.state == rendezvous::COLLECTING && x.mask == mask)
			r = &x;
	for (rendezvous &x : w.rdv)
		if (!r && x.state == rendezvous::FREE) {
			r = &x;
			r->state = rendezvous::COLLECTING;
			r->mask = mask;
			r->arrived = 0;
		}
	if (!r)
		fail("%s: more than 32 collectives in flight", site);
	r->in[l] = v;
	r->arrived |= 1u << l;
	if (r->arrived == mask) {
		for (int i = 0; i < 32; i++)
			r->out[i] = mask >> i & 1 ? r->in[i] : 0;
		r->state = rendezvous::DRAINING;
		r->readers = (uint32_t)__builtin_popcount(mask);
		for (int i = 0; i < 32; i++)
			if (i != (int)l && (mask >> i & 1))
				release(r->waiting[i]);
	} else {
		r->waiting[l] = f;
		make_waiting(f);
	}
	reschedule();
	memcpy(out, r->out, sizeof(r->out));
	if (--r->readers == 0)
		r->state = rendezvous::FREE;
}

void launch(const launch_cfg &cfg, void (*body)(void *), void *arg)
{
	const char *t = getenv("XS_SIMT_TIMEOUT");

	if (S.cur)
		fail("launch from inside a kernel (dynamic parallelism is not "
		     "emulated)");
	if (cfg.grid == 0 || cfg.block == 0 || cfg.block > 1024)
		fail("launch of %u blocks of %u threads: bad configuration",
		     cfg.grid, cfg.block);
	S.timeout_s = t ? atof(t) : 20;
	S.body = body;
	S.arg = arg;
	S.live = 0;
	S.switches = 0;
	/* CPU time, not wall time: on a loaded machine (a CI host running
	 * other jobs) a correct launch may wait for a CPU far longer than
	 * it runs; only time spent running can show a livelock. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &S.start);
	if (cfg.coresident)
		run_blocks(cfg, 0, cfg.grid);
	else
		for (unsigned int b = 0; b < cfg.grid; b++)
			run_blocks(cfg, b, b + 1);
}

} /* namespace simt */

extern "C" void xs_simt_seed(uint64_t seed)
{
	simt::S.rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}
