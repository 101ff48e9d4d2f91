/* SPDX-License-Identifier: MIT */
/*
 * corun.c - xsched-bench --corun[=K]: sharing the machine.
 *
 * K copies (default 2) of one program, each at full width (as many threads
 * as the CPUs the bench may use), are started together under one runtime,
 * and the time from the first copy's start to the last copy's end (the
 * makespan) is set against K solo runs of the same copy: makespan / (K x
 * solo), ideal 1.00 - the machine does the same work, one program after
 * the other or side by side. A runtime that spins while it waits burns
 * the CPUs the other copies need and goes far above 1.
 *
 * Rows: libgomp, libomp, oneTBB, xsched, xgomp (the drop-in), and for
 * xsched and xgomp once more with xschedd (`+d`, XSCHED_DAEMON=required)
 * when one serves XSCHED_RUNTIME_DIR (default /run/xsched): scripts/
 * run-main.sh starts one as root for the duration of a run. The other rows
 * run with XSCHED_DAEMON=off. xgomp-dyn and xgomp-dyn+d are the drop-in
 * with OMP_DYNAMIC=true: each region's team no larger than the process's
 * CPU share (xschedd's arbitration; libgomp's load-average rule without a
 * daemon); --runtime xgomp selects all four xgomp rows. Conditions (--noise): quiet, then with the
 * noisy neighbour of noise.h pinned to the last CPU at 50% and at 100%
 * duty, started before the condition's first run and stopped after its last.
 *
 * Every copy is a child process (corun.h): xsched-bench --corun-child
 * RUNTIME for xsched and oneTBB, xsched-bench-omp --corun under the
 * OpenMP runtime's preload otherwise (the library that served the calls is
 * checked as for the table, omp_child.c). Each copy's result is checked
 * against the serial run of this process. A group that takes longer than
 * --timeout (default 10 s here) is killed and reported as `timeout (>Ns)`,
 * and the next one runs: a collapse costs --timeout, never a hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "corun.h"
#include "child_line.h"
#include "driver.h"
#include "noise.h"
#include "spawn.h"

#define EXIT_SKIP 4
#define MAX_COPIES 64

const char *const corun_noise[CORUN_NOISES] = { "quiet", "hog50", "hog100" };
static const int noise_duty[CORUN_NOISES] = { 0, 50, 100 };

/* Sizes of the co-run table: a solo run of a fast runtime takes 0.1-0.5 s
 * at two threads here, so that the slow ones stay within --timeout. */
static const struct corun_size {
	const char *name;
	long n, n_quick;
} corun_sizes[] = {
	{ "fib", 27, 22 },
	{ "loops", 20000, 1000 },
	{ "alignment", 40, 16 },
};
#define NSIZES (sizeof(corun_sizes) / sizeof(corun_sizes[0]))

/* A runtime row. */
struct corun_row {
	const char *name;	/* as printed */
	const char *runtime;	/* --runtime name it belongs to */
	bool omp;		/* a copy is xsched-bench-omp */
	bool daemon;		/* XSCHED_DAEMON=required, else off */
	bool dynamic;		/* OMP_DYNAMIC=true: teams no larger than the CPU share */
};

