// SPDX-License-Identifier: MIT
/*
 * affinity_record.c - the affinity recorder: which logical threads of a
 * loop touch which addresses, without binary instrumentation.
 *
 * The program registers its data regions (xs_affinity_region_add()). For
 * the profiling run the recorder protects them (PROT_NONE) and runs the
 * loop's logical threads one after the other on one thread. An access to a
 * watched page faults; the SIGSEGV handler gets the exact address
 * (si_addr), notes (address >> shift, current logical thread) and opens the
 * page. Then either
 *  - step mode (x86-64): the handler sets the trap flag, the faulting
 *    instruction runs once, SIGTRAP re-protects the page: every access is
 *    seen, at any granularity down to bytes (the seed's Pin tool sees the
 *    same); or
 *  - page mode: the page stays open until the next logical thread starts:
 *    the first access per page and logical thread is seen (the way NUMA
 *    balancing samples), far fewer faults.
 *
 * Cost: a fault (two in step mode, with two mprotects) per access seen.
 * Three levers, none changing what a seen access means: the index table is
 * sized to the watched bytes (no fixed price on small data); page mode
 * protects the pages a logical thread opened again with one mprotect per
 * run of adjacent pages; and cfg.sample watches one page in N (by a hash of
 * the page number, the same pages for the whole loop, the way NUMA
 * balancing samples a share of the address space), so about N times fewer
 * faults and a graph of the addresses on those pages.
 *
 * None of these bounds the cost: a loop that keeps touching watched pages
 * faults as often as it touches them. cfg.window does, the way NUMA
 * balancing scans a window of the address space per period (task_numa_work
 * marks scan_size of it per scan period, so hinting faults per second are
 * bounded by the scan rate): the watched pages (after cfg.sample) form a
 * ring in address order; each logical thread starts with the next
 * `window` pages of the ring protected and everything else open, and may
 * fault at most `window` times: the fault that spends the budget opens the
 * window for the rest of the logical thread. So faults <= window x logical
 * threads whatever the loop does, plus two mprotects per run of adjacent
 * pages per logical thread. The price is resolution: a page is watched for
 * window / ring of the logical threads, and an address shared by two
 * threads is seen shared only when both ran with it in the window (about
 * (window / ring)^2 of the pairs; cfg.sample keeps 1 / sample of them).
 *
 * The inverted index is built online, as the seed's Figure 4 wants, in
 * memory reserved up front (the handler never allocates): an open-
 * addressing table of addresses, each remembering the last logical thread
 * that touched it, and a log of (address, thread) pairs appended when that
 * thread changes. Logical threads run in increasing order, so each
 * address's threads come out increasing and distinct without a sort.
 * Memory is bounded: max_edges addresses, max_entries pairs; beyond that
 * pairs are counted as dropped and reported.
 *
 * Threads: only the recording thread runs the loop; the handler state is
 * its own. A fault of another thread in a watched page (the program broke
 * the rule) opens the page and is counted, never attributed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "xsched.h"
#include "affinity/affinity.h"
#include "base/atomics.h"
#include "core/runtime.h"

#define XS_AFF_MAX_REGIONS 64
#define XS_AFF_MAX_STEP_PAGES 16
#define XS_AFF_THREAD_CAP (1u << 20) /* pairs per logical thread */

struct xs_aff_region {
	uintptr_t lo, hi; /* page-aligned */
};

static pthread_mutex_t xs_aff_regions_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xs_aff_region xs_aff_regions[XS_AFF_MAX_REGIONS];
static uint32_t xs_aff_nregions;

static uintptr_t xs_aff_page(void)
{
	return (uintptr_t)sysconf(_SC_PAGESIZE);
}

int xs_affinity_region_add(const void *addr, size_t len)
{
	uintptr_t pg = xs_aff_page(), lo, hi;
	int ret = 0;

	if (!addr || !len || (uintptr_t)addr + len < (uintptr_t)addr)
		return -EINVAL;
	lo = ((uintptr_t)addr + pg - 1) & ~(pg - 1);
	hi = ((uintptr_t)addr + len) & ~(pg - 1);
	if (lo >= hi)
		return -EINVAL;
	pthread_mutex_lock(&xs_aff_regions_lock);
	if (xs_aff_nregions == XS_AFF_MAX_REGIONS)
		ret = -ENOSPC;
	else
		xs_aff_regions[xs_aff_nregions++] = (struct xs_aff_region){ lo, hi };
	pthread_mutex_unlock(&xs_aff_regions_lock);
	return ret;
}

