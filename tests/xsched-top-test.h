/* SPDX-License-Identifier: MIT */
/*
 * xsched-top-test.h - what the tests of xsched-top and the statistics
 * pages share: run the tool ($XS_BUILDDIR/xsched-top) and keep its output,
 * pick numbers out of its --json lines, and a workload process that runs
 * fib jobs until told to stop, then waits to be told to destroy its
 * runtime (so that the last snapshot is taken when it is done).
 */
#ifndef XSCHED_TOP_TEST_H
#define XSCHED_TOP_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fib-task.h"
#include "xsched.h"
#include "xsched/stats_page.h"

static inline const char *tt_tool(void)
{
	static char path[4096];
	const char *dir = getenv("XS_BUILDDIR");

	snprintf(path, sizeof(path), "%s/xsched-top", dir && *dir ? dir : "build");
	return path;
}

/* CLOCK_MONOTONIC in ns: the clock of a daemon state's heartbeat. */
static inline uint64_t tt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void tt_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Run "xsched-top ARGS" (a shell word list), its stdout into @out
 * (NUL-terminated, truncated at @len). Returns the exit status or -1. */
static inline int tt_run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[8192];
	size_t n = 0, r;
	va_list ap;
	FILE *f;
	int st;

	n = (size_t)snprintf(cmd, sizeof(cmd), "'%s' ", tt_tool());
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = 0;
	while (n + 1 < len && (r = fread(out + n, 1, len - 1 - n, f)) > 0)
		n += r;
	out[n] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The process object of @pid in one --json line, or NULL. */
static inline const char *tt_json_proc(const char *line, int pid)
{
	char key[64];

	snprintf(key, sizeof(key), "{\"pid\":%d,", pid);
	return strstr(line, key);
}

/* The first integer field @name after @from, or -1. */
static inline long long tt_json_num(const char *from, const char *name)
{
	char key[96];
	const char *p;

	if (!from)
		return -1;
	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(from, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* Line @i (from 0) of @text, copied into @buf; NULL past the end. */
static inline char *tt_line(const char *text, int i, char *buf, size_t len)
{
	const char *e;
	size_t n;

	for (; i > 0 && text; i--) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	if (!text || !*text)
		return NULL;
	e = strchr(text, '\n');
	n = e ? (size_t)(e - text) : strlen(text);
	if (n >= len)
		n = len - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return buf;
}

/*
 * A workload in a child process: a runtime of @nworkers workers running
 * fib(@n) jobs, with XSCHED_SHOW_STATS=1 and its stderr into @stats_file.
 * With @busy it runs jobs until a byte arrives on its control pipe; then
 * (or at once without @busy) it writes 'D' to its report pipe, waits for a
 * second byte, destroys the runtime (which prints the statistics) and
 * exits. The child dies with the test (PR_SET_PDEATHSIG).
 */
struct tt_workload {
	pid_t pid;
	int ctl;    /* write end: stop, then destroy */
	int report; /* read end: 'D' when done */
};

static inline int tt_workload_start(struct tt_workload *wl, unsigned int nworkers, int n,
				    int busy, const char *stats_file)
{
	int ctl[2], rep[2];

	if (pipe(ctl) || pipe(rep))
		return -errno;
	wl->pid = fork();
	if (wl->pid < 0)
		return -errno;
	if (!wl->pid) {
		struct xs_runtime *rt;
		char c;
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ctl[1]);
		close(rep[0]);
		if (stats_file) {
			fd = open(stats_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0)
				dup2(fd, 2);
			setenv("XSCHED_SHOW_STATS", "1", 1);
		}
		rt = xs_runtime_create(nworkers);
		if (!rt)
			_exit(3);
		if (busy) {
			fcntl(ctl[0], F_SETFL, O_NONBLOCK);
			while (read(ctl[0], &c, 1) != 1) {
				long r = -1;
				struct fib_arg a = { n, &r };

				if (xs_runtime_run(rt, fib_task, &a))
					_exit(4);
			}
			fcntl(ctl[0], F_SETFL, 0);
		}
		if (write(rep[1], "D", 1) != 1)
			_exit(5);
		do {
			if (read(ctl[0], &c, 1) != 1)
				_exit(5);
		} while (c != 'E');
		xs_runtime_destroy(rt);
		_exit(0);
	}
	close(ctl[0]);
	close(rep[1]);
	wl->ctl = ctl[1];
	wl->report = rep[0];
	return 0;
}

/* Stop the jobs (busy workloads) and wait until the workload says done. */
static inline int tt_workload_stop(struct tt_workload *wl)
{
	char c;

	if (write(wl->ctl, "S", 1) != 1 || read(wl->report, &c, 1) != 1)
		return -1;
	return 0;
}

/* Let it destroy its runtime and exit; returns its exit status. */
static inline int tt_workload_end(struct tt_workload *wl)
{
	int st = -1;

	if (write(wl->ctl, "E", 1) != 1)
		kill(wl->pid, SIGKILL);
	waitpid(wl->pid, &st, 0);
	close(wl->ctl);
	close(wl->report);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * A forged statistics page: "@dir/xsched-stats.<pid>.0" of live process
 * @pid, command @comm (the page's 16 bytes), one worker whose counters are
 * @w, created at 1 s and published at 2 s of CLOCK_MONOTONIC: the tool's
 * first rates are the counters per second, exactly. Returns 0 or -errno.
 */
static inline int tt_forge_page(const char *dir, pid_t pid, const char *comm,
				const struct xs_stats_worker *w)
{
	_Alignas(struct xs_stats_header) unsigned char page[sizeof(struct xs_stats_header) +
							     sizeof(struct xs_stats_worker)];
	struct xs_stats_header *h = (struct xs_stats_header *)page;
	char path[4200];
	int fd, ret = 0;

	memset(page, 0, sizeof(page));
	h->magic = XS_STATS_MAGIC;
	h->version = XS_STATS_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = sizeof(page);
	h->worker_off = sizeof(*h);
	h->worker_size = sizeof(*w);
	h->nworkers = 1;
	h->pid = (__u32)pid;
	h->uid = (__u32)getuid();
	h->nnodes = 1;
	h->queue_size = 256;
	for (size_t i = 0; i < sizeof(h->comm) - 1 && comm[i]; i++)
		h->comm[i] = (__u8)comm[i];
	h->created_ns = 1000000000ull;
	h->generation = 1;
	h->published_ns = 2000000000ull;
	h->period_ns = 100000000ull;
	h->jobs = 1;
	h->dlb = XS_STATS_DLB_WS;
	memcpy(page + sizeof(*h), w, sizeof(*w));
	snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.0", dir, (int)pid);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		ret = -EIO;
	close(fd);
	return ret;
}

/* A live process for a forged page: sleep(1) run as @argv0, killed with
 * the test (PR_SET_PDEATHSIG). Returns its pid once its
 * /proc/<pid>/cmdline says @argv0 (it has exec'd), or -1. */
static inline pid_t tt_sleeper(const char *argv0)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/bin/sleep", argv0, "600", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		char path[64], buf[256] = "";
		ssize_t n = 0;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n > 0 && !strcmp(buf, argv0))
			return pid;
		tt_sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static inline void tt_sleeper_end(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

#endif /* XSCHED_TOP_TEST_H */