static const struct corun_row rows[] = {
	{ "libgomp", "libgomp", true, false, false },
	{ "libomp", "libomp", true, false, false },
	{ "tbb", "tbb", false, false, false },
	{ "xsched", "xsched", false, false, false },
	{ "xsched+d", "xsched", false, true, false },
	{ "xgomp", "xgomp", true, false, false },
	{ "xgomp+d", "xgomp", true, true, false },
	{ "xgomp-dyn", "xgomp", true, false, true },
	{ "xgomp-dyn+d", "xgomp", true, true, true },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* One copy while it runs. */
struct copy {
	pid_t pid;
	int out, err;		/* -1 once closed */
	char buf[4096];
	size_t len;
	char ebuf[512];
	size_t elen;
	char last_err[256];
	bool ready, result;
	double start, end;
	uint64_t sum;
	char lib[256];
};

/* One group of copies started together (k = 1: a solo run). */
struct group {
	enum cell_status status;
	int copies, verified;
	double time_s;		/* makespan */
	char why[512];
};

struct corun_ctx {
	const struct options *o;
	const struct bench *b;
	long n;
	uint64_t ref;
	int threads;		/* full width */
	const char *self;	/* xsched-bench */
	const char *daemon_dir;	/* NULL: no xschedd */
	const char *daemon_why;
	double timeout;
	int errors;
};

static void group_fail(struct group *g, enum cell_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void group_fail(struct group *g, enum cell_status s, const char *fmt, ...)
{
	va_list ap;

	if (g->status != CELL_OK)	/* keep the first reason */
		return;
	g->status = s;
	va_start(ap, fmt);
	vsnprintf(g->why, sizeof(g->why), fmt, ap);
	va_end(ap);
}

/* Where xschedd serves, or NULL and why. */
static const char *find_daemon(const char **why)
{
	static char sock[PATH_MAX], msg[PATH_MAX + 160];
	const char *dir = getenv("XSCHED_RUNTIME_DIR");
	struct stat sb;

	if (!dir || !*dir)
		dir = "/run/xsched";
	snprintf(sock, sizeof(sock), "%s/socket", dir);
	if (!stat(sock, &sb) && S_ISSOCK(sb.st_mode))
		return dir;
	snprintf(msg, sizeof(msg), "no xschedd serves %s (as root, "
		 "scripts/run-main.sh BUILDDIR --corun starts one)", dir);
	*why = msg;
	return NULL;
}

/* The line of a copy: ready, or its result. */
static void copy_line(struct corun_ctx *x, const struct corun_row *r,
		      struct copy *c, struct group *g, const char *line)
{
	struct child_line l;

	if (child_line_parse(line, &l) || (r->omp && !(l.has & CHILD_LIB))) {
		group_fail(g, CELL_ERROR, "cannot parse a copy's output: %.200s", line);
		return;
	}
	if (r->omp) {
		snprintf(c->lib, sizeof(c->lib), "%s", l.lib);
		if (!omp_lib_matches(x->o, r->runtime, c->lib)) {
			group_fail(g, CELL_ERROR, "the OpenMP calls went to %s, not %s",
				   c->lib, r->runtime);
			return;
		}
		if (l.has & CHILD_STRAY) {
			group_fail(g, CELL_ERROR, "%s, but GOMP_parallel to %s", l.stray, c->lib);
			return;
		}
	}
	if (l.has & CHILD_READY) {
		c->ready = true;
		return;
	}
	if ((l.has & (CHILD_START | CHILD_END | CHILD_CHECKSUM)) !=
	    (CHILD_START | CHILD_END | CHILD_CHECKSUM)) {
		group_fail(g, CELL_ERROR, "cannot parse a copy's output: %.200s", line);
		return;
	}
	c->start = l.start_s;
	c->end = l.end_s;
	c->sum = l.checksum;
	c->result = true;
}

/* Keep the last line of a copy's stderr. */
static void copy_err(struct copy *c)
{
	ssize_t k = read(c->err, c->ebuf + c->elen, sizeof(c->ebuf) - 1 - c->elen);
	char *nl;

	if (k <= 0) {
		if (k == 0 || errno != EINTR) {
			close(c->err);
			c->err = -1;
			if (c->elen)
				snprintf(c->last_err, sizeof(c->last_err), "%.200s", c->ebuf);
		}
		return;
	}
	c->elen += (size_t)k;
	c->ebuf[c->elen] = '\0';
	while ((nl = strchr(c->ebuf, '\n'))) {
		*nl = '\0';
		if (nl > c->ebuf)
			snprintf(c->last_err, sizeof(c->last_err), "%.200s", c->ebuf);
		c->elen -= (size_t)(nl + 1 - c->ebuf);
		memmove(c->ebuf, nl + 1, c->elen + 1);
	}
	if (c->elen == sizeof(c->ebuf) - 1)
		c->elen = 0;	/* a line without its end: drop it */
}

/* Lines from a copy's stdout. */
static void copy_out(struct corun_ctx *x, const struct corun_row *r,
		     struct copy *c, struct group *g)
{
	ssize_t k = read(c->out, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	char *nl;

	if (k <= 0) {
		if (k == 0 || errno != EINTR) {
			close(c->out);
			c->out = -1;
		}
		return;
	}
	c->len += (size_t)k;
	c->buf[c->len] = '\0';
	while ((nl = strchr(c->buf, '\n'))) {
		*nl = '\0';
		copy_line(x, r, c, g, c->buf);
		c->len -= (size_t)(nl + 1 - c->buf);
		memmove(c->buf, nl + 1, c->len + 1);
	}
	if (c->len == sizeof(c->buf) - 1) {
		group_fail(g, CELL_ERROR, "a copy's output line is too long");
		c->len = 0;
	}
}

static int spawn_copy(struct corun_ctx *x, const struct corun_row *r, int threads,
		      int go, struct copy *c, char **env)
{
	char n[32], t[16];
	char *argv[16];
	posix_spawn_file_actions_t fa;
	int out[2], err[2], rc, k = 0;

	snprintf(n, sizeof(n), "%ld", x->n);
	snprintf(t, sizeof(t), "%d", threads);
	argv[k++] = (char *)(r->omp ? x->o->omp_path : x->self);
	if (r->omp) {
		argv[k++] = (char *)"--corun";
	} else {
		argv[k++] = (char *)"--corun-child";
		argv[k++] = (char *)r->runtime;
	}
	argv[k++] = (char *)"--only";
	argv[k++] = (char *)x->b->problem->name;
	argv[k++] = (char *)"--n";
	argv[k++] = n;
	argv[k++] = (char *)"--threads";
	argv[k++] = t;
	argv[k] = NULL;
	if (pipe2(out, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		rc = -errno;
		close(out[0]);
		close(out[1]);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, go, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	rc = posix_spawn(&c->pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	if (rc) {
		close(out[0]);
		close(err[0]);
		return -rc;
	}
	c->out = out[0];
	c->err = err[0];
	return 0;
}

/*
 * Poll the copies until every one has closed its stdout or @deadline
 * passes; @until_ready: return once every copy is ready. Returns false
 * on timeout.
 */
static bool poll_copies(struct corun_ctx *x, const struct corun_row *r,
			struct copy *cs, int k, struct group *g, double deadline,
			bool until_ready)
{
	for (;;) {
		struct pollfd p[2 * MAX_COPIES];
		struct copy *who[2 * MAX_COPIES];
		int np = 0, ready = 0, rc;
		double left = deadline - bench_now();

		for (int i = 0; i < k; i++) {
			ready += cs[i].ready;
			if (cs[i].out >= 0) {
				who[np] = &cs[i];
				p[np++] = (struct pollfd){ .fd = cs[i].out, .events = POLLIN };
			}
			if (cs[i].err >= 0) {
				who[np] = &cs[i];
				p[np++] = (struct pollfd){ .fd = cs[i].err, .events = POLLIN };
			}
		}
		if (until_ready && ready == k)
			return true;
		if (!np || g->status != CELL_OK)
			return true;
		if (left <= 0)
			return false;
		rc = poll(p, (nfds_t)np, (int)(left * 1000) + 1);
		if (rc < 0 && errno != EINTR) {
			group_fail(g, CELL_ERROR, "poll: %s", strerror(errno));
			return true;
		}
		for (int i = 0; rc > 0 && i < np; i++) {
			if (!p[i].revents)
				continue;
			if (p[i].fd == who[i]->out)
				copy_out(x, r, who[i], g);
			else
				copy_err(who[i]);
		}
		/* a copy that died before it was ready ends the wait */
		for (int i = 0; until_ready && i < k; i++)
			if (cs[i].out < 0 && !cs[i].ready)
				return true;
	}
}

/* The exit of copy @c, folded into @g. */
static void copy_status(struct copy *c, int status, struct group *g)
{
	char err[sizeof(c->last_err) + 4] = "";

	if (c->last_err[0])
		snprintf(err, sizeof(err), ": %s", c->last_err);
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP)
		group_fail(g, CELL_SKIPPED, "no version for this runtime%s", err);
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		group_fail(g, CELL_ERROR, "a copy exited with status %d%s",
			   WEXITSTATUS(status), err);
	else if (WIFSIGNALED(status))
		group_fail(g, CELL_ERROR, "a copy was killed by signal %d (%s)%s",
			   WTERMSIG(status), strsignal(WTERMSIG(status)), err);
	else if (!c->result)
		group_fail(g, CELL_ERROR, "a copy printed no result%s", err);
}

/* Start @k copies of @r at @threads together; the makespan into @g. */
static void run_group(struct corun_ctx *x, const struct corun_row *r, int threads,
		      int k, struct group *g)
{
	char daemon_var[32], dir_var[PATH_MAX + 32];
	const char *set[4] = { daemon_var, NULL, NULL, NULL };
	int nset = 1;
	struct copy cs[MAX_COPIES];
	const char *preload = NULL, *why;
	double first = 0, last = 0;
	int go[2], spawned = 0;
	char **env;
	bool in_time;

	memset(g, 0, sizeof(*g));
	g->copies = k;
	why = r->omp ? omp_preload_of(x->o, r->runtime, &preload) : NULL;
	if (why) {
		group_fail(g, CELL_SKIPPED, "%s", why);
		return;
	}
	if (r->daemon && !x->daemon_dir) {
		group_fail(g, CELL_SKIPPED, "%s", x->daemon_why);
		return;
	}
	if (r->omp && access(x->o->omp_path, X_OK)) {
		group_fail(g, CELL_SKIPPED, "%s: %s (build it with make, or pass --omp PATH)",
			   x->o->omp_path, strerror(errno));
		return;
	}
	snprintf(daemon_var, sizeof(daemon_var), "XSCHED_DAEMON=%s",
		 r->daemon ? "required" : "off");
	if (r->daemon) {
		snprintf(dir_var, sizeof(dir_var), "XSCHED_RUNTIME_DIR=%s", x->daemon_dir);
		set[nset++] = dir_var;
	}
	if (r->dynamic)
		set[nset++] = "OMP_DYNAMIC=true";
	env = bench_child_env(preload, set);
	if (!env || pipe2(go, O_CLOEXEC)) {
		group_fail(g, CELL_ERROR, "cannot start the copies: %s", strerror(errno));
		bench_child_env_free(env);
		return;
	}
	memset(cs, 0, sizeof(cs));
	fflush(stdout);
	for (int i = 0; i < k; i++) {
		int rc = spawn_copy(x, r, threads, go[0], &cs[i], env);

		if (rc) {
			group_fail(g, CELL_ERROR, "cannot start a copy: %s", strerror(-rc));
			break;
		}
		spawned++;
	}
	bench_child_env_free(env);
	close(go[0]);
	/* Set-up (input, runtime start) is not timed, but bounded too. */
	in_time = poll_copies(x, r, cs, spawned, g, bench_now() + x->timeout, true);
	close(go[1]);	/* every copy reads end of file: go */
	if (in_time && g->status == CELL_OK)
		in_time = poll_copies(x, r, cs, spawned, g, bench_now() + x->timeout, false);
	if (!in_time) {
		group_fail(g, CELL_TIMEOUT, "timeout (>%.0fs)", x->timeout);
		for (int i = 0; i < spawned; i++)
			kill(cs[i].pid, SIGKILL);
	} else if (g->status != CELL_OK) {
		for (int i = 0; i < spawned; i++)
			kill(cs[i].pid, SIGKILL);
	}
	for (int i = 0; i < spawned; i++) {
		int status = 0, rc;

		if (cs[i].out >= 0)
			close(cs[i].out);
		if (cs[i].err >= 0)
			close(cs[i].err);
		while ((rc = waitpid(cs[i].pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (rc < 0)
			group_fail(g, CELL_ERROR, "waitpid: %s", strerror(errno));
		else if (g->status == CELL_OK)
			copy_status(&cs[i], status, g);
	}
	for (int i = 0; i < spawned && g->status == CELL_OK; i++) {
		if (cs[i].sum != x->ref) {
			group_fail(g, CELL_ERROR, "copy %d: wrong result: checksum %016llx, "
				   "serial %016llx", i + 1, (unsigned long long)cs[i].sum,
				   (unsigned long long)x->ref);
			break;
		}
		g->verified++;
		if (!i || cs[i].start < first)
			first = cs[i].start;
		if (!i || cs[i].end > last)
			last = cs[i].end;
	}
	if (g->status == CELL_OK)
		g->time_s = last - first;
}

/* The best of --repeat groups of @k copies (without it: one with --quick,
 * else up to CORUN_REPS while they took less than CORUN_BUDGET_S in all):
 * the first failure, else the shortest makespan. */
#define CORUN_REPS 3
#define CORUN_BUDGET_S 1.0
static void best_group(struct corun_ctx *x, const struct corun_row *r, int threads,
		       int k, struct group *best)
{
	long reps = x->o->repeat_set ? x->o->repeat : x->o->quick ? 1 : CORUN_REPS;
	double spent = 0;

	for (long i = 0; i < reps; i++) {
		struct group g;

		run_group(x, r, threads, k, &g);
		if (!i || g.status != CELL_OK || (best->status == CELL_OK && g.time_s < best->time_s))
			*best = g;
		if (g.status != CELL_OK)
			return;
		spent += g.time_s;
		if (!x->o->repeat_set && spent >= CORUN_BUDGET_S)
			return;
	}
}

static bool row_selected(const struct options *o, const struct corun_row *r)
{
	for (int i = 1; i < nruntimes; i++)
		if (!strcmp(runtimes[i].name, r->runtime))
			return o->runtimes & (1u << i);
	return false;
}

static const char *fmt_time(const struct group *g, char *buf, size_t len)
{
	if (!g->copies)
		snprintf(buf, len, "-");
	else if (g->status == CELL_OK)
		snprintf(buf, len, "%.3f", g->time_s);
	else if (g->status == CELL_TIMEOUT)
		snprintf(buf, len, "%.40s", g->why);
	else
		snprintf(buf, len, "%s", g->status == CELL_SKIPPED ? "skipped" : "error");
	return buf;
}

static void json_group(const char *key, const struct group *g)
{
	printf(",\"%s\":", key);
	if (g->copies && g->status == CELL_OK)
		printf("%.6f", g->time_s);
	else
		printf("null");
}

/* One row of one condition: a line of the table, or a JSON line. */
static void report_row(const struct corun_ctx *x, const struct corun_row *r,
		       int noise, const struct group *t1, const struct group *solo,
		       const struct group *co)
{
	const struct group *bad = solo->status != CELL_OK ? solo :
				  co->status != CELL_OK ? co :
				  t1->status != CELL_OK ? t1 : NULL;
	bool ratio = solo->status == CELL_OK && co->status == CELL_OK;
	bool speed = solo->status == CELL_OK && t1->copies && t1->status == CELL_OK;
	double sum = x->o->corun * (ratio ? solo->time_s : 0);
	char a[64], b[64], c[64];

	if (x->o->json) {
		printf("{\"corun\":\"%s\",\"runtime\":\"%s\",\"daemon\":%s,\"dynamic\":%s,"
		       "\"noise\":\"%s\",\"copies\":%d,\"threads\":%d,\"n\":%ld,\"status\":\"%s\"",
		       x->b->problem->name, r->name, r->daemon ? "true" : "false",
		       r->dynamic ? "true" : "false",
		       corun_noise[noise], x->o->corun, x->threads, x->n,
		       !bad ? "ok" : bad->status == CELL_TIMEOUT ? "timeout" :
		       bad->status == CELL_SKIPPED ? "skipped" : "error");
		json_group("t1_s", t1);
		json_group("solo_s", solo);
		json_group("makespan_s", co);
		if (ratio)
			printf(",\"ratio\":%.4f", co->time_s / sum);
		else
			printf(",\"ratio\":null");
		printf(",\"verified\":%d", co->verified);
		if (bad) {
			printf(",\"reason\":");
			json_put_string(stdout, bad->why);
		}
		printf("}\n");
		return;
	}
	printf("  %-7s %-11s %13s %15s %15s", corun_noise[noise], r->name,
	       fmt_time(t1, a, sizeof(a)), fmt_time(solo, b, sizeof(b)),
	       fmt_time(co, c, sizeof(c)));
	if (ratio)
		printf(" %9.2f", co->time_s / sum);
	else
		printf(" %9s", "-");
	if (speed)
		printf(" %8.2f", solo->time_s / t1->time_s);
	else
		printf(" %8s", "-");
	if (co->status == CELL_SKIPPED)
		printf("   -\n");
	else
		printf("   %d/%d\n", co->verified, x->o->corun);
	if (bad && bad->status != CELL_TIMEOUT)
		printf("          %s: %s\n", bad->status == CELL_SKIPPED ? "skipped" : "error",
		       bad->why);
}

/* This program's n: --n when given for it, else the co-run size. */
static long corun_n(const struct options *o, const struct bench *b, long given)
{
	const struct bench_problem *pb = b->problem;

	if (o->n_set && given != pb->n_default && given != pb->n_quick)
		return given;
	for (size_t i = 0; i < NSIZES; i++)
		if (!strcmp(corun_sizes[i].name, pb->name))
			return o->quick ? corun_sizes[i].n_quick : corun_sizes[i].n;
	return given;
}

static int cpu_count(void)
{
	cpu_set_t mask;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&mask);
}

static int corun_program(struct corun_ctx *x)
{
	const struct bench_problem *pb = x->b->problem;
	const struct options *o = x->o;
	struct group t1[NROWS];
	char why[256];
	void *st;

	st = pb->setup(x->n);
	if (!st) {
		fprintf(stderr, PROG ": %s: cannot set up n = %ld: %s\n", pb->name, x->n,
			strerror(errno));
		return 1;
	}
	pb->reset(st);
	pb->serial(st);
	x->ref = pb->checksum(st);
	if (pb->verify && pb->verify(st, why, sizeof(why))) {
		fprintf(stderr, PROG ": %s: wrong serial result: %s\n", pb->name, why);
		pb->teardown(st);
		return 1;
	}
	pb->teardown(st);
	if (!o->json) {
		printf("\n%s (n = %ld): %d copies x %d threads\n", pb->name, x->n, o->corun,
		       x->threads);
		printf("  %-7s %-11s %13s %15s %15s %9s %8s   %s\n", "noise", "runtime",
		       "t1_s", "solo_s", "corun_s", "co/sum", "solo/t1", "verified");
	}
	for (size_t i = 0; i < NROWS; i++)
		memset(&t1[i], 0, sizeof(t1[i]));
	for (int nz = 0; nz < CORUN_NOISES; nz++) {
		int rc;

		if (!(o->noise & (1u << nz)))
			continue;
		if (noise_duty[nz]) {
			rc = noise_start(x->threads - 1, noise_duty[nz]);
			if (rc < 0) {
				fprintf(stderr, PROG ": cannot start the %s hog: %s\n",
					corun_noise[nz], strerror(-rc));
				return 1;
			}
		}
		for (size_t i = 0; i < NROWS; i++) {
			const struct corun_row *r = &rows[i];
			struct group solo, co;

			if (!row_selected(o, r))
				continue;
			/* one worker, quiet: the floor of solo/t1 */
			if (!noise_duty[nz])
				best_group(x, r, 1, 1, &t1[i]);
			best_group(x, r, x->threads, 1, &solo);
			/* a solo run over the timeout: k of them would be too */
			if (solo.status == CELL_OK)
				best_group(x, r, x->threads, o->corun, &co);
			else
				co = solo;
			report_row(x, r, nz, &t1[i], &solo, &co);
			x->errors += solo.status == CELL_ERROR || co.status == CELL_ERROR;
			fflush(stdout);
		}
		noise_stop();
	}
	return 0;
}

int corun_run(const struct options *o, const struct bench *const *programs,
	      int nprograms)
{
	static const char *const defaults[] = { "fib", "loops", "alignment" };
	struct options oo = *o;
	struct corun_ctx x = { .o = &oo };
	double t0 = bench_now();
	char self[PATH_MAX], reps[64];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int failed = 0;

	if (len < 0) {
		fprintf(stderr, PROG ": --corun: cannot find myself: %s\n", strerror(errno));
		return 1;
	}
	self[len] = '\0';
	x.self = self;
	if (!oo.noise)
		oo.noise = (1u << CORUN_NOISES) - 1;
	x.timeout = o->timeout_set ? o->timeout : o->quick ? 2 : 10;
	x.threads = cpu_count();
	x.daemon_dir = find_daemon(&x.daemon_why);
	if (!oo.json) {
		printf(PROG " --corun=%d: %d copies of a program started together, each at %d "
		       "threads (every CPU)\n", oo.corun, oo.corun, x.threads);
		printf("  t1_s: one copy alone at 1 thread (quiet); solo_s: one copy alone; "
		       "corun_s: makespan of %d together\n", oo.corun);
		if (o->repeat_set)
			snprintf(reps, sizeof(reps), "min of %ld run%s", o->repeat,
				 o->repeat > 1 ? "s" : "");
		else if (o->quick)
			snprintf(reps, sizeof(reps), "one run");
		else
			snprintf(reps, sizeof(reps), "min of up to %d runs within %.0f s",
				 CORUN_REPS, CORUN_BUDGET_S);
		printf("  co/sum: corun_s / (%d x solo_s), ideal 1.00; %s; "
		       "noise: hog of noise.h on CPU %d at 50%%/100%% duty\n", oo.corun,
		       reps, x.threads - 1);
		printf("  xschedd: %s\n", x.daemon_dir ? x.daemon_dir : x.daemon_why);
	}
	for (int i = 0; i < nprograms; i++) {
		const struct bench *b = programs[i];
		long given = b->problem->n_default;
		bool want = false;

		for (int k = 0; k < oo.nonly; k++)
			if (oo.only[k] == b) {
				want = true;
				given = oo.n[k];
			}
		if (!oo.only_set) {
			want = false;
			for (size_t k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++)
				want |= !strcmp(defaults[k], b->problem->name);
		}
		if (!want)
			continue;
		x.b = b;
		x.n = corun_n(&oo, b, given);
		failed |= corun_program(&x);
	}
	if (!oo.json)
		printf("\n(%.0f s in all)\n", bench_now() - t0);
	return failed || x.errors;
}

/* ---- the child side: xsched-bench --corun-child xsched|tbb ---- */

int corun_child(const struct options *o)
{
	const struct bench *b = o->only[0];
	const struct bench_problem *pb = b->problem;
	bool xsched = !strcmp(o->corun_child, "xsched");
	struct xs_runtime *rt = NULL;
	struct bench_tbb *tbb = NULL;
	int threads = o->threads[o->nthreads - 1], rc;
	double t0, t1;
	void *st;

	if (o->nonly != 1 || (!xsched && strcmp(o->corun_child, "tbb"))) {
		fprintf(stderr, PROG ": --corun-child xsched|tbb needs one program (--only)\n");
		return 2;
	}
	if ((xsched && !b->xsched && !b->xsched_rt) || (!xsched && !b->tbb))
		return EXIT_SKIP;
	st = pb->setup(o->n[0]);
	if (!st) {
		fprintf(stderr, PROG ": %s: setup(%ld): %s\n", pb->name, o->n[0], strerror(errno));
		return 1;
	}
	pb->reset(st);
	if (xsched)
		rt = xs_runtime_create((unsigned int)threads);
	else
		tbb = bench_tbb_open(threads);
	if (!rt && !tbb) {
		fprintf(stderr, PROG ": cannot start %s with %d threads: %s\n", o->corun_child,
			threads, strerror(errno));
		return 1;
	}
	printf("{\"ready\":1}\n");
	fflush(stdout);
	if (corun_wait_go() < 0) {
		fprintf(stderr, PROG ": reading the go signal: %s\n", strerror(errno));
		return 1;
	}
	t0 = bench_now();
	if (xsched) {
		__atomic_store_n(&bench_xs_error, 0, __ATOMIC_RELAXED);
		rc = b->xsched_rt ? b->xsched_rt(rt, st) : xs_runtime_run(rt, b->xsched, st);
		if (!rc)
			rc = __atomic_load_n(&bench_xs_error, __ATOMIC_RELAXED);
	} else {
		rc = bench_tbb_run(tbb, b->tbb, st);
	}
	t1 = bench_now();
	if (rc) {
		fprintf(stderr, PROG ": the run failed: %s\n", strerror(-rc));
		return 1;
	}
	corun_print_result(pb->name, threads, o->n[0], t0, t1,
			   (unsigned long long)pb->checksum(st));
	printf("}\n");
	if (rt)
		xs_runtime_destroy(rt);
	if (tbb)
		bench_tbb_close(tbb);
	pb->teardown(st);
	return 0;
}
