/* SPDX-License-Identifier: MIT */
/*
 * xschedd-lend-test.h - what the lending tests (tests/daemon/xschedd-lend-*.c)
 * share: a private xschedd on a synthetic machine of XSD_LEND_CPUS CPUs
 * (tools/xsched-mksysfs: the shares are advice computed from the topology,
 * so a 2-CPU box can divide 8), degraded mode (no privilege needed), other
 * work not counted (--share-foreign 0: the machine's load from other
 * programs must not change the parts the tests expect); and busy client
 * processes that the test drives through shared memory: each registers
 * its main thread and a thread that spins for good (so that the daemon
 * counts it busy whatever its main thread does: a main thread blocked on
 * a reply is not running), and sends LEND or RECLAIM on its own
 * connection when told, reporting the reply.
 */
#ifndef XSCHED_XSCHEDD_LEND_TEST_H
#define XSCHED_XSCHEDD_LEND_TEST_H

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "xschedd-test.h"
#include "topology-test.h"

#define XSD_LEND_CPUS 8

/* LEND_DO_LEND_AGAIN: LEND on a second connection of the child's own,
 * kept open until it exits. LEND_DO_PIPELINED: LEND and RECLAIM sent at
 * once, then both replies read (status: the first failure, count: the
 * LEND's). */
enum { LEND_IDLE, LEND_DO_LEND, LEND_DO_LEND_AGAIN, LEND_DO_RECLAIM, LEND_DO_PIPELINED,
       LEND_DO_EXIT };

/* One child's mailbox: the parent writes cmd and arg, then bumps seq; the
 * child acts and writes the reply's status and count, then sets done to
 * seq. */
struct lend_box {
	_Atomic uint32_t seq, done, ready;
	uint32_t cmd, arg;
	int32_t status;
	uint32_t count;
	pid_t pid;
};

struct lend_child {
	struct lend_box *box; /* shared mapping */
	pid_t pid;
};

/* --share-hold-ms 2000: a process seen using a CPU stays counted 2 s
 * (spinning children on a loaded 2-CPU machine may go a whole CPU sample
 * without running, and would drop out of the division in between). */
static inline int lend_daemon_start(struct xsd_test *t, char *sys, size_t len)
{
	char args[32];
	int ret;

	snprintf(args, sizeof(args), "--spec 1s1n%dc", XSD_LEND_CPUS);
	ret = xs_test_mksysfs(sys, len, args);
	if (ret)
		return ret < 0 ? ret : -EIO;
	return xsd_test_start(t, "--bpf", "off", "--sysfs-root", sys, "--share-foreign", "0",
			      "--tick-ms", "10", "--share-hold-ms", "2000");
}

/* Stop the daemon; remove the machine (xs_test_rmtree() takes the
 * machine's own path, <tmpdir>/sys, and removes its <tmpdir>). */
static inline void lend_daemon_stop(struct __test_metadata *_metadata, struct xsd_test *t,
				    const char *sys)
{
	EXPECT_EQ(0, xsd_test_stop(t));
	xs_test_rmtree(sys);
}

/* End a watched daemon (xsd_test_watch_close()) and remove its machine,
 * as lend_daemon_stop() does. */
static inline void lend_watch_end(struct __test_metadata *_metadata, struct xsd_test_watch *w,
				  const char *sys)
{
	xsd_test_watch_close(_metadata, w);
	xs_test_rmtree(sys);
}

/* The child's worker: it spins for good, so that the daemon sees the
 * child use a CPU (a registered thread on a CPU or waiting for one) even
 * while its main thread waits for a reply; @arg receives its tid. */
static inline void *lend_spinner(void *arg)
{
	/* Release: the tid is all that is published; pairs with the
	 * (sequentially consistent) load in xsd_test_await_tid(). */
	__atomic_store_n((_Atomic uint32_t *)arg, xsd_test_gettid(), __ATOMIC_RELEASE);
	for (;;)
		;
	return NULL;
}

