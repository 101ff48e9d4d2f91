/* SPDX-License-Identifier: MIT */
/*
 * omp_child.c - the libgomp and libomp cells. OpenMP stays out of this
 * process: xsched-bench-omp runs the OpenMP version of one program at one
 * thread count, as is for libgomp and with LLVM's libomp in LD_PRELOAD for
 * libomp, and prints one JSON line per run (see bench_omp.c). Each line is
 * checked here like an in-process run, and so is the library that actually
 * served GOMP_parallel, so a preload that did not take is an error rather
 * than libgomp's numbers under libomp's name. A run that takes longer than
 * --timeout is killed and the cell reported as "timeout".
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "driver.h"

#define EXIT_SKIP 4

extern char **environ;

const char *find_libomp(const char **why)
{
	static const char *const patterns[] = {
		"/usr/lib/llvm-*/lib/libomp.so.5",
		"/usr/lib/*-linux-gnu/libomp.so.5",
		"/usr/lib64/libomp.so",
		"/usr/local/lib/libomp.so",
	};
	static char found[PATH_MAX];

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		const char *best = NULL;
		glob_t g;

		if (glob(patterns[i], GLOB_NOSORT, NULL, &g))
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++)	/* newest LLVM */
			if (!best || strverscmp(g.gl_pathv[j], best) > 0)
				best = g.gl_pathv[j];
		snprintf(found, sizeof(found), "%s", best);
		globfree(&g);
		return found;
	}
	*why = "LLVM libomp not found (install libomp5-NN, or pass --libomp PATH)";
	return NULL;
}

/*
 * The environment, with LD_PRELOAD=@preload instead of any LD_PRELOAD. A
 * preloaded library comes before the ASan runtime of a sanitizer build,
 * which ASan refuses unless told, so ASAN_OPTIONS says so (a plain build
 * ignores it).
 */
static char **child_env(const char *preload, char *slot, size_t len,
			char *asan, size_t asan_len)
{
	const char *opts = getenv("ASAN_OPTIONS");
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) &&
		    (!preload || strncmp(environ[i], "ASAN_OPTIONS=", 13)))
			env[k++] = environ[i];
	if (preload) {
		snprintf(slot, len, "LD_PRELOAD=%s", preload);
		env[k++] = slot;
		snprintf(asan, asan_len, "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
			 opts ? opts : "", opts && *opts ? ":" : "");
		env[k++] = asan;
	}
	return env;
}

/* "key":<value> in a line we printed ourselves; NULL if absent. */
static const char *json_value(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? p + strlen(pat) : NULL;
}

static void parse_line(struct cell *c, struct program_run *x,
		       const struct options *o, const char *line,
		       const char *expect_lib, bool *stop)
{
	const char *t = json_value(line, "time_s");
	const char *s = json_value(line, "checksum");
	const char *l = json_value(line, "lib");
	const char *base, *end;
	char *tend, *send;
	double time_s;
	uint64_t sum;

	if (!t || !s || !l || *s != '"' || *l != '"')
		goto bad;
	time_s = strtod(t, &tend);
	sum = strtoull(s + 1, &send, 16);
	end = strchr(l + 1, '"');
	if (tend == t || *send != '"' || !end)
		goto bad;
	snprintf(c->lib, sizeof(c->lib), "%.*s", (int)(end - l - 1), l + 1);
	base = strrchr(c->lib, '/');
	base = base ? base + 1 : c->lib;
	if (strncmp(base, expect_lib, strlen(expect_lib))) {
		cell_fail(c, CELL_ERROR, "the OpenMP calls went to %s, not %s",
			  c->lib, expect_lib);
		*stop = true;
		return;
	}
	cell_record(c, x, o, time_s, sum, stop);
	return;
bad:
	cell_fail(c, CELL_ERROR, "cannot parse xsched-bench-omp output: %.200s",
		  line);
	*stop = true;
}

