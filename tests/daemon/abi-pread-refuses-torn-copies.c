// SPDX-License-Identifier: MIT
/*
 * The seqlock reader over pread() that libxsched, libxsched-mpi and
 * xsched-top share (include/xsched/abi_pread.h), against a state file
 * this test writes itself:
 *
 *  - a settled state is copied once, and the sequence it was copied under
 *    is returned;
 *  - a state whose sequence is odd (a writer that died mid-write) is
 *    refused with -EAGAIN and never copied;
 *  - a state that a writer republishes during every copy is refused with
 *    -EAGAIN after the bounded retries (a reader without the sequence
 *    check would take the torn copy, one without the bound would never
 *    return: the harness's timeout);
 *  - a copy torn once is thrown away and the next one taken;
 *  - a file shorter than what is read is -EBADMSG at once, not retried.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "xsched/abi_pread.h"

#define RECORD_OFF sizeof(struct xs_abi_header)

/* What one read section copies, and how the "writer" meddles with it. */
struct record_copy {
	char record[64];
	int calls;        /* sections copied */
	int republish;    /* publications made during the copy: -1 every one */
};

static void write_seq(int fd, uint64_t seq)
{
	if (pwrite(fd, &seq, sizeof(seq), offsetof(struct xs_abi_header, seq)) != sizeof(seq))
		abort();
}

static uint64_t read_seq(int fd)
{
	uint64_t seq;

	if (pread(fd, &seq, sizeof(seq), offsetof(struct xs_abi_header, seq)) != sizeof(seq))
		abort();
	return seq;
}

/* The callback: copy the record; a writer publishes meanwhile (two
 * sequence steps: a whole write section) while republish says so. */
static int copy_record(int fd, void *arg)
{
	struct record_copy *rc = arg;
	int ret = xs_abi_pread(fd, rc->record, sizeof(rc->record), RECORD_OFF);

	rc->calls++;
	if (rc->republish) {
		write_seq(fd, read_seq(fd) + 2);
		if (rc->republish > 0)
			rc->republish--;
	}
	return ret;
}

/* A state file of a header with sequence @seq and a record after it. */
static int state_file(uint64_t seq, size_t record_len)
{
	char path[] = "/tmp/xsched-abi-pread-XXXXXX";
	char buf[sizeof(struct xs_abi_header) + 64] = { 0 };
	int fd = mkstemp(path);

	if (fd < 0)
		abort();
	unlink(path);
	memset(buf + RECORD_OFF, 'r', sizeof(buf) - RECORD_OFF);
	if (write(fd, buf, RECORD_OFF + record_len) != (ssize_t)(RECORD_OFF + record_len))
		abort();
	write_seq(fd, seq);
	return fd;
}

TEST(settled_state_is_copied_once)
{
	struct record_copy rc = { .calls = 0 };
	int fd = state_file(8, sizeof(rc.record));
	uint64_t seq = 0;

	ASSERT_EQ(0, xs_abi_pread_copy(fd, copy_record, &rc, &seq));
	EXPECT_EQ(1, rc.calls);
	EXPECT_EQ(8u, seq);
	EXPECT_EQ('r', rc.record[0]);
	EXPECT_EQ('r', rc.record[sizeof(rc.record) - 1]);
	close(fd);
}

TEST(odd_sequence_is_refused_uncopied)
{
	struct record_copy rc = { .calls = 0 };
	int fd = state_file(9, sizeof(rc.record));

	EXPECT_EQ(-EAGAIN, xs_abi_pread_copy(fd, copy_record, &rc, NULL));
	EXPECT_EQ(0, rc.calls);
	close(fd);
}

TEST(state_republished_during_every_copy_is_refused)
{
	struct record_copy rc = { .republish = -1 };
	int fd = state_file(2, sizeof(rc.record));
	uint64_t seq = 1;

	EXPECT_EQ(-EAGAIN, xs_abi_pread_copy(fd, copy_record, &rc, &seq));
	/* Retried, not given up at the first torn copy; seq untouched. */
	EXPECT_GT(rc.calls, 1);
	EXPECT_EQ(1u, seq);
	close(fd);
}

TEST(copy_torn_once_is_taken_again)
{
	struct record_copy rc = { .republish = 1 };
	int fd = state_file(2, sizeof(rc.record));
	uint64_t seq = 0;

	ASSERT_EQ(0, xs_abi_pread_copy(fd, copy_record, &rc, &seq));
	EXPECT_EQ(2, rc.calls);
	EXPECT_EQ(4u, seq);
	close(fd);
}

TEST(short_file_is_ebadmsg_at_once)
{
	struct record_copy rc = { .calls = 0 };
	int fd = state_file(2, sizeof(rc.record) / 2);

	EXPECT_EQ(-EBADMSG, xs_abi_pread_copy(fd, copy_record, &rc, NULL));
	EXPECT_EQ(1, rc.calls);
	close(fd);
}

TEST(header_copy_carries_its_sequence)
{
	struct xs_abi_header hc;
	int fd = state_file(6, 0);

	memset(&hc, 0xff, sizeof(hc));
	ASSERT_EQ(0, xs_abi_pread_header(fd, &hc));
	EXPECT_EQ(6u, hc.seq);
	EXPECT_EQ(0u, hc.magic);
	close(fd);
}

TEST_HARNESS_MAIN
