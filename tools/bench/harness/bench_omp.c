/* SPDX-License-Identifier: MIT */
/*
 * bench_omp.c - xsched-bench-omp: the OpenMP task versions, one program at
 * one thread count per invocation. xsched-bench runs it as a child: as is
 * (GNU libgomp), with LLVM's libomp in LD_PRELOAD (libomp also implements
 * the GOMP_* ABI), and with xsched's drop-in libxsched-gomp.so.1 in
 * LD_PRELOAD, and reads back one JSON line per run:
 *
 *   {"bench":"fib","threads":2,"n":35,"rep":0,"time_s":0.123456789,
 *    "checksum":"00000000005c6a55","lib":"/usr/lib/.../libgomp.so.1"}
 *
 * with "nodes":N after the checksum for a program that counts the search
 * nodes it explored (bench_problem.nodes). With --warmup W, W untimed
 * runs come first, each with "warmup":k in place of "rep":k: the parent
 * checks their checksums and restarts its --timeout clock at each line,
 * but records no time.
 *
 * "lib" is the library that GOMP_parallel was bound to, so the parent can
 * check that a preload took effect; when any other GOMP_* or omp_* import
 * was bound elsewhere, "stray" names the first (omp_binding.c). The
 * checksum is checked by the parent against its serial run.
 *
 * With --micro OP it times OP --iters times per run instead (micro_omp.c):
 *
 *   {"micro":"barrier","threads":2,"iters":100000,"rep":0,
 *    "time_s":0.012345678,"lib":"..."}
 *
 * With --corun it is one copy of xsched-bench --corun: ready line, wait
 * for standard input to close, one run (corun.h).
 *
 * Exit status: 0, 1 on failure, 2 on bad usage, 4 when this program has no
 * OpenMP version of the one asked for.
 */
#include <getopt.h>
#include <omp.h>
#include <stdbool.h>
#include <string.h>
#include "bench.h"
#include "../../common/number.h"
#include "../../version.h"
#include "corun.h"
#include "../programs/micro/micro.h"
#include "omp_binding.h"

#define BENCH(name) extern const struct bench_omp bench_omp_##name;
#include "bench-list.h"
#undef BENCH

static const struct bench_omp *const programs[] = {
#define BENCH(name) &bench_omp_##name,
#include "bench-list.h"
#undef BENCH
};

#define NPROGRAMS (sizeof(programs) / sizeof(programs[0]))
#define PROG "xsched-bench-omp"
#define EXIT_SKIP 4

static const struct micro {
	const char *name;
	double (*fn)(long iters);
} micros[] = {
#define MICRO(name, doc) { #name, micro_##name },
	MICRO_OPS
#undef MICRO
};

#define NMICROS (sizeof(micros) / sizeof(micros[0]))

/* ,"lib":"...", and ,"stray":"..." when an import went elsewhere. */
static void print_libs(const char *lib, const char *stray)
{
	printf(",\"lib\":\"%s\"", lib);
	if (stray[0])
		printf(",\"stray\":\"%s\"", stray);
	printf("}\n");
	fflush(stdout);
}

static int run_micro(const char *name, long threads, long iters, long repeat,
		     long budget, const char *lib, const char *stray)
{
	const struct micro *m = NULL;
	double spent = 0;

	for (size_t i = 0; i < NMICROS; i++)
		if (!strcmp(micros[i].name, name))
			m = &micros[i];
	if (!m) {
		fprintf(stderr, PROG ": --micro: no micro-benchmark '%s'; there are",
			name);
		for (size_t i = 0; i < NMICROS; i++)
			fprintf(stderr, " %s", micros[i].name);
		fprintf(stderr, "\n");
		return 2;
	}
	m->fn(iters < 1000 ? iters : 1000);	/* warm up */
	for (long rep = 0; rep < repeat && (rep == 0 || spent < budget); rep++) {
		double t = m->fn(iters);

		spent += t;
		printf("{\"micro\":\"%s\",\"threads\":%ld,\"iters\":%ld,"
		       "\"rep\":%ld,\"time_s\":%.9f", name, threads, iters, rep, t);
		print_libs(lib, stray);
	}
	return 0;
}

/* One run of @b, reset first, and its line, numbered @k under @key ("rep"
 * or "warmup"). Returns its time in seconds. */
static double run_once(const struct bench_omp *b, void *st, long threads, long n,
		       const char *key, long k, const char *lib, const char *stray)
{
	const struct bench_problem *pb = b->problem;
	double t0, t;

	if (pb->reset)
		pb->reset(st);
	t0 = bench_now();
	b->omp(st);
	t = bench_now() - t0;
	printf("{\"bench\":\"%s\",\"threads\":%ld,\"n\":%ld,\"%s\":%ld,"
	       "\"time_s\":%.9f,\"checksum\":\"%016llx\"",
	       pb->name, threads, n, key, k, t,
	       (unsigned long long)pb->checksum(st));
	if (pb->nodes)
		printf(",\"nodes\":%llu", (unsigned long long)pb->nodes(st));
	print_libs(lib, stray);
	return t;
}

