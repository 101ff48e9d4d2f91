// SPDX-License-Identifier: MIT
/*
 * A fake xschedd (a thread of this test serving the real protocol on a
 * socket in a temporary runtime dir) hands the library a state file that
 * the test writes itself. A valid, fresh state is adopted; then the test
 * corrupts it while jobs run:
 *
 *   bad magic, wrong ABI version, an offset out of the file  -> -EBADMSG
 *   rows that are not permutations (a CPU index out of range) -> -EBADMSG
 *   the seqlock left odd (a writer that died mid-write)        -> -EAGAIN
 *   the heartbeat stops (a daemon that hangs or was killed)    -> -ESTALE
 *
 * Each is detected, the library goes back to its own victim table, and
 * nothing crashes or is lost (every job checks out). The same corruptions
 * present at connect time leave XSCHED_DAEMON=auto unconnected and make
 * XSCHED_DAEMON=required fail.
 */
#include "xschedd-fake.h"

enum corruption { BAD_MAGIC, BAD_VERSION, BAD_OFFSET, BAD_ROWS, SEQ_ODD, STALE };

static const char *const names[] = { "bad magic", "wrong ABI version", "offset out of range",
				     "rows not permutations", "seqlock left odd",
				     "heartbeat stopped" };

/* Apply @c to the live state the way a broken writer would. */
static int corrupt(struct fake *f, enum corruption c)
{
	struct xs_abi_header *h = f->h;
	struct xs_abi_victim *rows = (void *)((char *)h + h->victim_off);

	if (c == STALE) {
		atomic_store(&f->ticking, 0);
		return -ESTALE;
	}
	if (c == SEQ_ODD) {
		atomic_store(&f->ticking, 0);
		xsd_test_sleep_ms(5);
		xs_abi_write_begin(h); /* and never the end */
		return -EAGAIN;
	}
	xs_abi_write_begin(h);
	switch (c) {
	case BAD_MAGIC:
		h->magic ^= 1;
		break;
	case BAD_VERSION:
		h->abi_version = XS_ABI_VERSION + 1;
		break;
	case BAD_OFFSET:
		h->victim_off = (uint32_t)f->size;
		break;
	default: /* BAD_ROWS */
		for (uint32_t i = 0; i < h->ncpus * h->row_len; i++)
			rows[i].cpu_index = 0xffff;
		break;
	}
	xs_abi_write_end(h);
	return -EBADMSG;
}

static void after_connect(struct __test_metadata *_metadata, enum corruption c)
{
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct fake f;
	int want;

	ASSERT_EQ(0, fake_start(&f));
	xsc_env(f.dir, "required");
	rt = xs_runtime_create(4);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(1, xsc_run_until(rt, 20, 3000, xsc_using_daemon));
	if (!f.h->row_len) {
		/* one CPU: there is no table to adopt, only the state */
		xs_runtime_destroy(rt);
		fake_stop(&f);
		SKIP(return, "one CPU: no victim rows");
	}
	want = corrupt(&f, c);
	ASSERT_EQ(1, xsc_run_until(rt, 20, 3000, xsc_not_using_daemon)) TH_LOG("%s", names[c]);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.fresh);
	EXPECT_LE(1, info.rejected);
	EXPECT_LE(1, info.fallbacks);
	EXPECT_EQ(want, info.last_reject) TH_LOG("%s: %s", names[c], strerror(-info.last_reject));
	EXPECT_EQ((void *)rt->daemon->own_view, (void *)atomic_load(&rt->victims));
	/* and it stays that way: jobs go on checking out on our own table */
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 20));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.using_daemon_table);
	xs_runtime_destroy(rt);
	fake_stop(&f);
}

TEST(after_connect_bad_magic) { after_connect(_metadata, BAD_MAGIC); }
TEST(after_connect_bad_version) { after_connect(_metadata, BAD_VERSION); }
TEST(after_connect_offset_out_of_range) { after_connect(_metadata, BAD_OFFSET); }
TEST(after_connect_rows_out_of_range) { after_connect(_metadata, BAD_ROWS); }
TEST(after_connect_seqlock_left_odd) { after_connect(_metadata, SEQ_ODD); }
TEST(after_connect_heartbeat_stale) { after_connect(_metadata, STALE); }

/* Corrupt before anyone connects: auto stays on its own tables, required
 * fails naming XSCHED_DAEMON. */
static void at_connect(struct __test_metadata *_metadata, enum corruption c)
{
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct fake f;

	ASSERT_EQ(0, fake_start(&f));
	corrupt(&f, c);
	xsc_env(f.dir, "auto");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 20));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.connected) TH_LOG("%s", names[c]);
	EXPECT_EQ(0, info.using_daemon_table);
	xs_runtime_destroy(rt);
	xsc_env(f.dir, "required");
	errno = 0;
	rt = xs_runtime_create(2);
	EXPECT_EQ(NULL, rt) TH_LOG("%s", names[c]);
	EXPECT_NE(0, errno);
	if (rt)
		xs_runtime_destroy(rt);
	fake_stop(&f);
}

TEST(at_connect_bad_magic) { at_connect(_metadata, BAD_MAGIC); }
TEST(at_connect_bad_version) { at_connect(_metadata, BAD_VERSION); }
TEST(at_connect_offset_out_of_range) { at_connect(_metadata, BAD_OFFSET); }
TEST(at_connect_seqlock_left_odd) { at_connect(_metadata, SEQ_ODD); }

TEST_HARNESS_MAIN
