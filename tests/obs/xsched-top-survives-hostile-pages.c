// SPDX-License-Identifier: MIT
/*
 * Another user's page, rewritten and truncated while root's xsched-top
 * reads it (issue 31, item 5). A scratch unprivileged user (created and
 * removed here) publishes a statistics page of its own in a directory it
 * owns and, in a tight loop, flips the page's worker count and offset
 * between sane and wild values and shrinks the file to one page and to
 * nothing and back. Root runs `xsched-top -b -n 1` over that directory
 * many times: every run must exit 0, none may die of a signal.
 *
 * The same for xschedd's state file in a runtime directory that user owns
 * (a daemon of its own that a victim points xsched-top at): truncated and
 * restored while xsched-top copies it.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "xs_test.h"
#include "scratch-user.h"
#include "xsched-top-test.h"
#include "xsched/abi.h"
#include "xsched/stats_page.h"

#define RUNS 300
#define PAGE_WORKERS 64 /* 16.25 KiB: five pages of memory, so that a
			 * truncation to one leaves four to fault on */

/* Run xsched-top over @rtdir/@shmdir @runs times; count the runs that
 * died of a signal into *@signalled (the last signal into *@sig), those
 * that exited non-zero into *@failed, and those whose output has @seen in
 * it into *@shown (the attack was read, not only skipped). */
