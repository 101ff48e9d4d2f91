/* SPDX-License-Identifier: MIT */
/*
 * bench.c - xsched-bench: serial C, xsched, oneTBB, GNU libgomp, LLVM
 * libomp and xgomp (xsched's libgomp drop-in, libxsched-gomp.so.1) side by
 * side on the same task programs, in one run.
 *
 * For each program: set up its input, run it serially (the reference
 * checksum and the floor), then for each runtime and each thread count
 * (default 1..nproc) run it up to --repeat times. Every run is checked
 * against the serial result. See report.c for the output and README.md for
 * how to add a program. --dlb measures xsched once per load-balancing
 * strategy (xsched.c); --sweep runs the task-size x steal-size study
 * instead of the programs (sweep.c); --micro the OpenMP runtime overheads
 * (micro.c).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "driver.h"
#include "../../common/number.h"
#include "../../version.h"

#define BENCH(name) extern const struct bench bench_##name;
#include "bench-list.h"
#undef BENCH

static const struct bench *const programs[] = {
#define BENCH(name) &bench_##name,
#include "bench-list.h"
#undef BENCH
};

#define NPROGRAMS ((int)(sizeof(programs) / sizeof(programs[0])))

/* Progress lines (progress_begin()): off, kept, or erased once done. */
enum progress_mode { PROGRESS_OFF, PROGRESS_LINES, PROGRESS_TRANSIENT };

static struct {
	enum progress_mode mode;	/* PROGRESS_LINES after --progress */
	int done, total;		/* measurement groups */
} progress;

static int cpu_count(void)
{
	cpu_set_t mask;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&mask);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options]\n"
"  --only LIST       programs to run, comma-separated (default: all; see --list)\n"
"  --runtime LIST    runtimes besides serial: xsched,tbb,libgomp,libomp,xgomp\n"
"                    (default: all)\n"
"  --threads LIST    thread counts, e.g. 1,2,4 or 1-8 (default: 1 to the CPUs we may use)\n"
"  --repeat R        runs per cell, min and median reported (default 5, 1..1000)\n"
"  --budget S        stop a cell's runs once they took S seconds (default 10)\n"
"  --rounds K        OpenMP cells: K child processes of up to R runs each, the\n"
"                    OpenMP runtimes taking turns (default 1, 1..100)\n"
"  --warmup W        OpenMP cells: W untimed runs first in every child process\n"
"                    (default 1, 0..100)\n"
"  --timeout S       kill an OpenMP run after S seconds: cell \"timeout\" (default 60)\n"
"  --n N             size of every selected program, or NAME=N[,NAME=N...]\n"
"  --quick           small sizes, for a smoke run\n"
"  --dlb LIST        xsched once per strategy: slb,ws,rp,auto (default: XSCHED_DLB's)\n"
"  --sweep           task size x steal size under ws and rp, speedup over slb\n"
"  --dgemm           DGEMM: xsched static, dynamic, hybrid vs threaded OpenBLAS,\n"
"                    BLIS; quiet and with a 50%% hog on one CPU (n 1024..4096)\n"
"  --affinity[=LIST] the affinity-graph kernels (SpMV CRS/CCS, SpMM, IRREG, radix)\n"
"                    under static, hybrid and a recorded affinity schedule; LIST:\n"
"                    some of spmv-crs,spmv-ccs,spmm,irreg,radix (default: all)\n"
"  --micro           instead of the programs: ns per empty parallel region,\n"
"                    barrier and task + taskwait under libgomp, libomp, xgomp\n"
"  --iters K         --micro: operations per timed run (default 100000)\n"
"  --corun[=K]       instead of the table: K copies (default 2) of fib, loops,\n"
"                    alignment started together at full width, per runtime,\n"
"                    with and without xschedd; makespan / sum of solo runs\n"
"  --noise LIST      --corun: quiet,hog50,hog100 (default: all three)\n"
"  --json            one JSON object per cell and line instead of the table\n"
"  --progress        a line on stderr as each cell starts (default: only when\n"
"                    stderr is a terminal, erased once the cell's row is out)\n"
"  -V, --version     the xsched version\n"
"  --list            list the programs and their default sizes\n"
"  --omp PATH        xsched-bench-omp (default: next to this program)\n"
"  --libomp PATH     LLVM libomp to preload (default: found under /usr/lib)\n"
"  --xgomp PATH      the libgomp drop-in to preload (default:\n"
"                    libxsched-gomp.so.1 next to this program)\n"
"Exit status: 0, 1 if a run of serial, xsched or the drop-in failed or gave a\n"
"wrong result (a failed oneTBB, libgomp or libomp cell is reported, not counted),\n"
"2 on bad usage.\n");
}