static inline void lend_child_main(const struct xsd_test *t, struct lend_box *b)
{
	struct xsd_test_client c;
	struct xs_abi_reply r;
	_Atomic uint32_t spinner_tid = 0;
	uint32_t tids[2] = { xsd_test_gettid() }, seen = 0;
	pthread_t spinner;
	int second = -1;

	alarm(120);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (pthread_create(&spinner, NULL, lend_spinner, &spinner_tid))
		_exit(3);
	tids[1] = xsd_test_await_tid(&spinner_tid);
	if (xsd_test_client_open(t, &c) || xsd_test_call(c.fd, XS_ABI_REGISTER, tids, 2, &r, NULL))
		_exit(3);
	/* Release: the registration before the flag; pairs with the
	 * parent's acquire in lend_child_start(). */
	__atomic_store_n(&b->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		/* Acquire: pairs with the parent's release of seq after it
		 * wrote cmd and arg. */
		uint32_t s = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);

		if (s == seen) {
			xsd_test_sleep_ms(1); /* the spinner keeps the process busy */
			continue;
		}
		seen = s;
		switch (b->cmd) {
		case LEND_DO_LEND:
			b->status = xsd_test_call(c.fd, XS_ABI_LEND, &b->arg, 1, &r, NULL);
			b->count = r.count;
			break;
		case LEND_DO_LEND_AGAIN:
			second = xsd_test_connect(t);
			b->status = second < 0 ? second
					       : xsd_test_call(second, XS_ABI_LEND, &b->arg, 1, &r,
							       NULL);
			b->count = r.count;
			break;
		case LEND_DO_PIPELINED: {
			struct xs_abi_request q[2];
			struct xs_abi_reply r2;

			xsd_test_request(&q[0], XS_ABI_LEND, &b->arg, 1);
			xsd_test_request(&q[1], XS_ABI_RECLAIM, NULL, 0);
			b->status = -EIO;
			if (send(c.fd, &q[0], sizeof(q[0]), MSG_NOSIGNAL) != sizeof(q[0]) ||
			    send(c.fd, &q[1], sizeof(q[1]), MSG_NOSIGNAL) != sizeof(q[1]) ||
			    xsd_test_recv(c.fd, &r, NULL) != sizeof(r) ||
			    xsd_test_recv(c.fd, &r2, NULL) != sizeof(r2))
				break;
			b->count = r.count;
			b->status = r.type != XS_ABI_LEND ? -EBADMSG : r.status ? r.status
					   : r2.type != XS_ABI_RECLAIM ? -EBADMSG : r2.status;
			break;
		}
		case LEND_DO_RECLAIM:
			b->status = xsd_test_call(c.fd, XS_ABI_RECLAIM, NULL, 0, &r, NULL);
			b->count = r.count;
			break;
		default:
			_exit(0);
		}
		/* Release: publishes status and count; pairs with the
		 * parent's acquire in lend_command(). */
		__atomic_store_n(&b->done, s, __ATOMIC_RELEASE);
	}
}

/* Start a child; @pre (if not NULL) runs first in it, with @arg (to take
 * another user's identity). */
