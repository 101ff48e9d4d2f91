/* SPDX-License-Identifier: MIT */
/*
 * omp_child.c - the OpenMP cells: libgomp, libomp and xgomp (xsched's
 * libgomp drop-in). OpenMP stays out of this process: xsched-bench-omp runs
 * the OpenMP version of one program (or one micro-benchmark, micro.c) at
 * one thread count - as is for libgomp, with LLVM's libomp in LD_PRELOAD
 * for libomp, with libxsched-gomp.so.1 in LD_PRELOAD for xgomp - and prints
 * one JSON line per run (see bench_omp.c).
 *
 * Each line names the library that served GOMP_parallel ("lib") and, when
 * any other GOMP_* or omp_* function the child imports went to another
 * library, the first such ("stray"). Either mismatch is an error, so a
 * preload that did not take, or a drop-in that lacks an entry point the
 * program needs (the call then falls through to libgomp), never passes as
 * the named runtime's numbers. A run that takes longer than --timeout is
 * killed and reported as "timeout". The child's last line on stderr (the
 * drop-in's diagnostic before it aborts, say) goes into the reason of a
 * failed cell.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "child_line.h"
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

/* <directory of xsched-bench>/libxsched-gomp.so.1, or NULL and why. */
const char *find_xgomp(const char **why)
{
	static char path[PATH_MAX], msg[PATH_MAX + 128];
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len < 0) {
		*why = "cannot find the directory of xsched-bench (pass --xgomp PATH)";
		return NULL;
	}
	self[len] = '\0';
	snprintf(path, sizeof(path), "%s/libxsched-gomp.so.1", dirname(self));
	if (!access(path, R_OK))
		return path;
	snprintf(msg, sizeof(msg), "%s: %s (build it with make, or pass --xgomp PATH)",
		 path, strerror(errno));
	*why = msg;
	return NULL;
}

/*
 * The environment of a child: ours, with LD_PRELOAD=@preload instead of any
 * LD_PRELOAD, and each "NAME=value" of @set (NULL-terminated, or NULL) in
 * place of any NAME we have. A preloaded library comes before the ASan
 * runtime of a sanitizer build, which ASan refuses unless told, so
 * ASAN_OPTIONS says so (a plain build ignores it). The strings of @set must
 * outlive the result; free it with bench_child_env_free().
 */