int xs_affinity_region_remove(const void *addr)
{
	uintptr_t pg = xs_aff_page(), lo = ((uintptr_t)addr + pg - 1) & ~(pg - 1);
	int ret = -ENOENT;

	pthread_mutex_lock(&xs_aff_regions_lock);
	for (uint32_t i = 0; i < xs_aff_nregions; i++) {
		if (xs_aff_regions[i].lo != lo)
			continue;
		xs_aff_regions[i] = xs_aff_regions[--xs_aff_nregions];
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&xs_aff_regions_lock);
	return ret;
}

/* ---------------------------------------------------------------- */
/* The recording: one at a time, process-wide */

struct xs_aff_slot {
	uint64_t key;  /* (address >> shift) + 1; 0 = empty */
	uint32_t last; /* last logical thread noted; UINT32_MAX = none */
	uint32_t id;   /* hyperedge number, assigned at the end */
};

struct xs_aff_pair {
	uint32_t slot, thread;
};

static struct {
	/* Set before the handlers are installed and the pages protected,
	 * cleared after they are restored: the handlers run on the
	 * recording thread (tid) or see a fault of another thread. */
	bool active;
	pid_t tid;
	uint32_t shift;
	bool step;
	uint32_t sample;
	uint32_t cur;
	/* cfg.window: the ring of watched pages (address order), the window's
	 * start in it, faults left to this logical thread, and whether the
	 * window is protected now. */
	uint64_t window;
	uintptr_t *ring;
	uint64_t nring, wstart, budget;
	bool armed;
	uintptr_t pg;
	struct xs_aff_region regions[XS_AFF_MAX_REGIONS];
	uint32_t nregions;
	struct xs_aff_slot *tab;
	uint64_t tabmask, naddrs, max_edges;
	struct xs_aff_pair *log;
	uint64_t nlog, max_entries;
	uint32_t *vweight;
	uint64_t accesses, dropped;
	/* Pages opened and not yet closed: step mode, by the instruction
	 * being stepped; page mode, in the current logical thread. */
	uintptr_t *open;
	uint64_t nopen, maxopen;
	struct sigaction old_segv, old_trap;
} xs_rec;

/* Faults of threads other than the recording one (relaxed: a count). */
static _Atomic uint64_t xs_rec_foreign;
static _Atomic int xs_rec_busy;

bool xs_aff_can_step(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;
#endif
}

static void xs_aff_set_tf(void *uc, bool on)
{
#if defined(__x86_64__)
	ucontext_t *u = uc;

	if (on)
		u->uc_mcontext.gregs[REG_EFL] |= 0x100;
	else
		u->uc_mcontext.gregs[REG_EFL] &= ~0x100LL;
#else
	(void)uc, (void)on;
#endif
}

static bool xs_rec_watched(uintptr_t a)
{
	for (uint32_t i = 0; i < xs_rec.nregions; i++)
		if (a >= xs_rec.regions[i].lo && a < xs_rec.regions[i].hi)
			return true;
	return false;
}

static void xs_rec_chain(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
	if (old->sa_flags & SA_SIGINFO && old->sa_sigaction) {
		old->sa_sigaction(sig, si, uc);
		return;
	}
	if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* Default action: return into the fault with it restored. */
	signal(sig, SIG_DFL);
}

static void xs_rec_note(uintptr_t a)
{
	uint64_t key = (a >> xs_rec.shift) + 1, i;
	struct xs_aff_slot *s;
	uint32_t k = xs_rec.cur;

	xs_rec.accesses++;
	/* splitmix64's finaliser spreads neighbouring addresses. */
	i = key * 0x9e3779b97f4a7c15ull;
	i ^= i >> 29;
	for (i &= xs_rec.tabmask;; i = (i + 1) & xs_rec.tabmask) {
		s = &xs_rec.tab[i];
		if (s->key == key)
			break;
		if (!s->key) {
			if (xs_rec.naddrs == xs_rec.max_edges) {
				xs_rec.dropped++;
				return;
			}
			s->key = key;
			s->last = UINT32_MAX;
			xs_rec.naddrs++;
			break;
		}
	}
	if (s->last == k)
		return;
	s->last = k;
	if (xs_rec.nlog == xs_rec.max_entries || xs_rec.vweight[k] == XS_AFF_THREAD_CAP) {
		xs_rec.dropped++;
		return;
	}
	xs_rec.log[xs_rec.nlog++] = (struct xs_aff_pair){ (uint32_t)i, k };
	xs_rec.vweight[k]++;
}

