// SPDX-License-Identifier: MIT
/*
 * page.c - a rank's live numbers for xsched-top's job view, on the
 * statistics page every xsched runtime publishes
 * (include/xsched/stats_page.h): a page of one worker (the MPI_Init
 * thread) flagged XS_STATS_F_MPI, named with XS_STATS_MPI_RUNTIME_ID, in
 * xschedd's runtime directory when the daemon runs there and the rank
 * may write it, else in /dev/shm, created under a temporary name and
 * renamed into place, removed at MPI_Finalize (xsched-top removes the
 * page of a rank that died). XSCHED_MPI_PAGE=0 turns it off.
 *
 * A sampler thread is the page's one writer. Every daemon tick (the
 * state's tick_ns, 1 to 100 ms; 100 ms without a daemon) it reads this
 * process's entry of xschedd's shares (include/xsched/abi.h) and adds
 * borrowed x the time since the last sample to the CPU-ns borrowed: the
 * CPUs others lent that the daemon's division gave this rank, which is
 * what the JSON summary's borrowed_cpu_s reports. Every
 * XS_MPI_PAGE_PERIOD_NS it publishes the rank's times (account.c,
 * lend.c) and the borrowing. The state file is read as every reader
 * reads it (include/xsched/abi_pread.h: pread, never mapped, so a file
 * that shrinks cannot fault this process), and nothing in it is trusted:
 * the header is copied and its layout checked, the shares are copied
 * under the seqlock and used only when the sequence did not move, a
 * borrowed count above the entry's CPUs is ignored. The page is made and
 * published as libxsched's are (include/xsched/stats_page_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xsched/abi.h>
#include <xsched/abi_pread.h>
#include <xsched/stats_page.h>
#include <xsched/stats_page_file.h>

#include "mpi_int.h"

#define XS_MPI_PAGE_PERIOD_NS 100000000ull /* publications: as libxsched's pages */
#define XS_MPI_SAMPLE_MIN_NS 1000000ull     /* the fastest sampling, whatever the tick */

/*
 * The page and its sampler. Invariant: file is written by
 * xs_mpi_page_start() before the thread is created and read-only until
 * xs_mpi_page_stop() has joined it; every store into *file.h after
 * creation is the sampler's (single writer, relaxed, generation last with
 * release).
 */
