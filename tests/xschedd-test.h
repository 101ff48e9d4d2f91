/* SPDX-License-Identifier: MIT */
/*
 * xschedd-test.h - what the tests/{core,daemon}/xschedd-*.c programs share: start the
 * real daemon (build/xschedd) in a temporary runtime directory, talk its
 * protocol, map its state read-only and copy it under the seqlock.
 *
 * The daemon binary is $XS_BUILDDIR/xschedd (set by scripts/run-tests.sh),
 * else build/xschedd. Its stderr goes to <tmp>/log.
 *
 * Helpers that take `struct __test_metadata *_metadata` ASSERT/EXPECT in
 * the calling TEST() (an ASSERT that fails ends it), as a TEST body would.
 */
#ifndef XSCHED_XSCHEDD_TEST_H
#define XSCHED_XSCHEDD_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "xsched/abi.h"

struct xsd_test {
	char dir[64];          /* /tmp/xschedd-test-XXXXXX */
	char rt[PATH_MAX];     /* <dir>/rt, the runtime directory */
	char log[PATH_MAX];    /* <dir>/log, the daemon's stderr */
	pid_t pid;
};

/* Why this machine cannot run the real-BPF tests, or NULL. */
static inline const char *xsd_test_no_bpf_why(void)
{
	if (geteuid() != 0)
		return "not root: loading BPF needs CAP_BPF and CAP_PERFMON";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE programs cannot load";
	return NULL;
}

static inline uint64_t xsd_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void xsd_test_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline const char *xsd_test_daemon_path(void)
{
	static char path[PATH_MAX];
	const char *b = getenv("XS_BUILDDIR");

	snprintf(path, sizeof(path), "%s/xschedd", b && *b ? b : "build");
	return path;
}