/* Protect (@prot PROT_NONE) or open the window's pages, one mprotect per
 * run of pages adjacent in memory (also from the SIGSEGV handler: no
 * allocation, mprotect only). */
static void xs_rec_window(int prot)
{
	uint64_t w = xs_rec.window < xs_rec.nring ? xs_rec.window : xs_rec.nring, i = 0;

	while (i < w) {
		uintptr_t lo = xs_rec.ring[(xs_rec.wstart + i) % xs_rec.nring], hi = lo + xs_rec.pg;

		while (++i < w && xs_rec.ring[(xs_rec.wstart + i) % xs_rec.nring] == hi)
			hi += xs_rec.pg;
		mprotect((void *)lo, hi - lo, prot);
	}
	xs_rec.armed = prot == PROT_NONE;
}

static void xs_rec_segv(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	uintptr_t a = (uintptr_t)si->si_addr, page = a & ~(xs_rec.pg - 1);

	if (!xs_rec.active || si->si_code != SEGV_ACCERR || !xs_rec_watched(a)) {
		xs_rec_chain(&xs_rec.old_segv, sig, si, uc);
		errno = saved;
		return;
	}
	if (gettid() != xs_rec.tid) {
		/* Relaxed: a count read after the recording ends; the
		 * mprotect() below orders nothing through it. */
		xs_fetch_add_relaxed(&xs_rec_foreign, 1);
		mprotect((void *)page, xs_rec.pg, PROT_READ | PROT_WRITE);
		errno = saved;
		return;
	}
	xs_rec_note(a);
	if (xs_rec.window) {
		/* The window: page mode leaves the page open until the next
		 * logical thread moves the window; the last fault of the
		 * budget opens the whole window. */
		if (xs_rec.budget)
			xs_rec.budget--;
		if (!xs_rec.budget) {
			/* Nothing for SIGTRAP to protect again, should this
			 * instruction have opened a page before. */
			xs_rec.nopen = 0;
			xs_rec_window(PROT_READ | PROT_WRITE);
		} else {
			mprotect((void *)page, xs_rec.pg, PROT_READ | PROT_WRITE);
			if (xs_rec.step && xs_rec.nopen < xs_rec.maxopen) {
				xs_rec.open[xs_rec.nopen++] = page;
				xs_aff_set_tf(uc, true);
			}
		}
		errno = saved;
		return;
	}
	mprotect((void *)page, xs_rec.pg, PROT_READ | PROT_WRITE);
	if (xs_rec.nopen < xs_rec.maxopen)
		xs_rec.open[xs_rec.nopen++] = page;
	if (xs_rec.step)
		xs_aff_set_tf(uc, true);
	errno = saved;
}