char **bench_child_env(const char *preload, const char *const *set)
{
	const char *opts = getenv("ASAN_OPTIONS");
	size_t n = 0, nset = 0, k = 2;
	char **env;

	while (environ[n])
		n++;
	while (set && set[nset])
		nset++;
	env = calloc(n + nset + 5, sizeof(*env));	/* 2 ours, 2 preload, NULL */
	if (!env)
		return NULL;
	/* env[0] and env[1]: our own strings (freed), NULL when unused */
	for (size_t i = 0; i < n; i++) {
		bool replaced = !strncmp(environ[i], "LD_PRELOAD=", 11) ||
				(preload && !strncmp(environ[i], "ASAN_OPTIONS=", 13));

		for (size_t j = 0; j < nset && !replaced; j++) {
			size_t len = strcspn(set[j], "=") + 1;

			replaced = !strncmp(environ[i], set[j], len);
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < nset; j++)
		env[k++] = (char *)set[j];
	if (preload) {
		char *pre, *asan;

		if (asprintf(&pre, "LD_PRELOAD=%s", preload) < 0) {
			free(env);
			return NULL;
		}
		if (asprintf(&asan, "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
			     opts ? opts : "", opts && *opts ? ":" : "") < 0) {
			free(pre);
			free(env);
			return NULL;
		}
		env[0] = env[k++] = pre;
		env[1] = env[k++] = asan;
	}
	return env + 2;
}

void bench_child_env_free(char **env)
{
	if (!env)
		return;
	free(env[-2]);
	free(env[-1]);
	free(env - 2);
}

void omp_call_fail(struct omp_call *call, enum cell_status s,
		   const char *fmt, ...)
{
	va_list ap;

	if (call->status != CELL_OK)	/* keep the first reason */
		return;
	call->status = s;
	va_start(ap, fmt);
	vsnprintf(call->why, sizeof(call->why), fmt, ap);
	va_end(ap);
}

static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* Is @lib in the directory of xsched-bench or below (build/gomp/libgomp.so.1,
 * the drop-in under libgomp's name, found through LD_LIBRARY_PATH)? */
static bool in_build_dir(const char *lib)
{
	char self[PATH_MAX], real[PATH_MAX], *dir;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t n;

	if (len < 0 || !realpath(lib, real))
		return false;
	self[len] = '\0';
	dir = dirname(self);
	n = strlen(dir);
	return !strncmp(real, dir, n) && real[n] == '/';
}

/* Is @lib the library of @runtime? libgomp: a libgomp* that is not the
 * drop-in; libomp: a libomp*; xgomp: the very file preloaded. */
bool omp_lib_matches(const struct options *o, const char *runtime, const char *lib)
{
	const char *base = strrchr(lib, '/');

	base = base ? base + 1 : lib;
	if (!strcmp(runtime, "xgomp"))
		return same_file(lib, o->xgomp_path);
	if (!strcmp(runtime, "libgomp") &&
	    ((o->xgomp_path && same_file(lib, o->xgomp_path)) || in_build_dir(lib)))
		return false;
	return !strncmp(base, runtime, strlen(runtime));
}

/* One line of the child: check its libraries, hand it to call->line. */
static void child_line(struct omp_call *call, const char *line, bool *stop)
{
	struct child_line l;

	if (child_line_parse(line, &l) || !(l.has & CHILD_LIB)) {
		omp_call_fail(call, CELL_ERROR,
			      "cannot parse xsched-bench-omp output: %.200s", line);
		*stop = true;
		return;
	}
	snprintf(call->lib, sizeof(call->lib), "%s", l.lib);
	if (!omp_lib_matches(call->o, call->runtime, call->lib)) {
		omp_call_fail(call, CELL_ERROR, "the OpenMP calls went to %s, not %s",
			      call->lib, call->runtime);
		*stop = true;
		return;
	}
	if (l.has & CHILD_STRAY) {
		omp_call_fail(call, CELL_ERROR,
			      "%s, but GOMP_parallel to %s (an entry point %s lacks?)",
			      l.stray, call->lib, call->runtime);
		*stop = true;
		return;
	}
	call->line(call, &l, line, stop);
}

/* Keep the last line of the child's stderr (a diagnostic before it died). */
static void keep_err(struct omp_call *call, char *buf, size_t *len)
{
	char *nl;

	while ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		if (nl > buf)
			snprintf(call->err, sizeof(call->err), "%s", buf);
		*len -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, *len + 1);
	}
	if (*len > 200) {	/* a long line without its end: keep its start */
		snprintf(call->err, sizeof(call->err), "%.200s", buf);
		*len = 0;
		buf[0] = '\0';
	}
}

/*
 * Read the child's lines from @out until it closes it, allowing each run
 * --timeout seconds, and its stderr from @err. Returns true when a run went
 * over: the caller kills it.
 */