static inline int xsd_test_rm_one(const char *path, const struct stat *st, int flag,
				  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/*
 * Start the daemon with "--foreground --runtime-dir <rt>" and the NULL-
 * terminated extra arguments; @pre_exec (may be NULL) runs in the child
 * before exec. Waits up to 60 s for the socket (times
 * XS_TEST_TIMEOUT_SCALE, tests/xs_test.h). Returns 0 or -errno.
 */
static inline int xsd_test_start_with(struct xsd_test *t, void (*pre_exec)(struct xsd_test *),
				      const char *arg, ...)
{
	const char *argv[32];
	int argc = 0;
	char sock[PATH_MAX + 16];
	va_list ap;

	memset(t, 0, sizeof(*t));
	strcpy(t->dir, "/tmp/xschedd-test-XXXXXX");
	if (!mkdtemp(t->dir))
		return -errno;
	chmod(t->dir, 0755);
	snprintf(t->rt, sizeof(t->rt), "%s/rt", t->dir);
	snprintf(t->log, sizeof(t->log), "%s/log", t->dir);
	argv[argc++] = xsd_test_daemon_path();
	argv[argc++] = "--foreground";
	argv[argc++] = "--env-file";
	argv[argc++] = "/dev/null";
	argv[argc++] = "--runtime-dir";
	argv[argc++] = t->rt;
	va_start(ap, arg);
	for (; arg && argc < 31; arg = va_arg(ap, const char *))
		argv[argc++] = arg;
	va_end(ap);
	argv[argc] = NULL;

	/* An instrumented daemon (SANITIZE=address) runs LeakSanitizer when
	 * it exits: a leak makes it exit 23, which the tests' EXPECT_EQ(0,
	 * xsd_test_stop()) report (the report is in its log). Set here, before
	 * the fork: a plain daemon ignores it, and ASan reads it only at start. */
	if (!getenv("ASAN_OPTIONS") || !strstr(getenv("ASAN_OPTIONS"), "detect_leaks")) {
		char opts[512];
		const char *old = getenv("ASAN_OPTIONS");

		snprintf(opts, sizeof(opts), "%s%sdetect_leaks=1", old ? old : "",
			 old && *old ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
	}
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (!t->pid) {
		int fd = open(t->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0)
			dup2(fd, 2);
		/* a test that dies (a failed ASSERT) takes its daemon along */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (pre_exec)
			pre_exec(t);
		execv(argv[0], (char **)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	snprintf(sock, sizeof(sock), "%s/" XS_ABI_SOCKET_FILE, t->rt);
	/* 60 s: an instrumented daemon (TSan) on a loaded 2-CPU machine took
	 * more than 5 s to start; only a daemon that never comes up fails. */
	for (unsigned int i = 0; i < 6000 * xs_test_timeout_scale(); i++) {
		int status;

		if (!access(sock, F_OK))
			return 0;
		if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
			t->pid = 0;
			return -ECHILD;
		}
		xsd_test_sleep_ms(10);
	}
	return -ETIMEDOUT;
}

#define xsd_test_start(t, ...) xsd_test_start_with((t), NULL, ##__VA_ARGS__, NULL)

/*
 * Reap the daemon after a signal: wait up to @secs seconds (times
 * XS_TEST_TIMEOUT_SCALE) for it to exit, then SIGKILL it. Returns 0 with
 * its wait status in *@status, or -ETIMEDOUT when it had to be killed: a
 * daemon that ignores SIGTERM fails its test instead of hanging the suite
 * (make check-system gives each guest test a share of one boot's time).
 */
static inline int xsd_test_reap(struct xsd_test *t, int *status, unsigned int secs)
{
	for (unsigned int i = 0; i < secs * 100 * xs_test_timeout_scale(); i++) {
		pid_t r = waitpid(t->pid, status, WNOHANG);
		int err = r < 0 ? -errno : 0;

		if (r == t->pid || (r < 0 && err != -EINTR)) {
			t->pid = 0;
			return err;
		}
		xsd_test_sleep_ms(10);
	}
	printf("# xschedd (pid %d) did not exit within %u s of its signal: killed\n", (int)t->pid,
	       secs * xs_test_timeout_scale());
	kill(t->pid, SIGKILL);
	waitpid(t->pid, status, 0);
	t->pid = 0;
	return -ETIMEDOUT;
}

/* SIGTERM, wait (xsd_test_reap()); returns the exit status (or -1),
 * removes the temp dir. */
static inline int xsd_test_stop(struct xsd_test *t)
{
	int status = -1;

	if (t->pid > 0) {
		kill(t->pid, SIGTERM);
		if (xsd_test_reap(t, &status, 30))
			status = -1;
	}
	if (t->dir[0] && getenv("XSD_TEST_KEEP") == NULL)
		nftw(t->dir, xsd_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return status;
}

/* Whether the daemon's log contains @text. */
static inline int xsd_test_log_has(const struct xsd_test *t, const char *text)
{
	char buf[65536];
	FILE *f = fopen(t->log, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

static inline void xsd_test_dump_log(const struct xsd_test *t)
{
	char line[512];
	FILE *f = fopen(t->log, "r");

	while (f && fgets(line, sizeof(line), f))
		printf("# daemon: %s", line);
	if (f)
		fclose(f);
}

static inline int xsd_test_connect(const struct xsd_test *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" XS_ABI_SOCKET_FILE, t->rt) >=
	    (int)sizeof(sa.sun_path)) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* A reply that never comes fails the call (-EAGAIN) after 30 s
	 * (times XS_TEST_TIMEOUT_SCALE) instead of hanging the test. */
	{
		struct timeval tv = { .tv_sec = 30 * (time_t)xs_test_timeout_scale() };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	return fd;
}

static inline void xsd_test_request(struct xs_abi_request *q, uint16_t type,
				    const uint32_t *tids, uint32_t count)
{
	memset(q, 0, sizeof(*q));
	q->magic = XS_ABI_MSG_MAGIC;
	q->version = XS_ABI_MSG_VERSION;
	q->type = type;
	q->size = sizeof(*q);
	q->count = count;
	if (count)
		memcpy(q->tids, tids, count * sizeof(*tids));
}

/* Receive one reply (and up to two fds); returns its size or -errno. */
static inline int xsd_test_recv(int fd, struct xs_abi_reply *r, int fds[2])
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm && fds; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(fds, CMSG_DATA(cm), cm->cmsg_len - CMSG_LEN(0));
	return (int)n;
}

/* One request, one reply; returns reply.status, or -errno of the transfer. */
static inline int xsd_test_call(int fd, uint16_t type, const uint32_t *tids, uint32_t count,
				struct xs_abi_reply *r, int fds[2])
{
	struct xs_abi_request q;
	int n;

	xsd_test_request(&q, type, tids, count);
	if (send(fd, &q, sizeof(q), MSG_NOSIGNAL) != sizeof(q))
		return -errno;
	n = xsd_test_recv(fd, r, fds);
	if (n < 0)
		return n;
	if (n != sizeof(*r) || r->magic != XS_ABI_MSG_MAGIC)
		return -EBADMSG;
	return r->status;
}

struct xsd_test_client {
	int fd;
	int state_fd, workers_fd;
	const struct xs_abi_header *state;
	size_t state_size;
	const struct xs_abi_worker *workers;
	size_t workers_size;
	uint32_t mode;
};

/* Connect, HELLO, map both descriptors read-only. Returns 0 or -errno. */
static inline int xsd_test_client_open(const struct xsd_test *t, struct xsd_test_client *c)
{
	struct xs_abi_reply r;
	int fds[2] = { -1, -1 }, ret;
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->fd = xsd_test_connect(t);
	if (c->fd < 0)
		return c->fd;
	ret = xsd_test_call(c->fd, XS_ABI_HELLO, NULL, 0, &r, fds);
	if (ret)
		return ret;
	if (fds[0] < 0 || fds[1] < 0)
		return -EBADF;
	c->state_fd = fds[0];
	c->workers_fd = fds[1];
	c->mode = r.mode;
	if (fstat(c->state_fd, &st))
		return -errno;
	c->state_size = (size_t)st.st_size;
	c->state = mmap(NULL, c->state_size, PROT_READ, MAP_SHARED, c->state_fd, 0);
	if (c->state == MAP_FAILED)
		return -errno;
	ret = xs_abi_check_layout(c->state, c->state_size);
	if (ret)
		return ret;
	c->workers_size = (size_t)r.nslots * sizeof(struct xs_abi_worker);
	c->workers = mmap(NULL, c->workers_size, PROT_READ, MAP_SHARED, c->workers_fd, 0);
	return c->workers == MAP_FAILED ? -errno : 0;
}

static inline void xsd_test_client_close(struct xsd_test_client *c)
{
	if (c->state && c->state != MAP_FAILED)
		munmap((void *)c->state, c->state_size);
	if (c->workers && c->workers != MAP_FAILED)
		munmap((void *)c->workers, c->workers_size);
	close(c->state_fd);
	close(c->workers_fd);
	close(c->fd);
}

/* A consistent copy of the whole state into @buf (state_size bytes).
 * Returns 0 or -EAGAIN after XS_ABI_READ_RETRIES torn reads. */
static inline int xsd_test_snapshot(const struct xsd_test_client *c, void *buf)
{
	for (int tries = 0;; tries++) {
		uint64_t seq = xs_abi_read_begin(c->state);

		memcpy(buf, c->state, c->state_size);
		if (!xs_abi_read_retry(c->state, seq))
			return 0;
		if (tries == XS_ABI_READ_RETRIES)
			return -EAGAIN;
	}
}

static inline uint32_t xsd_test_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* Why this thread cannot run on CPU @cpu (not in its affinity mask), or
 * NULL. */
static inline const char *xsd_test_no_cpu_why(int cpu)
{
	static char why[64];
	cpu_set_t set;

	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_ISSET(cpu, &set))
		return NULL;
	snprintf(why, sizeof(why), "needs CPU %d in the affinity mask", cpu);
	return why;
}

/* Pin the calling thread to CPU @cpu. Returns 0 or -errno. */
static inline int xsd_test_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Wait until a thread just started has stored its (nonzero) tid in @tid;
 * returns it. */
static inline uint32_t xsd_test_await_tid(_Atomic uint32_t *tid)
{
	while (!*tid)
		xsd_test_sleep_ms(1);
	return *tid;
}

static inline void *xsd_test_idle_thread(void *arg)
{
	*(_Atomic uint32_t *)arg = xsd_test_gettid();
	pause();
	return NULL;
}

/* Start @n threads of this process that only sleep (a process's own
 * threads to register); their tids into @tids. 0 or -errno. */
static inline int xsd_test_idle_threads(uint32_t *tids, int n)
{
	_Atomic uint32_t *got = calloc((size_t)n, sizeof(*got));
	pthread_t th;

	if (!got)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th, NULL, xsd_test_idle_thread, (void *)&got[i]))
			return -EAGAIN; /* @got stays: started threads still write it */
	for (int i = 0; i < n; i++)
		tids[i] = xsd_test_await_tid(&got[i]);
	return 0; /* @got is the threads' for as long as they live */
}

/*
 * Fork a CPU hog: a process that is no xsched worker, pinned to CPU @cpu,
 * spinning until it is killed (xsd_test_hog_stop()), or for 10 s at most
 * (SIGALRM) when its test dies first. Returns its pid or -errno.
 */
static inline pid_t xsd_test_hog(int cpu)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		xsd_test_pin(cpu);
		alarm(10);
		for (volatile uint64_t x = 0;; x++)
			;
	}
	return pid;
}

