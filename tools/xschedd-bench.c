// SPDX-License-Identifier: MIT
/*
 * xschedd-bench - what xschedd costs and what it buys, measured side by side
 * in one run. Needs root (the daemon loads BPF).
 *
 *   xschedd-bench [--daemon PATH] [--reps N] [--hog-cpu C] [--fib N]
 *
 *   1. daemon cost       a context-switch-heavy load (two threads
 *                        ping-ponging through futexes) without and with
 *                        the daemon attached, alternating; ratio
 *   2. publish latency   CLOCK_MONOTONIC when a reader first sees a new
 *                        generation, minus its heartbeat stamp
 *   3. lookup cost       the library's per-attempt costs: the thief's
 *                        daemon check (no poll due), the off-CPU check of a
 *                        victim, a full poll (seqlock copy of the rows,
 *                        compare), a poll that builds a new victim view
 *   4. hog               a CPU hog pinned on one CPU; fib(N) on one worker
 *                        per CPU with XSCHED_DAEMON=off and =auto (the
 *                        daemon running in both), alternating; ratio
 *
 * The daemon runs in a temporary runtime directory; nothing is left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
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

#include "xsched.h"
#include "xsched/abi.h"
#include "ext.h"
#include "common/number.h"
#include "version.h"

static char daemon_path[PATH_MAX];
static char tmpdir[64], rtdir[PATH_MAX];
static pid_t daemon_pid;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* ---- the daemon ---- */

static int daemon_start(void)
{
	char sock[PATH_MAX + 16];

	snprintf(sock, sizeof(sock), "%s/" XS_ABI_SOCKET_FILE, rtdir);
	daemon_pid = fork();
	if (daemon_pid < 0)
		return -errno;
	if (!daemon_pid) {
		char log[PATH_MAX + 8];
		int fd;

		snprintf(log, sizeof(log), "%s/log", tmpdir);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(daemon_path, daemon_path, "--foreground", "--env-file", "/dev/null",
		      "--runtime-dir", rtdir, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		if (!access(sock, F_OK))
			return 0;
		if (waitpid(daemon_pid, NULL, WNOHANG) == daemon_pid)
			break;
		sleep_ms(10);
	}
	fprintf(stderr, "xschedd-bench: %s did not start (see %s/log)\n", daemon_path, tmpdir);
	return -ECHILD;
}

static void daemon_stop(void)
{
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		daemon_pid = 0;
	}
}

/* ---- 1. context switches ---- */

static _Atomic uint32_t pp_word;
static uint32_t pp_rounds;

static void futex_wait(_Atomic uint32_t *w, uint32_t v)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Thread @side (0 or 1) waits for the word to be even/odd, then bumps it:
 * every round trip is two sleeps and two wake-ups. */
static void *pp_thread(void *arg)
{
	uint32_t side = (uint32_t)(uintptr_t)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set); /* one CPU: every hand-off is a context switch */
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (uint32_t i = 0; i < pp_rounds; i++) {
		uint32_t v;

		while (((v = atomic_load(&pp_word)) & 1) != side)
			futex_wait(&pp_word, v);
		atomic_store(&pp_word, v + 1);
		futex_wake(&pp_word);
	}
	return NULL;
}