static bool read_child(struct omp_call *call, int out, int err)
{
	double deadline = bench_now() + call->o->timeout;
	char buf[4096], ebuf[512];
	size_t len = 0, elen = 0;
	bool stop = false;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = out, .events = POLLIN },
			{ .fd = err, .events = POLLIN },
		};
		double left = deadline - bench_now();
		char *nl;
		ssize_t k;
		int r;

		if (left <= 0)
			return true;
		r = poll(p, err >= 0 ? 2 : 1, (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR) {
			omp_call_fail(call, CELL_ERROR, "poll: %s", strerror(errno));
			return true;
		}
		if (r <= 0)
			continue;
		if (err >= 0 && p[1].revents) {
			k = read(err, ebuf + elen, sizeof(ebuf) - 1 - elen);
			if (k > 0) {
				elen += (size_t)k;
				ebuf[elen] = '\0';
				keep_err(call, ebuf, &elen);
			} else if (k == 0 || errno != EINTR) {
				err = -1;	/* closed: poll stdout alone */
			}
		}
		if (!p[0].revents)
			continue;
		k = read(out, buf + len, sizeof(buf) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;	/* the child is done */
		len += (size_t)k;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (!stop)	/* after that, drain so the child can finish */
				child_line(call, buf, &stop);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
			deadline = bench_now() + call->o->timeout;
		}
		if (len == sizeof(buf) - 1) {
			omp_call_fail(call, CELL_ERROR,
				      "a line of xsched-bench-omp is too long");
			return true;
		}
	}
	/* stdout closed: the rest of stderr, briefly */
	while (err >= 0 && elen < sizeof(ebuf) - 1) {
		struct pollfd p = { .fd = err, .events = POLLIN };
		ssize_t k;

		if (poll(&p, 1, 1000) <= 0)
			break;
		k = read(err, ebuf + elen, sizeof(ebuf) - 1 - elen);
		if (k <= 0)
			break;
		elen += (size_t)k;
		ebuf[elen] = '\0';
		keep_err(call, ebuf, &elen);
	}
	if (elen)
		snprintf(call->err, sizeof(call->err), "%.200s", ebuf);
	return false;
}

/* The preload of @runtime: *preload NULL for libgomp; NULL and why when
 * the library is not here. */
const char *omp_preload_of(const struct options *o, const char *runtime,
			   const char **preload)
{
	*preload = NULL;
	if (!strcmp(runtime, "libomp")) {
		*preload = o->libomp_path;
		return o->libomp_path ? NULL : o->libomp_why;
	}
	if (!strcmp(runtime, "xgomp")) {
		*preload = o->xgomp_path;
		return o->xgomp_path ? NULL : o->xgomp_why;
	}
	return NULL;
}

/* The preload of call->runtime; false (the call skipped) if none here. */
static bool omp_preload(struct omp_call *call, const char **preload)
{
	const char *why = omp_preload_of(call->o, call->runtime, preload);

	if (why)
		omp_call_fail(call, CELL_SKIPPED, "%s", why);
	return call->status == CELL_OK;
}

static void child_status(struct omp_call *call, int status, bool timed_out)
{
	char err[sizeof(call->err) + 4] = "";

	if (call->err[0])
		snprintf(err, sizeof(err), ": %s", call->err);
	if (timed_out)
		omp_call_fail(call, CELL_TIMEOUT, "a run took more than %.0f s (--timeout)",
			      call->o->timeout);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP)
		omp_call_fail(call, CELL_SKIPPED, "xsched-bench-omp cannot run it here%s",
			      err[0] ? err : ": no OpenMP version");
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		omp_call_fail(call, CELL_ERROR, "xsched-bench-omp exited with status %d%s",
			      WEXITSTATUS(status), err);
	else if (WIFSIGNALED(status))
		omp_call_fail(call, CELL_ERROR, "xsched-bench-omp killed by signal %d (%s)%s",
			      WTERMSIG(status), strsignal(WTERMSIG(status)), err);
	else if (!call->lines)
		omp_call_fail(call, CELL_ERROR, "xsched-bench-omp printed no run%s", err);
}