/*
 * Read the child's lines from @fd until it closes it, allowing each run
 * --timeout seconds. Returns true when a run went over: the caller kills it.
 */
static bool read_runs(struct cell *c, struct program_run *x,
		      const struct options *o, int fd, const char *expect_lib)
{
	double deadline = bench_now() + o->timeout;
	char buf[4096];
	size_t len = 0;
	bool stop = false;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - bench_now();
		char *nl;
		ssize_t k;
		int r;

		if (left <= 0)
			return true;
		r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR) {
			cell_fail(c, CELL_ERROR, "poll: %s", strerror(errno));
			return true;
		}
		if (r <= 0)
			continue;
		k = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;	/* the child is done */
		len += (size_t)k;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (!stop)	/* after that, drain so the child can finish */
				parse_line(c, x, o, buf, expect_lib, &stop);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
			deadline = bench_now() + o->timeout;
		}
		if (len == sizeof(buf) - 1) {
			cell_fail(c, CELL_ERROR, "a line of xsched-bench-omp is too long");
			return true;
		}
	}
}

static void measure_omp(struct cell *c, struct program_run *x,
			const struct options *o, const char *preload,
			const char *expect_lib)
{
	char n[32], threads[16], repeat[16], budget[32];
	char *argv[] = {
		(char *)o->omp_path, (char *)"--only",
		(char *)x->b->problem->name, (char *)"--n", n,
		(char *)"--threads", threads, (char *)"--repeat", repeat,
		(char *)"--budget", budget, NULL,
	};
	char slot[PATH_MAX + 16], asan[1024];
	posix_spawn_file_actions_t fa;
	int fds[2], status, rc;
	bool timed_out;
	char **env;
	pid_t pid;

	if (access(o->omp_path, X_OK)) {
		cell_fail(c, CELL_SKIPPED, "%s: %s (build it with make, or pass --omp PATH)",
			  o->omp_path, strerror(errno));
		return;
	}
	snprintf(n, sizeof(n), "%ld", x->n);
	snprintf(threads, sizeof(threads), "%d", c->threads);
	snprintf(repeat, sizeof(repeat), "%ld", o->repeat);
	snprintf(budget, sizeof(budget), "%.0f", o->budget);
	env = child_env(preload, slot, sizeof(slot), asan, sizeof(asan));
	if (!env || pipe2(fds, O_CLOEXEC)) {
		cell_fail(c, CELL_ERROR, "cannot start xsched-bench-omp: %s",
			  strerror(errno));
		free(env);
		return;
	}
	fflush(stdout);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	rc = posix_spawn(&pid, o->omp_path, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(fds[1]);
	if (rc) {
		cell_fail(c, CELL_ERROR, "cannot start %s: %s", o->omp_path,
			  strerror(rc));
		close(fds[0]);
		return;
	}
	timed_out = read_runs(c, x, o, fds[0], expect_lib);
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (rc < 0)
		cell_fail(c, CELL_ERROR, "waitpid: %s", strerror(errno));
	else if (timed_out)
		cell_fail(c, CELL_TIMEOUT, "a run took more than %.0f s (--timeout)",
			  o->timeout);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP)
		cell_fail(c, CELL_SKIPPED, "xsched-bench-omp has no OpenMP version");
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		cell_fail(c, CELL_ERROR, "xsched-bench-omp exited with status %d",
			  WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		cell_fail(c, CELL_ERROR, "xsched-bench-omp killed by signal %d (%s)",
			  WTERMSIG(status), strsignal(WTERMSIG(status)));
}

void measure_libgomp(struct cell *c, struct program_run *x,
		     const struct options *o)
{
	measure_omp(c, x, o, NULL, "libgomp");
}

void measure_libomp(struct cell *c, struct program_run *x,
		    const struct options *o)
{
	if (!o->libomp_path) {
		cell_fail(c, CELL_SKIPPED, "%s", o->libomp_why);
		return;
	}
	measure_omp(c, x, o, o->libomp_path, "libomp");
}