static inline int lend_child_start_as(const struct xsd_test *t, struct lend_child *ch,
				      void (*pre)(const void *), const void *arg)
{
	ch->box = mmap(NULL, sizeof(*ch->box), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (ch->box == MAP_FAILED)
		return -errno;
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (!ch->pid) {
		if (pre)
			pre(arg);
		lend_child_main(t, ch->box);
	}
	for (int k = 0; k < 10000; k++) {
		/* Acquire: pairs with the child's release after REGISTER. */
		if (__atomic_load_n(&ch->box->ready, __ATOMIC_ACQUIRE))
			return 0;
		xsd_test_sleep_ms(2);
	}
	return -ETIMEDOUT;
}

static inline int lend_child_start(const struct xsd_test *t, struct lend_child *ch)
{
	return lend_child_start_as(t, ch, NULL, NULL);
}

/* Tell @ch to do @cmd with @arg; wait for its reply (returns its status,
 * *count its count), or -ETIMEDOUT. */
static inline int lend_command(struct lend_child *ch, uint32_t cmd, uint32_t arg,
			       uint32_t *count)
{
	uint32_t s = __atomic_load_n(&ch->box->seq, __ATOMIC_RELAXED) + 1;

	ch->box->cmd = cmd;
	ch->box->arg = arg;
	/* Release: cmd and arg before the new sequence; pairs with the
	 * child's acquire. */
	__atomic_store_n(&ch->box->seq, s, __ATOMIC_RELEASE);
	for (int k = 0; k < 30000; k++) {
		/* Acquire: pairs with the child's release of done. */
		if (__atomic_load_n(&ch->box->done, __ATOMIC_ACQUIRE) == s) {
			if (count)
				*count = ch->box->count;
			return ch->box->status;
		}
		xsd_test_sleep_ms(1);
	}
	return -ETIMEDOUT;
}

static inline void lend_child_end(struct lend_child *ch)
{
	if (ch->pid > 0) {
		kill(ch->pid, SIGKILL);
		waitpid(ch->pid, NULL, 0);
	}
	ch->pid = 0;
	if (ch->box && ch->box != MAP_FAILED)
		munmap(ch->box, sizeof(*ch->box));
	ch->box = NULL;
}

static inline const struct xs_abi_share *lend_share_of(const struct xs_abi_header *h, pid_t pid)
{
	const struct xs_abi_share *s = xs_abi_at(h, h->share_off);

	for (uint32_t i = 0; i < h->share_count && i < h->nshares; i++)
		if (s[i].pid == (uint32_t)pid)
			return &s[i];
	return NULL;
}

/* The sum of every listed process's cpus. */
static inline uint32_t lend_cpus_sum(const struct xs_abi_header *h)
{
	const struct xs_abi_share *s = xs_abi_at(h, h->share_off);
	uint32_t sum = 0;

	for (uint32_t i = 0; i < h->share_count && i < h->nshares; i++)
		sum += s[i].cpus;
	return sum;
}

static inline void lend_show(struct __test_metadata *_metadata, const struct xs_abi_header *h,
			     const char *when)
{
	const struct xs_abi_share *s = xs_abi_at(h, h->share_off);

	TH_LOG("%s: generation %llu, share_cpus %u, %u active, %u listed", when,
	       (unsigned long long)h->generation, h->share_cpus, h->share_active, h->share_count);
	for (uint32_t i = 0; i < h->share_count && i < h->nshares; i++)
		TH_LOG("  pid %u: %u CPUs, lent %u, borrowed %u, %u of %u workers running",
		       s[i].pid, s[i].cpus, s[i].lent, s[i].borrowed, s[i].running, s[i].workers);
}

/* Snapshot until @cond(@h, @a, @b, @x) holds or @ms pass (times the
 * timeout scale); 1 if it did. */
static inline int lend_await(struct xsd_test_watch *w,
			     int (*cond)(const struct xs_abi_header *, pid_t, pid_t, uint32_t),
			     pid_t a, pid_t b, uint32_t x, unsigned int ms)
{
	for (unsigned int t = 0; t < ms * xs_test_timeout_scale(); t += 2) {
		if (!xsd_test_snapshot(&w->c, w->snap) && cond(w->snap, a, b, x))
			return 1;
		xsd_test_sleep_ms(2);
	}
	return 0;
}

/* @a and @b each have half of share_cpus, nothing lent or borrowed. */
static inline int lend_split_even(const struct xs_abi_header *h, pid_t a, pid_t b, uint32_t x)
{
	const struct xs_abi_share *sa = lend_share_of(h, a), *sb = lend_share_of(h, b);

	(void)x;
	return sa && sb && h->share_cpus == XSD_LEND_CPUS && sa->cpus == XSD_LEND_CPUS / 2 &&
	       sb->cpus == XSD_LEND_CPUS / 2 && !sa->lent && !sb->lent && !sa->borrowed &&
	       !sb->borrowed;
}

#endif /* XSCHED_XSCHEDD_LEND_TEST_H */