static int xs_rec_cmp_page(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Protect the open pages again: one mprotect per run of adjacent pages
 * (outside the handlers: qsort is not async-signal-safe). */
static void xs_rec_close_runs(void)
{
	uint64_t i = 0;

	if (xs_rec.nopen > 1)
		qsort(xs_rec.open, xs_rec.nopen, sizeof(*xs_rec.open), xs_rec_cmp_page);
	while (i < xs_rec.nopen) {
		uintptr_t lo = xs_rec.open[i], hi = lo + xs_rec.pg;

		while (++i < xs_rec.nopen && xs_rec.open[i] <= hi)
			hi = xs_rec.open[i] + xs_rec.pg;
		mprotect((void *)lo, hi - lo, PROT_NONE);
	}
	xs_rec.nopen = 0;
}

/* The same from the SIGTRAP handler (step mode: a page or two). */
static void xs_rec_close_open(void)
{
	for (uint64_t i = 0; i < xs_rec.nopen; i++)
		mprotect((void *)xs_rec.open[i], xs_rec.pg, PROT_NONE);
	xs_rec.nopen = 0;
}

/* Whether page @page is one the recording watches (cfg.sample). */
static bool xs_rec_sampled(uintptr_t page)
{
	uint64_t h = (uint64_t)(page / xs_rec.pg) * 0x9e3779b97f4a7c15ull;

	return xs_rec.sample <= 1 || (h >> 40) % xs_rec.sample == 0;
}

/* Protect (@prot PROT_NONE) or open the watched pages of the regions: one
 * call per region, or per sampled page. With a window only the window is
 * ever protected (xs_rec_window()). Returns 0 or -errno. */
static int xs_rec_protect(int prot)
{
	if (xs_rec.window && prot == PROT_NONE)
		return 0;
	for (uint32_t i = 0; i < xs_rec.nregions; i++) {
		uintptr_t lo = xs_rec.regions[i].lo, hi = xs_rec.regions[i].hi;

		if (xs_rec.sample <= 1 || prot != PROT_NONE) {
			if (mprotect((void *)lo, hi - lo, prot))
				return -errno;
			continue;
		}
		for (uintptr_t p = lo; p < hi; p += xs_rec.pg)
			if (xs_rec_sampled(p) && mprotect((void *)p, xs_rec.pg, prot))
				return -errno;
	}
	return 0;
}

/* The ring of watched pages in address order (cfg.window): 0 or -ENOMEM. */
static int xs_rec_ring(uint64_t pages)
{
	xs_rec.ring = malloc((pages ? pages : 1) * sizeof(*xs_rec.ring));
	if (!xs_rec.ring)
		return -ENOMEM;
	for (uint32_t i = 0; i < xs_rec.nregions; i++)
		for (uintptr_t p = xs_rec.regions[i].lo; p < xs_rec.regions[i].hi; p += xs_rec.pg)
			if (xs_rec_sampled(p))
				xs_rec.ring[xs_rec.nring++] = p;
	qsort(xs_rec.ring, xs_rec.nring, sizeof(*xs_rec.ring), xs_rec_cmp_page);
	return 0;
}

static void xs_rec_trap(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (!xs_rec.active || !xs_rec.step || gettid() != xs_rec.tid) {
		xs_rec_chain(&xs_rec.old_trap, sig, si, uc);
		errno = saved;
		return;
	}
	xs_rec_close_open();
	xs_aff_set_tf(uc, false);
	errno = saved;
}

uint64_t xs_aff_granule(uint64_t n, int64_t opt)
{
	uint64_t g = n / 262144 + (n % 262144 != 0);

	if (opt > 0)
		return (uint64_t)opt;
	return g ? g : 1;
}

static void *xs_rec_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static double xs_rec_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The hypergraph of the log: addresses touched by two threads or more. */
static int xs_rec_build(struct xs_aff_hgraph *h)
{
	uint64_t *cnt = NULL, ne = 0, nent = 0;
	int ret = -ENOMEM;

	cnt = calloc(xs_rec.tabmask + 1, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (uint64_t i = 0; i < xs_rec.nlog; i++)
		cnt[xs_rec.log[i].slot]++;
	for (uint64_t s = 0; s <= xs_rec.tabmask; s++) {
		if (cnt[s] < 2)
			continue;
		xs_rec.tab[s].id = (uint32_t)ne++;
		nent += cnt[s];
	}
	h->nedges = ne;
	h->nentries = nent;
	h->eoff = calloc(ne + 1, sizeof(*h->eoff));
	h->ethreads = malloc((nent ? nent : 1) * sizeof(*h->ethreads));
	if (!h->eoff || !h->ethreads)
		goto out;
	for (uint64_t s = 0; s <= xs_rec.tabmask; s++)
		if (cnt[s] >= 2)
			h->eoff[xs_rec.tab[s].id + 1] = cnt[s];
	for (uint64_t e = 0; e < ne; e++)
		h->eoff[e + 1] += h->eoff[e];
	/* cnt[s] becomes the fill position of edge s. */
	for (uint64_t s = 0; s <= xs_rec.tabmask; s++)
		cnt[s] = cnt[s] >= 2 ? h->eoff[xs_rec.tab[s].id] : UINT64_MAX;
	for (uint64_t i = 0; i < xs_rec.nlog; i++) {
		uint64_t *pos = &cnt[xs_rec.log[i].slot];

		if (*pos != UINT64_MAX)
			h->ethreads[(*pos)++] = xs_rec.log[i].thread;
	}
	ret = 0;
out:
	free(cnt);
	return ret;
}

static void xs_rec_release(void)
{
	if (xs_rec.tab)
		munmap(xs_rec.tab, (xs_rec.tabmask + 1) * sizeof(*xs_rec.tab));
	if (xs_rec.log)
		munmap(xs_rec.log, xs_rec.max_entries * sizeof(*xs_rec.log));
	free(xs_rec.open);
	free(xs_rec.ring);
	xs_rec.ring = NULL;
	xs_rec.tab = NULL;
	xs_rec.log = NULL;
	xs_rec.open = NULL;
}

int xs_aff_record(uint64_t n, uint64_t granule, const struct xs_aff_record_cfg *cfg,
		  xs_aff_chunk_fn fn, void *ctx, struct xs_aff_hgraph *h)
{
	struct sigaction sa;
	uint64_t T, pages = 0, cap = 1;
	double t0;
	int ret = 0;

	memset(h, 0, sizeof(*h));
	if (!granule || !fn || cfg->shift > 12)
		return -EINVAL;
	T = n / granule + (n % granule != 0);
	if (T > UINT32_MAX - 1)
		return -E2BIG;
	if (xs_exchange_acquire(&xs_rec_busy, 1))
		return -EBUSY;
	memset(&xs_rec, 0, offsetof(__typeof__(xs_rec), old_segv));
	xs_rec.pg = xs_aff_page();
	pthread_mutex_lock(&xs_aff_regions_lock);
	xs_rec.nregions = xs_aff_nregions;
	memcpy(xs_rec.regions, xs_aff_regions, sizeof(xs_aff_regions));
	pthread_mutex_unlock(&xs_aff_regions_lock);
	if (!xs_rec.nregions) {
		ret = -ENODATA;
		goto out_busy;
	}
	for (uint32_t i = 0; i < xs_rec.nregions; i++)
		pages += (xs_rec.regions[i].hi - xs_rec.regions[i].lo) / xs_rec.pg;
	xs_rec.shift = cfg->shift;
	xs_rec.step = cfg->step && xs_aff_can_step();
	xs_rec.sample = cfg->sample;
	xs_rec.window = cfg->window;
	xs_rec.max_edges = cfg->max_edges ? cfg->max_edges : 1u << 22;
	xs_rec.max_entries = cfg->max_entries ? cfg->max_entries : 1u << 26;
	/* No more addresses than the watched bytes hold: a table sized to
	 * them costs no fixed price on small data (the scan at the end and
	 * the pages the hash spreads keys over). */
	if (!cfg->max_edges && (pages * xs_rec.pg) >> xs_rec.shift < xs_rec.max_edges)
		xs_rec.max_edges = ((pages * xs_rec.pg) >> xs_rec.shift) + 1;
	if (xs_rec.max_edges > UINT32_MAX / 2)
		xs_rec.max_edges = UINT32_MAX / 2;
	while (cap < 2 * xs_rec.max_edges)
		cap <<= 1;
	xs_rec.tabmask = cap - 1;
	xs_rec.maxopen = xs_rec.step ? XS_AFF_MAX_STEP_PAGES : pages;
	xs_rec.tab = xs_rec_map(cap * sizeof(*xs_rec.tab));
	xs_rec.log = xs_rec_map(xs_rec.max_entries * sizeof(*xs_rec.log));
	xs_rec.open = malloc(xs_rec.maxopen * sizeof(*xs_rec.open));
	h->vweight = calloc(T ? T : 1, sizeof(*h->vweight));
	if (!xs_rec.tab || !xs_rec.log || !xs_rec.open || !h->vweight ||
	    (xs_rec.window && xs_rec_ring(pages))) {
		ret = -ENOMEM;
		goto out_mem;
	}
	if (xs_rec.window && !xs_rec.nring)
		xs_rec.window = 0; /* no page sampled: nothing to watch */
	xs_rec.vweight = h->vweight;
	xs_rec.tid = gettid();
	xs_rec.active = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = xs_rec_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &xs_rec.old_segv)) {
		ret = -errno;
		goto out_mem;
	}
	sa.sa_sigaction = xs_rec_trap;
	if (sigaction(SIGTRAP, &sa, &xs_rec.old_trap)) {
		ret = -errno;
		goto out_segv;
	}
	ret = xs_rec_protect(PROT_NONE);
	if (ret)
		goto out_unprotect;
	t0 = xs_rec_now();
	for (uint64_t k = 0; k < T; k++) {
		uint64_t lo = k * granule, hi = n - lo > granule ? lo + granule : n;

		if (xs_rec.window) {
			/* Open the last window, protect the next one. */
			if (xs_rec.armed)
				xs_rec_window(PROT_READ | PROT_WRITE);
			xs_rec.wstart = k ? (xs_rec.wstart + xs_rec.window) % xs_rec.nring : 0;
			xs_rec.budget = xs_rec.window;
			xs_rec.nopen = 0;
			xs_rec_window(PROT_NONE);
		} else if (xs_rec.nopen) {
			xs_rec_close_runs();
		}
		/* The handlers run on this thread, between our own
		 * instructions: no ordering to publish. */
		xs_rec.cur = (uint32_t)k;
		fn(ctx, lo, hi);
	}
	h->seconds = xs_rec_now() - t0;
out_unprotect:
	xs_rec_protect(PROT_READ | PROT_WRITE);
	sigaction(SIGTRAP, &xs_rec.old_trap, NULL);
out_segv:
	sigaction(SIGSEGV, &xs_rec.old_segv, NULL);
	xs_rec.active = false;
	if (!ret) {
		h->n = n;
		h->granule = granule;
		h->nthreads = (uint32_t)T;
		h->shift = xs_rec.shift;
		h->naddrs = xs_rec.naddrs;
		h->accesses = xs_rec.accesses;
		h->dropped = xs_rec.dropped;
		ret = xs_rec_build(h);
	}
out_mem:
	xs_rec_release();
	if (ret)
		xs_aff_hgraph_free(h);
out_busy:
	xs_store_release(&xs_rec_busy, 0);
	return ret;
}