static void run_top(const char *rtdir, const char *shmdir, int runs, int *signalled, int *sig,
		    int *failed, const char *seen, int *shown)
{
	static char out[1 << 16];

	*signalled = *failed = *sig = *shown = 0;
	for (int i = 0; i < runs; i++) {
		int st, p[2];
		size_t n = 0;
		ssize_t r;
		pid_t pid;

		if (pipe(p)) {
			(*failed)++;
			continue;
		}
		pid = fork();
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			dup2(p[1], 1);
			dup2(null, 2);
			close(p[0]);
			execl(tt_tool(), "xsched-top", "-b", "-n", "1", "--runtime-dir", rtdir,
			      "--shm-dir", shmdir, (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		while (n + 1 < sizeof(out) && (r = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
			n += (size_t)r;
		out[n] = '\0';
		close(p[0]);
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			(*failed)++;
			continue;
		}
		*shown += strstr(out, seen) != NULL;
		if (WIFSIGNALED(st)) {
			(*signalled)++;
			*sig = WTERMSIG(st);
		} else if (WEXITSTATUS(st)) {
			(*failed)++;
		}
	}
}

/* The attacker: as @u, a valid page of its own in @dir, then rewritten
 * and truncated until killed. Writes 'R' on @ready once the page is
 * there. */
static void attack_page(const struct scratch_user *u, const char *dir, int ready)
{
	size_t size = xs_stats_page_size(PAGE_WORKERS);
	volatile struct xs_stats_header *h;
	char path[4300];
	int fd;

	/* The parent-death signal does not survive the change of user. */
	if (scratch_user_become(u) || prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(10);
	snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.0", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size))
		_exit(11);
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		_exit(12);
	for (unsigned long i = 0;; i++) {
		if (i % 16 == 0) {
			/* Shrink (to one page, or to nothing), stay short a
			 * moment, then grow back: the pages come back zeroed,
			 * so the header is written again below. */
			if (ftruncate(fd, i % 32 ? 4096 : 0))
				_exit(13);
			usleep(50);
			if (ftruncate(fd, (off_t)size))
				_exit(13);
		}
		h->magic = XS_STATS_MAGIC;
		h->version = XS_STATS_VERSION;
		h->header_size = sizeof(struct xs_stats_header);
		h->total_size = size;
		h->worker_size = sizeof(struct xs_stats_worker);
		h->pid = (__u32)getpid();
		h->pid_start = 0;
		h->uid = (__u32)getuid();
		h->runtime_id = 0;
		memcpy((void *)h->comm, "hostile", 8);
		h->generation = i + 1;
		h->nworkers = PAGE_WORKERS;
		h->worker_off = sizeof(struct xs_stats_header);
		if (i == 0 && write(ready, "R", 1) != 1)
			_exit(14);
		/* Valid a moment, then wild: a reader that checked the sane
		 * values and reads them again gets these. */
		for (int k = 0; k < 200; k++) {
			h->nworkers = XS_STATS_MAX_WORKERS;
			h->worker_off = 0x7ffff000u;
			h->nworkers = PAGE_WORKERS;
			h->worker_off = sizeof(struct xs_stats_header);
		}
	}
}

/* The attacker of the state file: a valid state for 64 CPUs in @dir,
 * then truncated and grown back until killed. */
static void attack_state(const struct scratch_user *u, const char *dir, int ready)
{
	struct xs_abi_header layout;
	struct xs_abi_header *h;
	char path[4300];
	size_t size;
	int fd;

	/* The parent-death signal does not survive the change of user. */
	if (scratch_user_become(u) || prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(10);
	memset(&layout, 0, sizeof(layout));
	size = xs_abi_layout(&layout, 64, 1, 64, 4096);
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size))
		_exit(11);
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		_exit(12);
	for (unsigned long i = 0;; i++) {
		*h = layout;
		h->tick_ns = 10000000;
		h->mode = XS_ABI_MODE_DEGRADED;
		h->daemon_pid = (__u32)getpid();
		h->heartbeat_ns = 0;
		h->generation = i;
		if (i == 0 && write(ready, "R", 1) != 1)
			_exit(14);
		usleep(100);
		if (ftruncate(fd, i % 2 ? 4096 : 0))
			_exit(13);
		usleep(50);
		if (ftruncate(fd, (off_t)size))
			_exit(13);
	}
}

static void hostile(struct __test_metadata *_metadata, int state)
{
	char dir[] = "/tmp/xsched-top-hostile-XXXXXX", shm[64], rtdir[64];
	int signalled, sig, failed, shown, pipefd[2];
	struct scratch_user u;
	const char *why;
	pid_t attacker;
	char seen[64];
	char c;

	why = scratch_user_add(&u);
	if (why) {
		scratch_user_del(&u);
		SKIP(return, "%s", why);
	}
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, chmod(dir, 0755));
	snprintf(shm, sizeof(shm), "%s/shm", dir);
	snprintf(rtdir, sizeof(rtdir), "%s/run", dir);
	/* The attacker's own directories (its /dev/shm corner, its daemon's
	 * runtime directory). */
	ASSERT_EQ(0, mkdir(shm, 0755));
	ASSERT_EQ(0, mkdir(rtdir, 0755));
	ASSERT_EQ(0, chown(shm, u.uid, u.gid));
	ASSERT_EQ(0, chown(rtdir, u.uid, u.gid));
	ASSERT_EQ(0, pipe(pipefd));
	attacker = fork();
	ASSERT_LE(0, attacker);
	if (!attacker) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(pipefd[0]);
		if (state)
			attack_state(&u, rtdir, pipefd[1]);
		else
			attack_page(&u, shm, pipefd[1]);
		_exit(0);
	}
	close(pipefd[1]);
	EXPECT_EQ(1, read(pipefd[0], &c, 1)) TH_LOG("the attacker did not start");
	close(pipefd[0]);

	/* A state read whole shows the attacker's pid as the daemon's. */
	snprintf(seen, sizeof(seen), state ? "(pid %d)" : "hostile", (int)attacker);
	run_top(rtdir, shm, RUNS, &signalled, &sig, &failed, seen, &shown);
	kill(attacker, SIGKILL);
	waitpid(attacker, NULL, 0);
	EXPECT_EQ(0, signalled) TH_LOG("%d of %d runs of xsched-top killed by a signal (last: %s) "
				       "while user %s rewrote and truncated its %s",
				       signalled, RUNS, strsignal(sig), u.name,
				       state ? "state file" : "page");
	EXPECT_EQ(0, failed) TH_LOG("%d of %d runs of xsched-top failed", failed, RUNS);
	/* Some runs read it between the attacker's writes: a real attack. */
	EXPECT_LT(0, shown) TH_LOG("no run showed \"%s\": never read", seen);
	TH_LOG("%d of %d runs showed the %s", shown, RUNS, state ? "state" : "page");

	{
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		EXPECT_EQ(0, system(cmd));
	}
	scratch_user_del(&u);
}

TEST(another_users_page_rewritten_and_truncated) { hostile(_metadata, 0); }
TEST(a_state_file_truncated_while_copied) { hostile(_metadata, 1); }

TEST_HARNESS_MAIN