static int program_index(const char *name, size_t len)
{
	for (int i = 0; i < NPROGRAMS; i++)
		if (strlen(programs[i]->problem->name) == len &&
		    !strncmp(programs[i]->problem->name, name, len))
			return i;
	return -1;
}

static void list_programs(FILE *f)
{
	for (int i = 0; i < NPROGRAMS; i++) {
		const struct bench_problem *pb = programs[i]->problem;

		fprintf(f, "  %-16s n %ld (quick %ld, %ld..%ld)  %s\n", pb->name,
			pb->n_default, pb->n_quick, pb->n_min, pb->n_max,
			pb->doc);
	}
}

/* --only a,b: bit i of *sel for programs[i]. */
static int parse_only(const char *arg, unsigned *sel)
{
	*sel = 0;
	for (const char *p = arg; *p;) {
		size_t len = strcspn(p, ",");
		int i = program_index(p, len);

		if (i < 0) {
			fprintf(stderr, PROG ": --only: no program '%.*s'; there are:\n",
				(int)len, p);
			list_programs(stderr);
			return -EINVAL;
		}
		*sel |= 1u << i;
		p += len + (p[len] == ',');
	}
	return *sel ? 0 : -EINVAL;
}

static int parse_runtimes(const char *arg, unsigned *sel)
{
	*sel = 1;	/* serial: the reference, always */
	for (const char *p = arg; *p;) {
		size_t len = strcspn(p, ",");
		int i;

		for (i = 1; i < nruntimes; i++)
			if (strlen(runtimes[i].name) == len &&
			    !strncmp(runtimes[i].name, p, len))
				break;
		if (i == nruntimes) {
			fprintf(stderr, PROG ": --runtime: no runtime '%.*s'; "
				"there are xsched, tbb, libgomp, libomp, xgomp\n",
				(int)len, p);
			return -EINVAL;
		}
		*sel |= 1u << i;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* --noise quiet,hog100: bit i for corun_noise[i]. */
static int parse_noise(const char *arg, unsigned *sel)
{
	*sel = 0;
	for (const char *p = arg; *p;) {
		size_t len = strcspn(p, ",");
		int i;

		for (i = 0; i < CORUN_NOISES; i++)
			if (strlen(corun_noise[i]) == len && !strncmp(corun_noise[i], p, len))
				break;
		if (i == CORUN_NOISES) {
			fprintf(stderr, PROG ": --noise: no condition '%.*s'; there are "
				"quiet, hog50 and hog100\n", (int)len, p);
			return -EINVAL;
		}
		*sel |= 1u << i;
		p += len + (p[len] == ',');
	}
	if (!*sel) {
		fprintf(stderr, PROG ": --noise: '%s' names no condition\n", arg);
		return -EINVAL;
	}
	return 0;
}

/* --dlb slb,ws: strategies in the order given, each once. */
static int parse_dlb(const char *arg, struct options *o)
{
	o->ndlb = 0;
	for (const char *p = arg; *p;) {
		size_t len = strcspn(p, ",");
		int i, k;

		for (i = 0; i < MAX_DLB; i++)
			if (strlen(dlb_names[i]) == len &&
			    !strncmp(dlb_names[i], p, len))
				break;
		for (k = 0; i < MAX_DLB && k < o->ndlb; k++)
			if (o->dlb[k] == i)
				break;
		if (i == MAX_DLB || k < o->ndlb) {
			fprintf(stderr, PROG ": --dlb: '%.*s' is %s; the strategies "
				"are slb, ws, rp and auto, each at most once\n",
				(int)len, p, i == MAX_DLB ? "not a strategy" :
				"given twice");
			return -EINVAL;
		}
		o->dlb[o->ndlb++] = i;
		p += len + (p[len] == ',');
	}
	if (!o->ndlb) {
		fprintf(stderr, PROG ": --dlb: '%s' names no strategy\n", arg);
		return -EINVAL;
	}
	return 0;
}

/* --threads 1,2,4-8 */
static int parse_threads(const char *arg, struct options *o)
{
	char *copy = strdup(arg), *save = NULL;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	o->nthreads = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		long lo, hi;

		if (dash)
			*dash = '\0';
		rc = tool_parse_long(PROG, "--threads", tok, 1, MAX_THREADS, &lo);
		hi = lo;
		if (!rc && dash)
			rc = tool_parse_long(PROG, "--threads", dash + 1, lo,
					     MAX_THREADS, &hi);
		for (long t = lo; !rc && t <= hi; t++) {
			if (o->nthreads == MAX_THREAD_COUNTS) {
				fprintf(stderr, PROG ": --threads: more than %d counts\n",
					MAX_THREAD_COUNTS);
				rc = -EINVAL;
				break;
			}
			o->threads[o->nthreads++] = (int)t;
		}
	}
	free(copy);
	if (!rc && !o->nthreads) {
		fprintf(stderr, PROG ": --threads: '%s' names no thread count\n", arg);
		rc = -EINVAL;
	}
	return rc;
}

/* --n N or --n NAME=N,...: sizes of the selected programs. */
static int parse_n(const char *arg, struct options *o)
{
	char *copy = strdup(arg), *save = NULL;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int k;

		for (k = 0; k < o->nonly; k++) {
			const struct bench_problem *pb = o->only[k]->problem;
			char what[64];

			if (eq && (strlen(pb->name) != (size_t)(eq - tok) ||
				   strncmp(pb->name, tok, (size_t)(eq - tok))))
				continue;
			snprintf(what, sizeof(what), "--n for %s", pb->name);
			rc = tool_parse_long(PROG, what, eq ? eq + 1 : tok,
					     pb->n_min, pb->n_max, &o->n[k]);
			if (rc || eq)
				break;
		}
		if (eq && k == o->nonly) {
			fprintf(stderr, PROG ": --n: '%.*s' is not a selected program\n",
				(int)(eq - tok), tok);
			rc = -EINVAL;
		}
	}
	free(copy);
	return rc;
}

