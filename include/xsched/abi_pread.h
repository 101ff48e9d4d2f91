/* SPDX-License-Identifier: MIT */
/*
 * xsched/abi_pread.h - reading xschedd's state file (xsched/abi.h) with
 * pread() under its seqlock: the one reader of every process but the
 * daemon (libxsched's client, libxsched-mpi's sampler, xsched-top).
 * Header-only, because libxsched-mpi is interposed into MPI programs that
 * may not use libxsched and links nothing of it.
 *
 * Why pread() and not a mapping: whoever runs the daemon can shrink the
 * file, and a load from a mapped page past its new end is a SIGBUS in the
 * reader; pread() gives a short read instead (-EBADMSG here).
 *
 * The rule: copy what is needed into private memory under the seqlock,
 * check the copy, use only the copy, and never read the file again for it
 * (a second read could differ from what was checked). A copy is
 * consistent when the sequence was even before it and the same after it.
 * The seqlock works over pread() as over loads (abi.h): pread()'s copy of
 * the sequence is not one 64-bit load, but every write section moves its
 * low byte by 2, so a copy that mixes bytes of two values never matches an
 * earlier one unless 128 write sections pass during one 8-byte copy.
 *
 * Bounded: a torn copy is retried at once XS_ABI_READ_RETRIES times, then
 * with 50 us pauses (a writer descheduled mid-write wants a CPU, not a
 * spinning reader), and given up after XS_ABI_READ_WAIT_NS (a writer that
 * died mid-write leaves the sequence odd for good).
 *
 * The functions need POSIX.1-2008 (pread(), clock_gettime()): an includer
 * compiled as strict ISO C without _POSIX_C_SOURCE sees none of them.
 */
#ifndef XSCHED_ABI_PREAD_H
#define XSCHED_ABI_PREAD_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L

/* CLOCK_MONOTONIC in ns, the clock of XS_ABI_READ_WAIT_NS. */
static inline uint64_t xs_abi_pread_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Staleness, as every reader takes it: a state whose heartbeat is older
 * than four of its ticks, at least 100 ms (a daemon delayed on a loaded
 * machine is not dead), at most 2 s, is not used (xs_abi_fresh()). */
#define XS_ABI_AGE_MIN_NS 100000000ull
#define XS_ABI_AGE_MAX_NS 2000000000ull

static inline uint64_t xs_abi_max_age(uint64_t tick_ns)
{
	uint64_t age = tick_ns > XS_ABI_AGE_MAX_NS / 4 ? XS_ABI_AGE_MAX_NS : 4 * tick_ns;

	return age < XS_ABI_AGE_MIN_NS ? XS_ABI_AGE_MIN_NS : age;
}

/* @len bytes at @off of @fd into @buf, whole: 0, -errno, or -EBADMSG when
 * the file ends first (shorter than its layout: truncated). */
static inline int xs_abi_pread(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;
		done += (size_t)n;
	}
	return 0;
}

/* Start a read section: 0 and the even sequence in *@seq, -EAGAIN while a
 * write is in progress (odd), or xs_abi_pread()'s error. */