/* ---------------------------------------------------------------- */
/* The hook of xs_parallel_for() */

static _Atomic int xs_rec_done;

struct xs_rec_job {
	uint64_t n, granule;
	struct xs_aff_record_cfg cfg;
	xs_aff_chunk_fn fn;
	void *ctx;
	struct xs_aff_hgraph h;
	int ret;
};

static void xs_rec_worker(void *arg)
{
	struct xs_rec_job *j = arg;

	if (xs_worker_id() == 0)
		j->ret = xs_aff_record(j->n, j->granule, &j->cfg, j->fn, j->ctx, &j->h);
}

int xs_affinity_record_loop(struct xs_runtime *rt, uint64_t n, xs_aff_chunk_fn fn, void *ctx)
{
	const char *path = rt->opt.affinity_record;
	struct xs_rec_job j = { .n = n, .fn = fn, .ctx = ctx };
	int ret;

	if (!path[0] || n < 2)
		return 0;
	/* Relaxed: only which loop gets recorded is decided here. */
	if (xs_exchange_relaxed(&xs_rec_done, 1))
		return 0;
	j.granule = xs_aff_granule(n, rt->opt.affinity_granule);
	j.cfg.shift = (uint32_t)rt->opt.affinity_shift;
	j.cfg.step = rt->opt.affinity_step;
	j.cfg.sample = (uint32_t)rt->opt.affinity_sample;
	j.cfg.window = (uint64_t)rt->opt.affinity_window;
	ret = xs_runtime_parallel(rt, xs_rec_worker, &j);
	if (ret >= 0)
		ret = j.ret;
	if (ret == -ENODATA) {
		fprintf(stderr, "xsched: XSCHED_AFFINITY_RECORD=%s: no data region registered "
			"(xs_affinity_region_add()); nothing recorded\n", path);
		return 0;
	}
	if (ret < 0) {
		fprintf(stderr, "xsched: XSCHED_AFFINITY_RECORD=%s: recording failed: %s\n", path,
			strerror(-ret));
		return ret;
	}
	ret = xs_aff_hgraph_write(path, &j.h);
	if (!ret)
		fprintf(stderr, "xsched: affinity: recorded a loop of %llu iterations as %u logical "
			"threads (granule %llu) in %.3f s: %llu accesses, %llu addresses, %llu "
			"shared, %llu pairs dropped; wrote %s\n", (unsigned long long)n,
			j.h.nthreads, (unsigned long long)j.granule, j.h.seconds,
			(unsigned long long)j.h.accesses, (unsigned long long)j.h.naddrs,
			(unsigned long long)j.h.nedges, (unsigned long long)j.h.dropped, path);
	xs_aff_hgraph_free(&j.h);
	return ret < 0 ? ret : 1;
}