static struct {
	struct xs_stats_page_file file;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;  /* guards stop, with cond */
	pthread_cond_t cond;
	bool stop;
	/* The sampler's own (then the stopper's, after the join). */
	int state_fd;          /* xschedd's state file, -1: not open */
	char state_path[4200];
	uint64_t borrowed_ns;  /* CPU-ns borrowed, summed */
	uint32_t borrowed;     /* at the last sample */
	uint64_t sampled_at;
	uint64_t tick_ns;      /* the daemon's, 0: none */
} pg = { .state_fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* 64-bit FNV-1a of @s: the job's key on the page. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/*
 * One sample of this process's entry in xschedd's shares: 0 and *@borrowed,
 * or -errno (no daemon, a state not understood, torn for too long, stale).
 */
static int sample_share(uint32_t *borrowed)
{
	struct xs_abi_pread_share sc = { .pid = (uint32_t)getpid() };
	struct stat st;
	int err;

	if (pg.state_fd < 0) {
		pg.state_fd = open(pg.state_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (pg.state_fd < 0)
			return -errno;
	}
	if (fstat(pg.state_fd, &st) || !S_ISREG(st.st_mode)) {
		err = -EBADMSG;
		goto reopen;
	}
	sc.size = (uint64_t)st.st_size;
	err = xs_abi_pread_copy(pg.state_fd, xs_abi_pread_share_copy, &sc, NULL);
	if (err == -EAGAIN)
		return err; /* the next sample tries again */
	if (!err && sc.bad)
		err = -EBADMSG;
	if (err)
		goto reopen;
	if (!xs_abi_fresh(sc.h.heartbeat_ns, sc.h.flags, xs_now_ns(),
			  xs_abi_max_age(sc.h.tick_ns))) {
		err = -ESTALE; /* exited or stopped: a new daemon writes a new file */
		goto reopen;
	}
	pg.tick_ns = sc.h.tick_ns;
	*borrowed = 0;
	/* A count the entry itself contradicts is not believed. */
	if (sc.found && sc.mine.borrowed <= sc.mine.cpus && sc.mine.cpus <= sc.h.share_cpus)
		*borrowed = sc.mine.borrowed;
	return 0;
reopen:
	close(pg.state_fd);
	pg.state_fd = -1;
	return err;
}

/* Sample the share at @now: the last sample's borrowing held until now. */
static void sample(uint64_t now)
{
	uint32_t b = 0;

	if (pg.sampled_at && now > pg.sampled_at)
		pg.borrowed_ns += (uint64_t)pg.borrowed * (now - pg.sampled_at);
	pg.sampled_at = now;
	if (sample_share(&b)) {
		b = 0; /* no daemon, no lend given */
		pg.tick_ns = 0; /* and the page says so */
	}
	pg.borrowed = b;
}

/* A page field, stored by the sampler (the page's one writer). */
#define page_store(p, v) xs_plain_store_relaxed((p), (v))

/* Publish the rank's numbers at @now; never smaller than the last. */
static void publish(uint64_t now)
{
	struct xs_stats_header *h = pg.file.h;
	uint64_t elapsed, mpi, lent, lends;
	uint32_t lent_now;

	/* Started in MPI_Init before the accounting (its clock starts at
	 * MPI_Init's return): nothing to say until it runs. */
	if (!xs_mpi_active())
		return;
	xs_mpi_account_live(now, &elapsed, &mpi);
	xs_mpi_lend_live(now, &lent, &lends, &lent_now);
	/* The sampler is the only writer: plain reads of its own stores. */
	page_store(&h->mpi_elapsed_ns, elapsed);
	page_store(&h->mpi_ns, mpi > h->mpi_ns ? mpi : h->mpi_ns);
	page_store(&h->mpi_lent_cpu_ns, lent > h->mpi_lent_cpu_ns ? lent : h->mpi_lent_cpu_ns);
	page_store(&h->mpi_borrowed_cpu_ns, pg.borrowed_ns);
	page_store(&h->mpi_lends, lends);
	page_store(&h->mpi_lent_now, lent_now);
	page_store(&h->mpi_borrowed_now, pg.borrowed);
	page_store(&h->published_ns, now);
	page_store(&h->flags, XS_STATS_F_MPI | (h->flags & XS_STATS_F_RUNTIME_DIR) |
				      (pg.tick_ns ? XS_STATS_F_DAEMON : 0));
	xs_stats_page_published(h);
}

static void *sampler(void *arg)
{
	uint64_t published = 0;

	(void)arg;
	pthread_mutex_lock(&pg.lock);
	while (!pg.stop) {
		uint64_t now = xs_now_ns(), period = XS_MPI_PAGE_PERIOD_NS, wake;
		struct timespec ts;

		pthread_mutex_unlock(&pg.lock);
		sample(now);
		if (now - published >= XS_MPI_PAGE_PERIOD_NS) {
			publish(now);
			published = now;
		}
		if (pg.tick_ns)
			period = pg.tick_ns < XS_MPI_SAMPLE_MIN_NS ? XS_MPI_SAMPLE_MIN_NS
			       : pg.tick_ns > period ? period : pg.tick_ns;
		clock_gettime(CLOCK_REALTIME, &ts);
		wake = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + period;
		ts.tv_sec = (time_t)(wake / 1000000000ull);
		ts.tv_nsec = (long)(wake % 1000000000ull);
		pthread_mutex_lock(&pg.lock);
		while (!pg.stop && pthread_cond_timedwait(&pg.cond, &pg.lock, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&pg.lock);
	return NULL;
}

static void warn(const char *what, int err)
{
	fprintf(stderr, "xsched-mpi: cannot publish the rank's statistics for xsched-top (%s): %s "
			"(XSCHED_MPI_PAGE=0 turns this off)\n", what, strerror(err));
}

/* The rank's part of its page (xs_stats_page_file_create()). */
struct page_identity {
	int rank, size;
	const char *job;
};

static void page_fill(struct xs_stats_header *h, void *arg)
{
	const struct page_identity *id = arg;
	struct xs_stats_worker *w = (struct xs_stats_worker *)xs_stats_worker_at(h, 0);

	h->created_ns = xs_now_ns();
	h->nnodes = 1;
	h->mpi_job = fnv1a(id->job);
	h->mpi_rank = (__u32)id->rank;
	h->mpi_size = (__u32)id->size;
	memcpy(h->mpi_job_name, id->job, strnlen(id->job, XS_STATS_MPI_JOB_LEN));
	h->flags |= XS_STATS_F_MPI;
	w->tid = (__u32)gettid();
	w->cpu = (__u32)sched_getcpu();
}

/* A rank that exits without MPI_Finalize (a normal exit: a killed one
 * leaves its page to xsched-top) removes its page; a child that forked
 * after MPI_Init and exits does not remove its parent's. */
static void page_atexit(void)
{
	xs_stats_page_file_unlink(&pg.file);
}

void xs_mpi_page_start(int rank, int size, const char *job)
{
	static bool atexit_set;

	const char *dir = getenv("XSCHED_RUNTIME_DIR");
	struct page_identity id = { rank, size, job };
	sigset_t all, old;
	int err;

	if (!xs_mpi_opt(XS_MPI_OPT_PAGE))
		return;
	pg.stop = false;
	pg.borrowed_ns = 0;
	pg.borrowed = 0;
	pg.sampled_at = 0;
	pg.tick_ns = 0;
	if (!dir || !*dir)
		dir = XS_ABI_DEFAULT_RUNTIME_DIR;
	snprintf(pg.state_path, sizeof(pg.state_path), "%s/" XS_ABI_STATE_FILE, dir);
	err = xs_stats_page_file_create(&pg.file, dir, XS_STATS_MPI_RUNTIME_ID, 1,
					XS_MPI_PAGE_PERIOD_NS, page_fill, &id);
	if (err) {
		warn(pg.file.path, -err);
		return;
	}
	if (!atexit_set)
		atexit_set = !atexit(page_atexit);
	/* The sampler takes no signal: they stay the program's threads'. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&pg.thread, NULL, sampler, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		warn("its thread", err);
		xs_stats_page_file_close(&pg.file);
		return;
	}
	pthread_setname_np(pg.thread, "xsched-mpi");
	pg.started = true;
}

uint64_t xs_mpi_page_stop(void)
{
	if (!pg.started)
		return 0;
	pthread_mutex_lock(&pg.lock);
	pg.stop = true;
	pthread_cond_signal(&pg.cond);
	pthread_mutex_unlock(&pg.lock);
	pthread_join(pg.thread, NULL);
	pg.started = false;
	/* The sampler's last interval, to MPI_Finalize's entry. */
	sample(xs_now_ns());
	xs_stats_page_file_close(&pg.file);
	if (pg.state_fd >= 0)
		close(pg.state_fd);
	pg.state_fd = -1;
	return pg.borrowed_ns;
}