void omp_call_run(struct omp_call *call)
{
	const struct options *o = call->o;
	char *argv[32] = { (char *)o->omp_path };
	posix_spawn_file_actions_t fa;
	int out[2], err[2], status = 0, rc, n = 1;
	const char *preload;
	bool timed_out;
	char **env;
	pid_t pid;

	call->status = CELL_OK;
	call->lib[0] = call->err[0] = '\0';
	if (!omp_preload(call, &preload))
		return;
	if (access(o->omp_path, X_OK)) {
		omp_call_fail(call, CELL_SKIPPED,
			      "%s: %s (build it with make, or pass --omp PATH)",
			      o->omp_path, strerror(errno));
		return;
	}
	for (char **a = call->args; *a && n < 31; a++)
		argv[n++] = *a;
	env = bench_child_env(preload, NULL);
	if (!env || pipe2(out, O_CLOEXEC)) {
		omp_call_fail(call, CELL_ERROR, "cannot start xsched-bench-omp: %s",
			      strerror(errno));
		bench_child_env_free(env);
		return;
	}
	if (pipe2(err, O_CLOEXEC)) {
		omp_call_fail(call, CELL_ERROR, "cannot start xsched-bench-omp: %s",
			      strerror(errno));
		close(out[0]);
		close(out[1]);
		bench_child_env_free(env);
		return;
	}
	fflush(stdout);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	rc = posix_spawn(&pid, o->omp_path, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	bench_child_env_free(env);
	close(out[1]);
	close(err[1]);
	if (rc) {
		omp_call_fail(call, CELL_ERROR, "cannot start %s: %s", o->omp_path,
			      strerror(rc));
		close(out[0]);
		close(err[0]);
		return;
	}
	timed_out = read_child(call, out[0], err[0]);
	close(out[0]);
	close(err[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (rc < 0)
		omp_call_fail(call, CELL_ERROR, "waitpid: %s", strerror(errno));
	else
		child_status(call, status, timed_out);
}

/* A result line of a program: {"time_s":..,"checksum":"..",...}; a
 * warm-up run's ("warmup":k) is checked, not recorded. */
static void program_line(struct omp_call *call, const struct child_line *l, const char *line,
			 bool *stop)
{
	struct cell *c = (struct cell *)call->ctx;

	if ((l->has & (CHILD_TIME | CHILD_CHECKSUM)) != (CHILD_TIME | CHILD_CHECKSUM))
		goto bad;
	if (l->has & CHILD_WARMUP) {
		if (call->prog->have_ref && l->checksum != call->prog->ref) {
			cell_fail(c, CELL_ERROR,
				  "wrong result in a warm-up run: checksum %016llx, serial %016llx",
				  (unsigned long long)l->checksum,
				  (unsigned long long)call->prog->ref);
			*stop = true;
		}
		return;
	}
	if (call->prog->b->problem->nodes) {
		if (!(l->has & CHILD_NODES) || l->nodes < 0)
			goto bad;
		c->run_nodes = (uint64_t)l->nodes;
		c->child_nodes = true;
	}
	call->lines++;
	cell_record(c, call->prog, call->o, l->time_s, l->checksum, stop);
	return;
bad:
	omp_call_fail(call, CELL_ERROR, "cannot parse xsched-bench-omp output: %.200s",
		      line);
	*stop = true;
}

static void measure_omp(struct cell *c, struct program_run *x,
			const struct options *o, const char *runtime)
{
	char n[32], threads[16], repeat[16], budget[32], warmup[16];
	char *args[] = {
		(char *)"--only", (char *)x->b->problem->name, (char *)"--n", n,
		(char *)"--threads", threads, (char *)"--repeat", repeat,
		(char *)"--budget", budget, (char *)"--warmup", warmup, NULL,
	};
	struct omp_call call = {
		.o = o, .runtime = runtime, .args = args, .line = program_line,
		.ctx = c, .prog = x,
	};

	snprintf(n, sizeof(n), "%ld", x->n);
	snprintf(threads, sizeof(threads), "%d", c->threads);
	snprintf(repeat, sizeof(repeat), "%ld", o->repeat);
	snprintf(budget, sizeof(budget), "%.0f", o->budget);
	snprintf(warmup, sizeof(warmup), "%ld", o->warmup);
	c->child_base = c->reps;	/* a fresh child: its own repeat, budget */
	omp_call_run(&call);
	snprintf(c->lib, sizeof(c->lib), "%s", call.lib);
	if (call.status != CELL_OK)
		cell_fail(c, call.status, "%s", call.why);
}

void measure_libgomp(struct cell *c, struct program_run *x,
		     const struct options *o)
{
	measure_omp(c, x, o, "libgomp");
}

void measure_libomp(struct cell *c, struct program_run *x,
		    const struct options *o)
{
	measure_omp(c, x, o, "libomp");
}

void measure_xgomp(struct cell *c, struct program_run *x,
		   const struct options *o)
{
	measure_omp(c, x, o, "xgomp");
}