static uint64_t pingpong_ns(uint32_t rounds)
{
	pthread_t a, b;
	uint64_t t0;

	pp_rounds = rounds;
	atomic_store(&pp_word, 0);
	t0 = now_ns();
	pthread_create(&a, NULL, pp_thread, (void *)0);
	pthread_create(&b, NULL, pp_thread, (void *)1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return now_ns() - t0;
}

static void bench_switch_cost(int reps)
{
	uint64_t off[64], on[64];
	const uint32_t rounds = 100000;

	pingpong_ns(rounds / 10); /* warm up */
	for (int r = 0; r < reps; r++) {
		off[r] = pingpong_ns(rounds);
		if (daemon_start())
			return;
		sleep_ms(50);
		on[r] = pingpong_ns(rounds);
		daemon_stop();
	}
	uint64_t m_off = median(off, reps), m_on = median(on, reps);
	uint64_t min_off = off[0], min_on = on[0]; /* sorted by median() */

	printf("daemon cost: %u futex ping-pong round trips on one CPU (%u switches)\n",
	       rounds, 2 * rounds);
	printf("  without daemon  %8.1f ns/switch median, %8.1f min\n",
	       (double)m_off / (2.0 * rounds), (double)min_off / (2.0 * rounds));
	printf("  with daemon     %8.1f ns/switch median, %8.1f min (BPF on sched_switch; "
	       "no worker registered, so no sched_wakeup program)\n",
	       (double)m_on / (2.0 * rounds), (double)min_on / (2.0 * rounds));
	printf("  ratio with/without %.4f median, %.4f min  (slowdown %.2f%%; %d alternating "
	       "runs)\n", (double)m_on / (double)m_off, (double)min_on / (double)min_off,
	       100.0 * ((double)m_on / (double)m_off - 1), reps);
}

/* ---- 2. publish-to-visible latency ---- */

static int map_state(const struct xs_abi_header **h, size_t *size)
{
	char path[PATH_MAX + 16];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, rtdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return -errno;
	*size = (size_t)st.st_size;
	*h = mmap(NULL, *size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return *h == MAP_FAILED ? -errno : xs_abi_check_layout(*h, *size);
}

static void bench_publish_latency(int samples)
{
	const struct xs_abi_header *h;
	uint64_t lat[1024], last_gen = 0;
	size_t size = 0;
	int n = 0;

	if (samples > 1024)
		samples = 1024;
	if (map_state(&h, &size)) {
		fprintf(stderr, "xschedd-bench: cannot map the state\n");
		return;
	}
	for (uint64_t end = now_ns() + 5000000000ull; n < samples && now_ns() < end;) {
		uint64_t seq = xs_abi_read_begin(h), gen = h->generation, hb = h->heartbeat_ns;
		uint64_t seen = now_ns();

		if (xs_abi_read_retry(h, seq) || gen == last_gen)
			continue;
		if (last_gen)
			lat[n++] = seen - hb;
		last_gen = gen;
	}
	munmap((void *)h, size);
	if (!n)
		return;
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("publish-to-visible: heartbeat stamp -> a spinning reader sees the generation "
	       "(%d ticks)\n", n);
	printf("  median %.1f us, p90 %.1f us, max %.1f us\n", lat[n / 2] / 1e3,
	       lat[n * 9 / 10] / 1e3, lat[n - 1] / 1e3);
}

/* ---- 3. the library's lookups ---- */

static long fib_serial(int n)
{
	long a = 0, b = 1;

	for (int i = 0; i < n; i++) {
		long c = a + b;

		a = b;
		b = c;
	}
	return a;
}

struct fib_arg {
	int n;
	long *out;
};

static void fib_task(void *p)
{
	struct fib_arg *a = p;
	long x, y;

	if (a->n < 2) {
		*a->out = a->n;
		return;
	}
	struct fib_arg l = { a->n - 1, &x }, r = { a->n - 2, &y };

	xs_task_spawn(fib_task, &l, sizeof(l));
	fib_task(&r);
	xs_task_wait();
	*a->out = x + y;
}

static int run_fib(struct xs_runtime *rt, int n, long *out)
{
	struct fib_arg a = { n, out };

	return xs_runtime_run(rt, fib_task, &a);
}

static void bench_lookup(void)
{
	struct xs_daemon_info info;
	struct xs_daemon_client *dc;
	struct xs_runtime *rt;
	const int iters = 1000000;
	volatile uint64_t sink = 0;
	uint64_t t0, t_idle, t_off, t_poll, t_build;

	long out;

	setenv("XSCHED_DAEMON", "required", 1);
	rt = xs_runtime_create(0);
	if (!rt) {
		perror("xschedd-bench: xs_runtime_create");
		return;
	}
	for (int i = 0; i < 200; i++) {
		run_fib(rt, 18, &out);
		xs_daemon_info(rt, &info);
		if (info.using_daemon_table)
			break;
		sleep_ms(5);
	}
	dc = rt->daemon;
	const struct xs_daemon_conn *c = atomic_load(&dc->conn);

	/* what a thief pays per request attempt (loads only: the client's
	 * tick thread polls, and no poll falls due while this measures) */
	atomic_store(&dc->next_poll_ns, UINT64_MAX);
	t0 = now_ns();
	for (int i = 0; i < iters; i++)
		sink += (uintptr_t)xs_daemon_idle(dc);
	t_idle = now_ns() - t0;
	t0 = now_ns();
	for (int i = 0; i < iters; i++)
		sink += xs_daemon_off_cpu(dc, c, (uint32_t)i % rt->nworkers);
	t_off = now_ns() - t0;
	/* a poll: seqlock copy of header and rows, compare with those in use */
	t0 = now_ns();
	for (int i = 0; i < 10000; i++) {
		dc->seen_gen = 0;
		xs_daemon_poll(dc, rt, true);
	}
	t_poll = now_ns() - t0;
	/* a poll whose rows differ: a new table and victim view (the job
	 * after each frees the views retired two jobs before) */
	t_build = 0;
	for (int i = 0; i < 200; i++) {
		while (atomic_exchange(&dc->busy, true))
			sched_yield();
		dc->seen_gen = 0;
		memset(dc->adopted, 0xff, dc->rows_len * sizeof(*dc->adopted));
		atomic_store(&dc->busy, false);
		t0 = now_ns();
		xs_daemon_poll(dc, rt, true);
		t_build += now_ns() - t0;
		run_fib(rt, 2, &out);
	}
	(void)sink;
	xs_daemon_info(rt, &info);
	printf("victim-table lookups in the library (%u workers, %s daemon table, "
	       "%llu views built):\n", rt->nworkers,
	       info.using_daemon_table ? "using the" : "NOT using the",
	       (unsigned long long)info.adopted);
	printf("  thief's daemon check, no poll due   %8.1f ns\n", (double)t_idle / iters);
	printf("  off-CPU check of one victim         %8.1f ns\n", (double)t_off / iters);
	printf("  poll, rows unchanged (seqlock copy) %8.1f ns\n", (double)t_poll / 10000);
	printf("  poll building a new victim view     %8.1f ns\n", (double)t_build / 200);
	xs_runtime_destroy(rt);
}

/* ---- 4. a hog on one CPU ---- */

static pid_t hog_start(int cpu)
{
	pid_t pid = fork();

	if (!pid) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (volatile uint64_t x = 0;; x++)
			;
	}
	return pid;
}

static uint64_t fib_job_ns(struct xs_runtime *rt, int n)
{
	uint64_t t0 = now_ns();
	long out = -1;

	run_fib(rt, n, &out);
	if (out != fib_serial(n))
		fprintf(stderr, "xschedd-bench: fib(%d) = %ld: tasks lost\n", n, out);
	return now_ns() - t0;
}

static void bench_hog(int reps, int hog_cpu, int n)
{
	struct xs_runtime *off, *on;
	struct xs_daemon_info info;
	uint64_t t_off[64], t_on[64];
	pid_t hog;

	setenv("XSCHED_DAEMON", "off", 1);
	off = xs_runtime_create(0);
	setenv("XSCHED_DAEMON", "required", 1);
	on = xs_runtime_create(0);
	if (!off || !on) {
		perror("xschedd-bench: xs_runtime_create");
		return;
	}
	hog = hog_start(hog_cpu);
	sleep_ms(300); /* a few ticks: the hog's CPU sinks in the tables */
	fib_job_ns(off, n - 4);
	fib_job_ns(on, n - 4);
	for (int r = 0; r < reps; r++) {
		t_off[r] = fib_job_ns(off, n);
		t_on[r] = fib_job_ns(on, n);
	}
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	xs_daemon_info(on, &info);
	uint64_t m_off = median(t_off, reps), m_on = median(t_on, reps);

	printf("hog pinned on CPU %d: fib(%d), %u workers, XSCHED_DAEMON=off vs =auto "
	       "(daemon running for both)\n", hog_cpu, n, xs_runtime_workers(on));
	printf("  without daemon table  %8.1f ms\n", m_off / 1e6);
	printf("  with daemon           %8.1f ms  (%s its table; %llu requests not sent to "
	       "off-CPU victims, %llu of them stranded)\n", m_on / 1e6,
	       info.using_daemon_table ? "using" : "not using",
	       (unsigned long long)info.off_cpu_skips, (unsigned long long)info.stranded);
	printf("  speed-up without/with %.3f  (median of %d alternating runs)\n",
	       (double)m_off / (double)m_on, reps);
	xs_runtime_destroy(off);
	xs_runtime_destroy(on);
}

static int rm_tree(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xschedd-bench [--daemon PATH] [--reps R] [--hog-cpu C] [--fib N]\n"
		   "Costs of xschedd: a context switch with and without it, state publish\n"
		   "latency, victim lookups, and a fib(N) run beside a CPU hog. Needs root.\n"
		   "\n"
		   "  --daemon PATH  the xschedd to start (default: next to this program)\n"
		   "  --reps R       repetitions, 1..64 (default 5)\n"
		   "  --hog-cpu C    the CPU the hog runs on (default 1, or 0 on one CPU)\n"
		   "  --fib N        the fib size, 10..40 (default 27)\n"
		   "  -h, --help     this text\n"
		   "  -V, --version  the xsched version\n"
		   "Exit status: 0, 1 on a failure, 2 on a usage error, 4 without root.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "daemon", required_argument, NULL, 'd' },
		{ "reps", required_argument, NULL, 'r' },
		{ "hog-cpu", required_argument, NULL, 'c' },
		{ "fib", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int reps = 5, hog_cpu = -1, fib_n = 27, c;
	char self[PATH_MAX - 16];
	ssize_t len;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';
	if (strrchr(self, '/'))
		*strrchr(self, '/') = '\0';
	snprintf(daemon_path, sizeof(daemon_path), "%s/xschedd", self);
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			snprintf(daemon_path, sizeof(daemon_path), "%s", optarg);
			break;
		case 'r':
			if (tool_parse_int("xschedd-bench", "--reps", optarg, 1, 64, &reps))
				return 2;
			break;
		case 'c':
			if (tool_parse_int("xschedd-bench", "--hog-cpu", optarg, 0,
					   CPU_SETSIZE - 1, &hog_cpu))
				return 2;
			break;
		case 'f':
			if (tool_parse_int("xschedd-bench", "--fib", optarg, 10, 40, &fib_n))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			tool_version("xschedd-bench");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xschedd-bench: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "xschedd-bench: needs root (xschedd loads BPF programs)\n");
		return 4;
	}
	strcpy(tmpdir, "/tmp/xschedd-bench-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	chmod(tmpdir, 0755);
	snprintf(rtdir, sizeof(rtdir), "%s/rt", tmpdir);
	setenv("XSCHED_RUNTIME_DIR", rtdir, 1);
	setenv("XSCHED_BIND", "compact", 1);

	bench_switch_cost(reps);
	if (daemon_start() == 0) {
		sleep_ms(50);
		bench_publish_latency(200);
		bench_lookup();
		if (hog_cpu < 0) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);

			hog_cpu = n > 1 ? 1 : 0;
		}
		bench_hog(reps, hog_cpu, fib_n);
		daemon_stop();
	}
	rm_tree(tmpdir);
	return 0;
}
