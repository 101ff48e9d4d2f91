// SPDX-License-Identifier: MIT
/*
 * The drop-in (build/libxsched-gomp.so.1, loaded with dlopen and driven
 * through the GOMP ABI as gcc -fopenmp code would) sizes a region's team
 * by this process's CPU share when dyn-var is true, never above the
 * request, and exactly as requested when it is false. The share comes from
 * a fake xschedd whose state the test forges (tests/xschedd-fake.h):
 *
 *   own entry 1 CPU of 2               -> team 1 (dyn), 2 (no dyn)
 *   own entry 2 CPUs                   -> team 2
 *   no entry (or 0: idle until now),
 *   1 other process listed, 2 CPUs     -> 1 (a newcomer's part)
 *   no entry, nobody listed            -> 2
 *   share_count beyond the array       -> the load-average rule, and a
 *                                         message naming the state file
 *                                         and what is wrong with it
 *   the daemon's heartbeat stops       -> the load-average rule, silently
 *   the state repaired                 -> the share again
 *
 * and without any daemon (XSCHED_DAEMON=off), libgomp's rule: the CPUs
 * less the 15-minute load average.
 */
#include <dlfcn.h>

#include "capture-stderr.h"
#include "xschedd-fake.h"

static void (*gomp_parallel)(void (*)(void *), void *, unsigned, unsigned);
static int (*omp_get_num_threads_p)(void);
static void (*omp_set_dynamic_p)(int);

static void note_size(void *p)
{
	_Atomic int *size = p;

	/* Relaxed: every thread stores the same value; the region's end
	 * orders it before the caller's read. */
	atomic_store_explicit(size, omp_get_num_threads_p(), memory_order_relaxed);
}

/* The team size of a region that asks for @req threads. */
static int team(unsigned req)
{
	_Atomic int size = 0;

	gomp_parallel(note_size, &size, req, 0);
	return atomic_load_explicit(&size, memory_order_relaxed);
}

static const char *dropin_load(void)
{
	static char path[PATH_MAX], why[PATH_MAX + 64];
	const char *b = getenv("XS_BUILDDIR");
	void *h;

	snprintf(path, sizeof(path), "%s/libxsched-gomp.so.1", b && *b ? b : "build");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why), "cannot load the drop-in: %s", dlerror());
		return why;
	}
	gomp_parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(h, "GOMP_parallel");
	omp_get_num_threads_p = (int (*)(void))dlsym(h, "omp_get_num_threads");
	omp_set_dynamic_p = (void (*)(int))dlsym(h, "omp_set_dynamic");
	if (!gomp_parallel || !omp_get_num_threads_p || !omp_set_dynamic_p)
		return "the drop-in lacks GOMP_parallel or omp_*";
	return NULL;
}

/* libgomp's rule as the drop-in applies it, for @req threads. */
static int loadavg_team(unsigned req)
{
	double l[3];
	uint32_t n = xs_share_loadavg_rule(xs_affinity_cpus(), getloadavg(l, 3) == 3 ? l[2] : 0);

	return (int)(n < req ? n : req);
}

/* Rewrite the forged share table under the seqlock: this process's entry
 * with @mine CPUs and another process's with @other (-1: no entry; 0: idle,
 * listed), dividing @share_cpus; @count overrides the entry count (-1: the
 * entries written). */
static void forge(struct fake *f, int mine, int other, uint32_t share_cpus, int64_t count)
{
	struct xs_abi_header *h = f->h;
	struct xs_abi_share *s = (void *)((char *)h + h->share_off);
	uint32_t n = 0;

	xs_abi_write_begin(h);
	memset(s, 0, (size_t)h->nshares * sizeof(*s));
	if (other >= 0)
		s[n++] = (struct xs_abi_share){ .pid = 1, .cpus = (uint32_t)other, .workers = 2,
						.running = other ? 2 : 0,
						.active_ns = xsd_test_now_ns() };
	if (mine >= 0)
		s[n++] = (struct xs_abi_share){ .pid = (uint32_t)getpid(), .cpus = (uint32_t)mine,
						.workers = 2, .running = mine ? 2 : 0,
						.active_ns = xsd_test_now_ns() };
	h->share_cpus = share_cpus;
	h->share_active = (mine > 0) + (other > 0);
	h->share_count = count < 0 ? n : (uint32_t)count;
	xs_abi_write_end(h);
}