/* SIGKILL a hog of xsd_test_hog() and reap it. */
static inline void xsd_test_hog_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The daemon's tick count (header.generation) as @c's mapping shows it. */
static inline uint64_t xsd_test_generation(const struct xsd_test_client *c)
{
	/* Acquire: observes the daemon's increment in its tick's seqlock
	 * write section; a test that copies the state afterwards still goes
	 * through xsd_test_snapshot(). The field only grows. */
	return __atomic_load_n(&c->state->generation, __ATOMIC_ACQUIRE);
}

/* Whether the daemon publishes @n more ticks within @ms ms (times
 * XS_TEST_TIMEOUT_SCALE): that it keeps publishing, not how fast, which
 * a loaded or emulated machine (make check-system without KVM) slows. */
static inline int xsd_test_publishes(const struct xsd_test_client *c, unsigned int n,
				     unsigned int ms)
{
	uint64_t want = xsd_test_generation(c) + n;

	for (unsigned int t = 0; t < ms * xs_test_timeout_scale(); t += 2) {
		if (xsd_test_generation(c) >= want)
			return 1;
		xsd_test_sleep_ms(2);
	}
	return xsd_test_generation(c) >= want;
}

/* Wait until the daemon has published @n more ticks: n = 2 guarantees one
 * whole tick that began after the call. */
