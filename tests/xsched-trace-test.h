/* SPDX-License-Identifier: MIT */
/*
 * xsched-trace-test.h - what the tests of tools/xsched-trace share: make a
 * profile by running fib on a real runtime with XSCHED_PROFILE, run the
 * tool ($XS_BUILDDIR/xsched-trace) with its output in files, read files.
 */
#ifndef XSCHED_TRACE_TEST_H
#define XSCHED_TRACE_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fib-task.h"
#include "xsched.h"

/* Tasks fib_task(n) spawns: one per call with n >= 2, each run once. */
static inline long xt_fib_spawns(int n)
{
	return n < 2 ? 0 : 1 + xt_fib_spawns(n - 1) + xt_fib_spawns(n - 2);
}

/* Round a non-negative double to nearest (no libm in the tests' link). */
static inline long long xt_round(double v)
{
	return (long long)(v + 0.5);
}

static inline const char *xt_tool(void)
{
	static char path[4096];
	const char *dir = getenv("XS_BUILDDIR");

	snprintf(path, sizeof(path), "%s/xsched-trace", dir && *dir ? dir : "build");
	return path;
}

/*
 * Run fib(@n) on @nworkers workers with XSCHED_PROFILE=@path; the stats
 * go to @st. Returns fib(n), or -1 if the runtime failed.
 */
static inline long xt_make_trace(const char *path, unsigned int nworkers, int n,
				 struct xs_stats *st)
{
	struct xs_runtime *rt;
	long r = -1;
	struct fib_arg a = { n, &r };

	setenv("XSCHED_PROFILE", path, 1);
	setenv("XSCHED_PROFILE_MIN_NS", "0", 1); /* every event: counts checked */
	rt = xs_runtime_create(nworkers);
	unsetenv("XSCHED_PROFILE");
	unsetenv("XSCHED_PROFILE_MIN_NS");
	if (!rt)
		return -1;
	if (xs_runtime_run(rt, fib_task, &a) || xs_runtime_stats(rt, st))
		r = -1;
	xs_runtime_destroy(rt); /* writes the profile */
	return r;
}

/*
 * Run "xsched-trace ARGS" (a printf format; paths must not need quoting)
 * with stdout to @out_path and stderr to @err_path. Returns the exit
 * status, or 128 + the signal that killed it, or -1.
 */
static inline int xt_run(const char *out_path, const char *err_path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int xt_run(const char *out_path, const char *err_path, const char *fmt, ...)
{
	char args[2048], cmd[4096 + 2048 + 1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "exec %s %s >%s 2>%s </dev/null", xt_tool(), args, out_path,
		 err_path);
	st = system(cmd);
	if (st == -1)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole file, NUL-terminated (*@len without the NUL), or NULL. */
static inline char *xt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0) {
		rewind(f);
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static inline int xt_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(buf, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* The integer after "@key": in @s, or @def when it is not there. */
static inline long long xt_field(const char *s, const char *key, long long def)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(s, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : def;
}

/* A temporary file name under /tmp with @suffix (created empty). */
static inline int xt_tmp(char *buf, size_t n, const char *suffix)
{
	int fd;

	snprintf(buf, n, "/tmp/xsched-trace-XXXXXX%s", suffix);
	fd = mkstemps(buf, (int)strlen(suffix));
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

#endif /* XSCHED_TRACE_TEST_H */