static inline int xs_abi_pread_begin(int fd, uint64_t *seq)
{
	int ret = xs_abi_pread(fd, seq, sizeof(*seq), offsetof(struct xs_abi_header, seq));

	/* Acquire fence: pairs with the release store of the even sequence
	 * in xs_abi_write_end(); the copy after it sees everything written
	 * before the sequence became even. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (ret)
		return ret;
	return *seq & 1 ? -EAGAIN : 0;
}

/* End a read section started at @seq: nonzero when the copy made since is
 * torn (the sequence was odd, moved, or cannot be read again). */
static inline int xs_abi_pread_retry(int fd, uint64_t seq)
{
	uint64_t now;

	/* Acquire fence: orders the copy's loads (pread()'s) before the
	 * second read of the sequence; pairs with the release fence in
	 * xs_abi_write_begin(), so a copy that saw any store of a write
	 * section also sees its odd sequence here. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (seq & 1) ||
	       xs_abi_pread(fd, &now, sizeof(now), offsetof(struct xs_abi_header, seq)) ||
	       now != seq;
}

/* After torn try @tries of a read that began at @start_ns: whether to try
 * again (pausing 50 us once the quick retries are spent) or give up. */
static inline int xs_abi_pread_wait(uint64_t start_ns, int tries)
{
	if (xs_abi_pread_now_ns() - start_ns > XS_ABI_READ_WAIT_NS)
		return 0;
	if (tries >= XS_ABI_READ_RETRIES) {
		struct timespec ts = { 0, 50000 };

		nanosleep(&ts, NULL);
	}
	return 1;
}

/*
 * A consistent copy: @copy(@fd, @arg) reads what its caller needs with
 * xs_abi_pread() inside a read section, again until the sequence held. It
 * may check the copy as it goes (a header's counts bound what it reads
 * next), but a check of a copy that turns out torn is thrown away with
 * it: @copy records what it found and returns 0; an error it returns
 * (other than -EAGAIN, which is retried) ends the read. Returns 0 and the
 * sequence in *@seq (when not NULL), -EAGAIN (torn for
 * XS_ABI_READ_WAIT_NS), or the read's error (-EBADMSG: truncated).
 */
static inline int xs_abi_pread_copy(int fd, int (*copy)(int fd, void *arg), void *arg,
				    uint64_t *seq)
{
	uint64_t start = xs_abi_pread_now_ns(), s = 0;

	for (int tries = 0;; tries++) {
		int ret = xs_abi_pread_begin(fd, &s);

		if (!ret)
			ret = copy(fd, arg);
		if (ret && ret != -EAGAIN)
			return ret;
		if (!ret && !xs_abi_pread_retry(fd, s)) {
			if (seq)
				*seq = s;
			return 0;
		}
		if (!xs_abi_pread_wait(start, tries))
			return -EAGAIN;
	}
}

static inline int xs_abi_pread_header_copy(int fd, void *header)
{
	return xs_abi_pread(fd, header, sizeof(struct xs_abi_header), 0);
}

/* A consistent copy of the header (its seq the section's), or
 * xs_abi_pread_copy()'s error. */
static inline int xs_abi_pread_header(int fd, struct xs_abi_header *copy)
{
	uint64_t seq;
	int ret = xs_abi_pread_copy(fd, xs_abi_pread_header_copy, copy, &seq);

	if (!ret)
		copy->seq = seq;
	return ret;
}

/*
 * One read section's copy of the header and of process @pid's entry in
 * the shares (xs_abi_pread_copy() with xs_abi_pread_share_copy()). The
 * header's layout is checked against @size before any entry is read, and
 * entries are read only up to share_count or nshares, whichever is less:
 * the reads stay inside the file's layout. A layout that does not fit is
 * recorded in bad, not returned, so that a torn header is read again; the
 * caller judges the rest (ranges, freshness) on the consistent copy.
 */
struct xs_abi_pread_share {
	uint64_t size;                 /* in: the file's size */
	uint32_t pid;                  /* in: whose entry */
	int bad;                       /* out: the header's layout does not fit size */
	int found;                     /* out: mine holds pid's entry */
	struct xs_abi_header h;        /* out */
	struct xs_abi_share mine;      /* out, when found */
};

static inline int xs_abi_pread_share_copy(int fd, void *arg)
{
	struct xs_abi_pread_share *s = (struct xs_abi_pread_share *)arg;
	struct xs_abi_share batch[64];
	uint32_t count;
	int ret = xs_abi_pread(fd, &s->h, sizeof(s->h), 0);

	s->found = 0;
	if (ret)
		return ret;
	s->bad = xs_abi_check_layout(&s->h, s->size) != 0;
	count = s->h.share_count < s->h.nshares ? s->h.share_count : s->h.nshares;
	for (uint32_t i = 0; !s->bad && !s->found && i < count;) {
		uint32_t k = count - i < 64 ? count - i : 64;

		ret = xs_abi_pread(fd, batch, k * sizeof(*batch),
				   s->h.share_off + (uint64_t)i * sizeof(*batch));
		if (ret)
			return ret;
		for (uint32_t j = 0; j < k && !s->found; j++) {
			s->mine = batch[j];
			s->found = s->mine.pid == s->pid;
		}
		i += k;
	}
	return 0;
}

#endif /* POSIX.1-2008 */
#endif /* XSCHED_ABI_PREAD_H */