static inline void xsd_test_wait_ticks(const struct xsd_test_client *c, unsigned int n)
{
	uint64_t gen = xsd_test_generation(c);

	while (xsd_test_generation(c) < gen + n)
		xsd_test_sleep_ms(2);
}

/* Poll worker slot @w every @ms ms, @tries times at most, until its state
 * is @state; returns the last state read. */
static inline uint32_t xsd_test_await_state(const struct xs_abi_worker *w, uint32_t state,
					    int tries, unsigned int ms)
{
	uint32_t st = 0;

	for (int i = 0; i < tries; i++) {
		/* relaxed: BPF rewrites the slot at every context switch; one
		 * 32-bit value is all that is read */
		st = __atomic_load_n(&w->state, __ATOMIC_RELAXED);
		if (st == state)
			break;
		xsd_test_sleep_ms(ms);
	}
	return st;
}

/* Index of CPU @cpu in the CPU array of @h (state or snapshot), or -1. */
static inline int xsd_test_cpu_index(const struct xs_abi_header *h, uint32_t cpu)
{
	const struct xs_abi_cpu *cpus = xs_abi_at(h, h->cpu_off);

	for (uint32_t i = 0; i < h->ncpus; i++)
		if (cpus[i].cpu == cpu)
			return (int)i;
	return -1;
}

/* Row @i of the CPU array of @h (state or snapshot). */
static inline const struct xs_abi_cpu *xsd_test_cpu_at(const struct xs_abi_header *h, int i)
{
	return (const struct xs_abi_cpu *)xs_abi_at(h, h->cpu_off) + i;
}

/*
 * What a test that watches the daemon's state tick by tick holds: the
 * daemon, a client mapping its state, a buffer for xsd_test_snapshot(),
 * and the index of the CPU it watches.
 */
struct xsd_test_watch {
	struct xsd_test t;
	struct xsd_test_client c;
	struct xs_abi_header *snap; /* c.state_size bytes */
	int cpu;                    /* index in the CPU array; -1: none watched */
};

/*
 * After xsd_test_start(&w->t, ...): open the client (the daemon's log is
 * dumped if that fails), find CPU @cpu (< 0: watch none) and allocate the
 * snapshot buffer. ASSERTs each step.
 */
static inline void xsd_test_watch_open(struct __test_metadata *_metadata,
				       struct xsd_test_watch *w, int cpu)
{
	ASSERT_EQ(0, xsd_test_client_open(&w->t, &w->c)) xsd_test_dump_log(&w->t);
	w->cpu = -1;
	if (cpu >= 0) {
		w->cpu = xsd_test_cpu_index(w->c.state, (uint32_t)cpu);
		ASSERT_LE(0, w->cpu);
	}
	w->snap = malloc(w->c.state_size);
	ASSERT_NE(NULL, w->snap);
}

/* The daemon of the per-CPU load tests: 10 ms ticks and 30% decay, so
 * that a busy CPU's share passes 800 permille within a few ticks. Starts
 * it (ASSERTs) and xsd_test_watch_open()s CPU @cpu. */
static inline void xsd_test_watch_load(struct __test_metadata *_metadata,
				       struct xsd_test_watch *w, int cpu)
{
	ASSERT_EQ(0, xsd_test_start(&w->t, "--tick-ms", "10", "--decay", "30"));
	xsd_test_watch_open(_metadata, w, cpu);
}

/* Free the buffer, close the client, stop the daemon: EXPECTs it exits 0. */
static inline void xsd_test_watch_close(struct __test_metadata *_metadata,
					struct xsd_test_watch *w)
{
	free(w->snap);
	xsd_test_client_close(&w->c);
	EXPECT_EQ(0, xsd_test_stop(&w->t));
}

#endif /* XSCHED_XSCHEDD_TEST_H */