static int team_size(void)
{
	int n = 0;

#pragma omp parallel
#pragma omp single
	n = omp_get_num_threads();
	return n;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --only NAME [--n N] [--threads P] [--repeat R] [--budget S]\n"
		"       " PROG "        [--warmup W]\n"
		"       " PROG " --only NAME --corun [--n N] [--threads P]\n"
		"       " PROG " --micro OP [--iters K] [--threads P] [--repeat R] [--budget S]\n"
		"       " PROG " --list | --help | --version\n"
		"Runs the OpenMP version of one benchmark, or one micro-benchmark\n"
		"(OP: parallel, barrier, taskwait, undeferred, included); xsched-bench\n"
		"runs this.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "only", required_argument, NULL, 'o' },
		{ "n", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "budget", required_argument, NULL, 'b' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "micro", required_argument, NULL, 'm' },
		{ "iters", required_argument, NULL, 'i' },
		{ "list", no_argument, NULL, 'l' },
		{ "corun", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const struct bench_omp *b = NULL;
	const struct bench_problem *pb;
	const char *only = NULL, *n_arg = NULL, *micro = NULL;
	long n, threads = 1, repeat = 5, budget = 10, iters = 100000, warmup = 0;
	double spent = 0;
	bool corun = false, dynamic;
	char stray[512];
	const char *lib;
	void *st;
	int c;

	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			only = optarg;
			break;
		case 'n':
			n_arg = optarg;
			break;
		case 't':
			if (tool_parse_long(PROG, "--threads", optarg, 1, 4096, &threads))
				return 2;
			break;
		case 'r':
			if (tool_parse_long(PROG, "--repeat", optarg, 1, 1000, &repeat))
				return 2;
			break;
		case 'b':
			if (tool_parse_long(PROG, "--budget", optarg, 0, 86400, &budget))
				return 2;
			break;
		case 'w':
			if (tool_parse_long(PROG, "--warmup", optarg, 0, 100, &warmup))
				return 2;
			break;
		case 'm':
			micro = optarg;
			break;
		case 'i':
			if (tool_parse_long(PROG, "--iters", optarg, 1, 100000000, &iters))
				return 2;
			break;
		case 'c':
			corun = true;
			break;
		case 'l':
			for (size_t i = 0; i < NPROGRAMS; i++)
				printf("%s\n", programs[i]->problem->name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			tool_version(PROG);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!only == !micro || optind < argc) {
		usage(stderr);
		return 2;
	}
	/* A co-run copy under OMP_DYNAMIC=true (xsched-bench --corun's -dyn
	 * rows) keeps dyn-var: its teams may be smaller than asked, which is
	 * what those rows measure. Everywhere else the team is the request. */
	dynamic = corun && getenv("OMP_DYNAMIC") && omp_get_dynamic();
	omp_set_dynamic(dynamic);
	omp_set_num_threads((int)threads);
	/* The first region also starts the runtime (and, under dyn-var with
	 * xschedd, the share reader's one-tick wait): never timed. */
	if (team_size() != threads && !dynamic) {
		fprintf(stderr, PROG ": asked for %ld threads, the team has %d\n",
			threads, team_size());
		return 1;
	}
	lib = omp_library();
	if (omp_stray(lib, stray, sizeof(stray)) < 0) {
		fprintf(stderr, PROG ": cannot check the OpenMP library: %s\n", stray);
		return 1;
	}
	if (micro)
		return run_micro(micro, threads, iters, repeat, budget, lib, stray);
	for (size_t i = 0; i < NPROGRAMS; i++)
		if (!strcmp(programs[i]->problem->name, only))
			b = programs[i];
	if (!b) {
		fprintf(stderr, PROG ": --only: no OpenMP version of '%s'\n", only);
		return EXIT_SKIP;
	}
	pb = b->problem;
	n = pb->n_default;
	if (n_arg && tool_parse_long(PROG, "--n", n_arg, pb->n_min, pb->n_max, &n))
		return 2;

	st = pb->setup(n);
	if (!st) {
		fprintf(stderr, PROG ": %s: setup(%ld): %s\n", pb->name, n,
			strerror(errno));
		return 1;
	}
	if (corun) {
		double t0, t1;

		pb->reset(st);
		printf("{\"ready\":1");
		print_libs(lib, stray);
		if (corun_wait_go() < 0) {
			fprintf(stderr, PROG ": --corun: reading the go signal: %s\n",
				strerror(errno));
			return 1;
		}
		t0 = bench_now();
		b->omp(st);
		t1 = bench_now();
		corun_print_result(pb->name, threads, n, t0, t1,
				   (unsigned long long)pb->checksum(st));
		print_libs(lib, stray);
		pb->teardown(st);
		return 0;
	}
	/* Untimed runs first (--warmup): what only a process's first runs pay
	 * - the heap growing to its size while glibc's mmap and trim
	 * thresholds settle (strassen), first touches - is not the runtime's
	 * steady state, and how much of it there is depends on the rest of
	 * the process. */
	for (long k = 0; k < warmup; k++)
		run_once(b, st, threads, n, "warmup", k, lib, stray);
	for (long rep = 0; rep < repeat && (rep == 0 || spent < budget); rep++)
		spent += run_once(b, st, threads, n, "rep", rep, lib, stray);
	pb->teardown(st);
	return 0;
}