static char *default_omp_path(void)
{
	static char path[PATH_MAX];
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len < 0)
		return (char *)"xsched-bench-omp";
	self[len] = '\0';
	snprintf(path, sizeof(path), "%s/xsched-bench-omp", dirname(self));
	return path;
}

static int parse_options(int argc, char **argv, struct options *o, int ncpus)
{
	static const struct option opts[] = {
		{ "only", required_argument, NULL, 'o' },
		{ "runtime", required_argument, NULL, 'R' },
		{ "threads", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "budget", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'k' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "n", required_argument, NULL, 'n' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "dlb", required_argument, NULL, 'D' },
		{ "sweep", no_argument, NULL, 'S' },
		{ "dgemm", no_argument, NULL, 'G' },
		{ "affinity", optional_argument, NULL, 'A' },
		{ "list", no_argument, NULL, 'l' },
		{ "omp", required_argument, NULL, 'O' },
		{ "libomp", required_argument, NULL, 'L' },
		{ "xgomp", required_argument, NULL, 'X' },
		{ "micro", no_argument, NULL, 'm' },
		{ "iters", required_argument, NULL, 'i' },
		{ "progress", no_argument, NULL, 'P' },
		{ "version", no_argument, NULL, 'V' },
		{ "corun", optional_argument, NULL, 'C' },
		{ "noise", required_argument, NULL, 'N' },
		{ "corun-child", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *n_arg = NULL;
	unsigned only = (1u << NPROGRAMS) - 1;
	bool quick = false;
	long v;
	int c;

	o->runtimes = (1u << nruntimes) - 1;
	o->repeat = 5;
	o->budget = 10;
	o->rounds = 1;
	o->warmup = 1;
	o->timeout = 60;
	o->iters = 100000;
	o->omp_path = default_omp_path();
	o->nthreads = 0;
	for (int t = 1; t <= ncpus && t <= MAX_THREAD_COUNTS; t++)
		o->threads[o->nthreads++] = t;
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (parse_only(optarg, &only))
				return 2;
			o->only_set = true;
			break;
		case 'R':
			if (parse_runtimes(optarg, &o->runtimes))
				return 2;
			break;
		case 't':
			if (parse_threads(optarg, o))
				return 2;
			break;
		case 'r':
			if (tool_parse_long(PROG, "--repeat", optarg, 1, 1000, &o->repeat))
				return 2;
			o->repeat_set = true;
			break;
		case 'b':
			if (tool_parse_long(PROG, "--budget", optarg, 0, 86400, &v))
				return 2;
			o->budget = (double)v;
			break;
		case 'k':
			if (tool_parse_long(PROG, "--rounds", optarg, 1, 100, &o->rounds))
				return 2;
			break;
		case 'W':
			if (tool_parse_long(PROG, "--warmup", optarg, 0, 100, &o->warmup))
				return 2;
			break;
		case 'T':
			if (tool_parse_long(PROG, "--timeout", optarg, 1, 86400, &v))
				return 2;
			o->timeout = (double)v;
			o->timeout_set = true;
			break;
		case 'n':
			n_arg = optarg;
			o->n_set = true;
			break;
		case 'q':
			quick = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'D':
			if (parse_dlb(optarg, o))
				return 2;
			break;
		case 'S':
			o->sweep = true;
			break;
		case 'G':
			o->dgemm = true;
			break;
		case 'A':
			o->affinity = true;
			o->affinity_only = optarg;
			break;
		case 'l':
			list_programs(stdout);
			exit(0);
		case 'O':
			o->omp_path = optarg;
			break;
		case 'L':
			if (access(optarg, R_OK)) {
				fprintf(stderr, PROG ": --libomp: %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			o->libomp_path = optarg;
			break;
		case 'X':
			if (access(optarg, R_OK)) {
				fprintf(stderr, PROG ": --xgomp: %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			o->xgomp_path = optarg;
			break;
		case 'm':
			o->micro = true;
			break;
		case 'i':
			if (tool_parse_long(PROG, "--iters", optarg, 1, 100000000,
					    &o->iters))
				return 2;
			break;
		case 'P':
			progress.mode = PROGRESS_LINES;
			break;
		case 'V':
			tool_version(PROG);
			exit(0);
		case 'C':
			o->corun = 2;
			if (optarg && tool_parse_long(PROG, "--corun", optarg, 1, 64, &v))
				return 2;
			if (optarg)
				o->corun = (int)v;
			break;
		case 'N':
			if (parse_noise(optarg, &o->noise))
				return 2;
			break;
		case 'K':
			o->corun_child = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	o->only = calloc(NPROGRAMS, sizeof(*o->only));
	o->n = calloc(NPROGRAMS, sizeof(*o->n));
	if (!o->only || !o->n)
		return 1;
	for (int i = 0; i < NPROGRAMS; i++) {
		if (!(only & (1u << i)))
			continue;
		o->n[o->nonly] = quick ? programs[i]->problem->n_quick :
					 programs[i]->problem->n_default;
		o->only[o->nonly++] = programs[i];
	}
	if (n_arg && parse_n(n_arg, o))
		return 2;
	if (!o->libomp_path)
		o->libomp_path = find_libomp(&o->libomp_why);
	if (!o->xgomp_path)
		o->xgomp_path = find_xgomp(&o->xgomp_why);
	o->quick = quick;
	return 0;
}

/* libgomp, libomp, xgomp: measured in xsched-bench-omp children. */
static bool rt_is_omp(const struct runtime *rt)
{
	return rt->measure == measure_libgomp || rt->measure == measure_libomp ||
	       rt->measure == measure_xgomp;
}

/* 1 if @c failed as a run of ours (serial, xsched, the drop-in): the exit
 * status counts those. A peer's failed cell (libomp crashes in
 * floorplan-if0) shows ERROR in its row and is summed once at the end: a
 * fact about that runtime, not a failure of the run. */
static int cell_failed(const struct cell *c)
{
	return c->status == CELL_ERROR && !c->rt->peer;
}

/*
 * Progress on stderr, one line per cell as it starts, so that a long cell
 * does not look like a hang. With stdout and stderr both on a terminal the
 * line is erased before the cell's row is printed, so the table stays
 * whole; with stdout elsewhere (a file, a pipe) the lines stay; with
 * stderr not a terminal there are none unless --progress.
 */
static void progress_setup(const struct options *o)
{
	int rts = 0;

	/* an OpenMP cell is started once per round (--rounds) */
	for (int r = 1; r < nruntimes; r++)
		if (o->runtimes & (1u << r))
			rts += rt_is_omp(&runtimes[r]) ? (int)o->rounds : 1;
	progress.total = o->nonly * (1 + rts * o->nthreads);
	if (progress.mode != PROGRESS_OFF)
		return;
	if (isatty(STDERR_FILENO))
		progress.mode = isatty(STDOUT_FILENO) ? PROGRESS_TRANSIENT : PROGRESS_LINES;
}

static void progress_begin(const struct program_run *x, const struct runtime *rt,
			   int threads)
{
	if (progress.mode == PROGRESS_OFF)
		return;
	progress.done++;
	fflush(stdout);
	fprintf(stderr, PROG ": [%d/%d] %s n=%ld %s, %d thread%s...%s",
		progress.done, progress.total, x->b->problem->name, x->n, rt->name,
		threads, threads == 1 ? "" : "s",
		progress.mode == PROGRESS_TRANSIENT ? "" : "\n");
}

static void progress_end(void)
{
	if (progress.mode == PROGRESS_TRANSIENT)
		fputs("\r\033[K", stderr);
}

/*
 * Measure the cells of one runtime at one thread count: one cell, or for
 * xsched with --dlb one per strategy (measured together, see xsched.c).
 * Returns the first; *ngroup says how many.
 */
static struct cell *run_cells(const struct options *o, struct program_run *x,
			      struct cell *cells, int *ncells,
			      const struct runtime *rt, int threads, int *ngroup)
{
	struct cell *first = &cells[*ncells];
	int n = rt->measure_group && o->ndlb ? o->ndlb : 1;

	for (int k = 0; k < n; k++) {
		struct cell *c = &cells[(*ncells)++];

		cell_init(c, rt, x, threads, o->repeat);
		if (o->ndlb && rt->measure_group) {
			c->want.strategy = o->dlb[k];
			c->named = true;
		}
	}
	progress_begin(x, rt, threads);
	if (rt->measure_group)
		rt->measure_group(first, n, x, o);
	else if (first->status == CELL_OK)
		rt->measure(first, x, o);
	progress_end();
	for (int k = 0; k < n; k++)
		cell_finish(&first[k]);
	*ngroup = n;
	return first;
}

static const struct cell *find_t1(const struct cell *cells, int ncells,
				  const struct cell *c)
{
	for (int i = 0; i < ncells; i++)
		if (cells[i].b == c->b && cells[i].rt == c->rt &&
		    cells[i].want.strategy == c->want.strategy &&
		    cells[i].threads == 1)
			return &cells[i];
	return NULL;
}

/*
 * --rounds K: the cells of every OpenMP runtime and thread count at once,
 * each a child process per round, the runtimes taking turns, so that a
 * slow spell of the machine, or the luck of one process (where the
 * allocator and the loader put things), falls on each runtime alike
 * rather than on whichever ran then - as xsched's strategies take turns
 * run by run (xsched.c). A round goes thread count by thread count, and
 * round k starts at the k-th runtime (libgomp 1T, libomp 1T, xgomp 1T,
 * libgomp 2T, ..., then libomp 1T, xgomp 1T, libgomp 1T, ...): a child
 * runs slower right after a heavy one (after libomp's spinning 2-thread
 * children every runtime's 1-thread fft was about 1.5x slower in median
 * on the shared dev VM), so no runtime may always follow the same one.
 * The cells are reported in the usual order. Returns the errors.
 */
static int run_omp_rounds(const struct options *o, struct program_run *x,
			  struct cell *cells, int *ncells, const struct cell *serial)
{
	struct cell *first = &cells[*ncells];
	int n = 0, nrt = 0, errors = 0;

	for (int r = 1; r < nruntimes; r++) {
		if (!(o->runtimes & (1u << r)) || !rt_is_omp(&runtimes[r]))
			continue;
		for (int t = 0; t < o->nthreads; t++, n++)
			cell_init(&first[n], &runtimes[r], x, o->threads[t],
				  o->repeat * o->rounds);
		nrt++;
	}
	*ncells += n;
	for (long k = 0; k < o->rounds; k++) {
		for (int t = 0; t < o->nthreads; t++) {
			for (int j = 0; j < nrt; j++) {
				/* runtime (k + j) mod nrt, thread count t */
				struct cell *c = &first[(int)((k + j) % nrt) * o->nthreads + t];

				if (c->status != CELL_OK)
					continue;	/* failed or skipped: once is enough */
				progress_begin(x, c->rt, c->threads);
				c->rt->measure(c, x, o);
				progress_end();
			}
		}
	}
	for (int i = 0; i < n; i++) {
		cell_finish(&first[i]);
		report_cell(o, &first[i], serial, find_t1(cells, *ncells, &first[i]));
		errors += cell_failed(&first[i]);
	}
	return errors;
}

/* Serial first (the reference), then every runtime at every count. */
static int run_program(const struct options *o, const struct bench *b, long n,
		       struct cell *cells, int *ncells)
{
	const struct bench_problem *pb = b->problem;
	struct program_run x = { .b = b, .n = n };
	struct cell *serial, *mine = &cells[*ncells];
	char why[256];
	int errors = 0, group;
	bool omp_done = false;

	x.st = pb->setup(n);
	if (!x.st) {
		fprintf(stderr, PROG ": %s: cannot set up n = %ld: %s\n",
			pb->name, n, strerror(errno));
		return 1;
	}
	serial = run_cells(o, &x, cells, ncells, &runtimes[RT_SERIAL], 1,
			   &group);
	if (serial->status == CELL_OK && pb->verify &&
	    pb->verify(x.st, why, sizeof(why)))
		cell_fail(serial, CELL_ERROR, "wrong serial result: %s", why);
	if (serial->status == CELL_OK)
		x.tasks = pb->tasks(x.st);
	report_program(o, &x);
	report_cell(o, serial, serial, NULL);
	if (serial->status != CELL_OK) {
		pb->teardown(x.st);
		return 1;
	}
	for (int r = 1; r < nruntimes; r++) {
		if (!(o->runtimes & (1u << r)))
			continue;
		if (o->rounds > 1 && rt_is_omp(&runtimes[r])) {
			if (!omp_done)
				errors += run_omp_rounds(o, &x, cells, ncells, serial);
			omp_done = true;
			continue;
		}
		for (int t = 0; t < o->nthreads; t++) {
			struct cell *c = run_cells(o, &x, cells, ncells,
						   &runtimes[r], o->threads[t],
						   &group);

			for (int k = 0; k < group; k++) {
				report_cell(o, &c[k], serial,
					    find_t1(cells, *ncells, &c[k]));
				errors += cell_failed(&c[k]);
			}
		}
	}
	report_counters(o, mine, (int)(&cells[*ncells] - mine));
	pb->teardown(x.st);
	return errors > 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int ncpus = cpu_count();
	struct cell *cells;
	int ncells = 0, failed = 0, peer_errors = 0, rc;

	rc = parse_options(argc, argv, &o, ncpus);
	if (rc)
		return rc;
	if (o.corun_child) {
		failed = corun_child(&o);
		goto out;
	}
	if (o.corun) {
		failed = corun_run(&o, programs, NPROGRAMS);
		goto out;
	}
	if (o.sweep) {
		failed = sweep_run(&o);
		goto out;
	}
	if (o.dgemm) {
		failed = dgemm_run(&o);
		goto out;
	}
	if (o.affinity) {
		failed = affinity_run(&o);
		goto out;
	}
	if (o.micro) {
		failed = micro_run(&o);
		goto out;
	}
	/* per program: serial, then each runtime at each count (xsched:
	 * once per strategy of --dlb) */
	cells = calloc((size_t)o.nonly *
		       (1 + (size_t)nruntimes * (size_t)o.nthreads *
			    (size_t)(o.ndlb ? o.ndlb : 1)), sizeof(*cells));
	if (!cells) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	progress_setup(&o);
	report_start(&o, ncpus);
	for (int i = 0; i < o.nonly; i++)
		failed |= run_program(&o, o.only[i], o.n[i], cells, &ncells);
	report_ratios(&o, cells, ncells);
	report_dlb_ratios(&o, cells, ncells);
	for (int i = 0; i < ncells; i++)
		peer_errors += cells[i].status == CELL_ERROR && cells[i].rt->peer;
	if (peer_errors)
		fprintf(stderr, PROG ": %d cell%s of oneTBB, libgomp or libomp failed (ERROR in "
			"their rows): their runtime's failure, not counted in the exit status\n",
			peer_errors, peer_errors == 1 ? "" : "s");
	for (int i = 0; i < ncells; i++)
		free(cells[i].times);
	free(cells);
out:
	free(o.only);
	free(o.n);
	return failed;
}
