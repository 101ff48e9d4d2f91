// SPDX-License-Identifier: MIT
/*
 * Affinity schedule files round-trip, and a file that is foreign (not a
 * schedule, or the graph file instead), corrupt (one byte flipped,
 * truncated), of another version, or stale (planned for another machine
 * or another loop) is rejected with a message naming the file; a rejected
 * file's loop still runs, hybrid, every iteration once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xsched.h"
#include "affinity/affinity.h"
#include "capture-stderr.h"
#include "xs_test.h"

#define NT 10

static uint32_t start[3] = { 0, 6, NT };
static uint32_t order[NT] = { 9, 0, 8, 1, 7, 2, 6, 3, 5, 4 };

static void tmpfile_path(char *path)
{
	int fd;

	strcpy(path, "/tmp/xsched-affinity-sched-XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
}

static struct xs_affinity_map sample(void)
{
	struct xs_affinity_map m = { .n = 3 * NT - 1, .granule = 3, .nthreads = NT,
				     .nworkers = 2, .machine = 0x1234, .start = start,
				     .order = order };

	strcpy(m.machine_desc, "2 workers on a test machine");
	return m;
}

/* Read @path expecting rejection; the message names the file and says @what. */
static void expect_rejected(struct __test_metadata *_metadata, const char *path,
			    const char *what)
{
	struct xs_affinity_map m;
	struct capture c;
	char out[2048];
	int ret;

	ASSERT_EQ(0, capture_begin(&c));
	ret = xs_affinity_map_read(path, &m);
	capture_end(&c, out, sizeof(out));
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(out, path)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, what)) TH_LOG("expected '%s' in: %s", what, out);
}

static void patch(const char *path, off_t off, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY);

	if (pwrite(fd, p, len, off) != (ssize_t)len)
		abort();
	close(fd);
}

TEST(round_trip)
{
	struct xs_affinity_map m = sample(), r;
	char path[64];

	tmpfile_path(path);
	ASSERT_EQ(0, xs_affinity_map_write(path, &m));
	ASSERT_EQ(0, xs_affinity_map_read(path, &r));
	EXPECT_EQ(m.n, r.n);
	EXPECT_EQ(m.granule, r.granule);
	EXPECT_EQ(m.nthreads, r.nthreads);
	EXPECT_EQ(m.nworkers, r.nworkers);
	EXPECT_EQ(m.machine, r.machine);
	EXPECT_STREQ(m.machine_desc, r.machine_desc);
	EXPECT_EQ(0, memcmp(start, r.start, sizeof(start)));
	EXPECT_EQ(0, memcmp(order, r.order, sizeof(order)));
	xs_affinity_map_free(&r);
	unlink(path);
}

TEST(foreign_corrupt_version)
{
	struct xs_affinity_map m = sample();
	struct xs_aff_hgraph h = { .n = 4, .granule = 1, .nthreads = 4 };
	uint32_t vw[4] = { 1, 1, 1, 1 }, th[2] = { 0, 1 }, v2 = 2;
	uint64_t eoff[2] = { 0, 2 };
	unsigned char byte;
	char path[64];

	tmpfile_path(path);
	/* Not ours at all. */
	patch(path, 0, "hello, world\n", 13);
	expect_rejected(_metadata, path, "foreign file");
	/* The graph file where a schedule belongs. */
	h.vweight = vw;
	h.eoff = eoff;
	h.ethreads = th;
	h.nedges = 1;
	h.nentries = 2;
	ASSERT_EQ(0, xs_aff_hgraph_write(path, &h));
	expect_rejected(_metadata, path, "is an xsched affinity graph");
	/* One byte of the order flipped. */
	ASSERT_EQ(0, xs_affinity_map_write(path, &m));
	byte = 0x40;
	patch(path, 152 + 3 * 4 + 5, &byte, 1);
	expect_rejected(_metadata, path, "corrupt: checksum");
	/* Truncated. */
	ASSERT_EQ(0, xs_affinity_map_write(path, &m));
	ASSERT_EQ(0, truncate(path, 152 + 8));
	expect_rejected(_metadata, path, "corrupt");
	/* Another version. */
	ASSERT_EQ(0, xs_affinity_map_write(path, &m));
	patch(path, 8, &v2, 4);
	expect_rejected(_metadata, path, "version 2");
	/* A well-formed file whose order is not a permutation. */
	order[1] = 9;
	ASSERT_EQ(0, xs_affinity_map_write(path, &m));
	order[1] = 0;
	expect_rejected(_metadata, path, "corrupt: logical thread 9 is scheduled twice");
	unlink(path);
}

static _Atomic uint32_t hits[64];

static void body(void *arg, int64_t first, uint64_t count)
{
	(void)arg;
	for (uint64_t k = 0; k < count; k++)
		atomic_fetch_add(&hits[first + (int64_t)k], 1);
}

/* Planned for another machine (hash), or for a loop of other length. */
TEST(stale_runs_hybrid)
{
	struct xs_affinity_map m = sample();
	struct xs_loop_sched s = { .kind = XS_LOOP_AFFINITY, .ns = 2, .nd = 4, .grain = 50 };
	struct xs_runtime *rt;
	struct capture c;
	char path[64], out[4096];

	tmpfile_path(path);
	ASSERT_EQ(0, xs_affinity_map_write(path, &m));
	setenv("XSCHED_AFFINITY_FILE", path, 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, capture_begin(&c));
	ASSERT_EQ(0, xs_parallel_for(rt, 0, 3 * NT - 1, 1, &s, body, NULL));
	capture_end(&c, out, sizeof(out));
	EXPECT_NE(NULL, strstr(out, path)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "stale: planned for 2 workers on a test machine"))
		TH_LOG("%s", out);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(i < 3 * NT - 1 ? 1u : 0u, atomic_load(&hits[i]));
	xs_runtime_destroy(rt);
	unlink(path);
	unsetenv("XSCHED_AFFINITY_FILE");
}

TEST(other_loop_length_runs_hybrid)
{
	struct xs_affinity_map m = sample(), *r = &m;
	struct xs_loop_sched s = { .kind = XS_LOOP_AFFINITY, .ns = 2, .nd = 4, .grain = 50 };
	struct xs_aff_machine mach;
	struct xs_runtime *rt = xs_runtime_create(2);
	struct capture c;
	char out[4096];

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_aff_machine_from_runtime(rt, &mach));
	r->machine = mach.hash;
	xs_aff_machine_free(&mach);
	xs_affinity_override(r);
	ASSERT_EQ(0, capture_begin(&c));
	ASSERT_EQ(0, xs_parallel_for(rt, 0, 20, 1, &s, body, NULL));
	capture_end(&c, out, sizeof(out));
	xs_affinity_override(NULL);
	EXPECT_NE(NULL, strstr(out, "the schedule is for loops of 29 iterations, this loop has "
			       "20")) TH_LOG("%s", out);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(i < 20 ? 1u : 0u, atomic_load(&hits[i]));
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