TEST(team_follows_forged_share)
{
	struct capture cap;
	char err[4096];
	const char *why;
	struct fake f;
	int lo;

	if (xs_affinity_cpus() < 2)
		SKIP(return, "needs 2 CPUs in the affinity mask (shares of 1 and 2)");
	ASSERT_EQ(0, fake_start(&f));
	if (f.h->ncpus < 2) {
		fake_stop(&f);
		SKIP(return, "the topology lists one CPU");
	}
	xsc_env(f.dir, "auto");
	why = dropin_load();
	if (why) {
		fake_stop(&f);
		SKIP(return, "%s", why);
	}

	forge(&f, 1, 1, 2, -1);
	omp_set_dynamic_p(0);
	EXPECT_EQ(2, team(2)) TH_LOG("dyn-var false: the request");
	omp_set_dynamic_p(1);
	EXPECT_EQ(1, team(2)) TH_LOG("dyn-var true, share 1 of 2");
	EXPECT_EQ(1, team(1));

	forge(&f, 2, 0, 2, -1);
	EXPECT_EQ(2, team(2)) TH_LOG("share 2");
	EXPECT_EQ(2, team(3)) TH_LOG("share 2, 3 asked");

	forge(&f, -1, 2, 2, -1);
	EXPECT_EQ(1, team(2)) TH_LOG("not counted yet, one other process active");
	forge(&f, 0, 2, 2, -1);
	EXPECT_EQ(1, team(2)) TH_LOG("idle until now, one other process active");
	forge(&f, -1, 0, 2, -1);
	EXPECT_EQ(1, team(2)) TH_LOG("not counted yet, another process listed, idle");
	forge(&f, -1, -1, 2, -1);
	EXPECT_EQ(2, team(2)) TH_LOG("not counted yet, nobody listed");

	/* Corrupt: the share count runs past the array. */
	forge(&f, 1, 1, 2, (int64_t)f.h->nshares + 1);
	ASSERT_EQ(0, capture_begin(&cap));
	lo = team(2);
	capture_end(&cap, err, sizeof(err));
	EXPECT_EQ(loadavg_team(2), lo) TH_LOG("corrupt: libgomp's rule");
	EXPECT_NE(NULL, strstr(err, "share_count exceeds nshares")) TH_LOG("stderr: %s", err);
	EXPECT_NE(NULL, strstr(err, f.dir)) TH_LOG("stderr: %s", err);
	omp_set_dynamic_p(0);
	EXPECT_EQ(2, team(2)) TH_LOG("dyn-var false ignores the state");
	omp_set_dynamic_p(1);

	/* Repaired: taken again once the reader tries again (200 ms). */
	forge(&f, 1, 1, 2, -1);
	xsd_test_sleep_ms(250);
	EXPECT_EQ(1, team(2)) TH_LOG("repaired");

	/* Stale: the load-average rule without a word. */
	atomic_store(&f.ticking, 0);
	xsd_test_sleep_ms(250);
	ASSERT_EQ(0, capture_begin(&cap));
	lo = team(2);
	capture_end(&cap, err, sizeof(err));
	EXPECT_EQ(loadavg_team(2), lo) TH_LOG("stale: libgomp's rule");
	EXPECT_EQ(NULL, strstr(err, "xschedd state")) TH_LOG("stderr: %s", err);
	atomic_store(&f.ticking, 1);
	xsd_test_sleep_ms(250);
	EXPECT_EQ(1, team(2)) TH_LOG("fresh again");
	omp_set_dynamic_p(0);
	fake_stop(&f);
}

TEST(no_daemon_is_libgomps_rule)
{
	const char *why;

	setenv("XSCHED_DAEMON", "off", 1);
	setenv("XSCHED_BIND", "none", 1);
	why = dropin_load();
	if (why)
		SKIP(return, "%s", why);
	omp_set_dynamic_p(1);
	EXPECT_EQ(loadavg_team(2), team(2));
	EXPECT_EQ(loadavg_team(8), team(8));
	omp_set_dynamic_p(0);
	EXPECT_EQ(2, team(2));
}

TEST_HARNESS_MAIN
