// SPDX-License-Identifier: MIT
/*
 * xsched-affinity - affinity-graph schedules from a profiling run.
 *
 *   xsched-affinity record -o GRAPH [--granule G] [--shift S] [--page-mode] -- PROG ARGS
 *   xsched-affinity plan GRAPH -o SCHEDULE [--dense-ratio R] [--workers P] [--force]
 *   xsched-affinity show FILE [--graph GRAPH [--dense-ratio R]]
 *
 * record runs PROG with XSCHED_LOOP_SCHEDULE=affinity and
 * XSCHED_AFFINITY_RECORD=GRAPH: its first such xs_parallel_for() loop runs
 * under the recorder (libxsched/affinity/affinity_record.c) over the data PROG
 * registered with xs_affinity_region_add(). plan builds the affinity graph
 * under DenseRatio and partitions it with METIS along the machine the
 * runtime will see (XSCHED_SYSFS_ROOT, XSCHED_BIND, XSCHED_WORKERS as the
 * runtime reads them). A later run replays the schedule with
 * XSCHED_LOOP_SCHEDULE=affinity XSCHED_AFFINITY_FILE=SCHEDULE.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xsched.h"
#include "ext.h"
#include "common/number.h"
#include "version.h"

#define PROG "xsched-affinity"

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " record -o GRAPH [--granule G] [--shift S] [--page-mode] -- PROG [ARGS...]\n"
"       " PROG " plan GRAPH -o SCHEDULE [--dense-ratio R] [--workers P] [--force]\n"
"       " PROG " show FILE [--graph GRAPH [--dense-ratio R]]\n"
"\n"
"record  run PROG, recording the memory its first XSCHED_LOOP_SCHEDULE=affinity\n"
"        loop touches (regions of xs_affinity_region_add()), per logical thread:\n"
"        --granule G   iterations per logical thread (default: n / 262144, at least 1)\n"
"        --shift S     address granularity, log2 bytes: 3 words (default), 6 lines\n"
"        --page-mode   first access per page and logical thread only (faster)\n"
"plan    partition the affinity graph along this machine (XSCHED_SYSFS_ROOT,\n"
"        XSCHED_BIND, XSCHED_WORKERS as the runtime reads them) with METIS:\n"
"        --dense-ratio R  drop addresses shared by more than R x threads (default 0.9)\n"
"        --workers P      workers of the runs that replay it (default: as the runtime)\n"
"        --force          keep the partition where the plan would choose the static\n"
"                         split (one cache domain, or too little saved between domains)\n"
"show    print a graph's or a schedule's header and summary; with --graph, the\n"
"        schedule's cut on that graph (at --dense-ratio, default 0.9) beside the\n"
"        static split's (a plan from a sampled recording on the full graph)\n"
"Replay: XSCHED_LOOP_SCHEDULE=affinity XSCHED_AFFINITY_FILE=SCHEDULE PROG ARGS\n"
"Exit status: 0, 1 on failure, 2 on bad usage.\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "granule", required_argument, NULL, 'g' },
		{ "shift", required_argument, NULL, 's' },
		{ "page-mode", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL;
	struct xs_aff_hgraph h;
	double t0;
	long n;
	int c, status;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'g':
			if (tool_parse_long(PROG, "--granule", optarg, 1, 1L << 30, &n))
				return 2;
			setenv("XSCHED_AFFINITY_GRANULE", optarg, 1);
			break;
		case 's':
			if (tool_parse_long(PROG, "--shift", optarg, 0, 12, &n))
				return 2;
			setenv("XSCHED_AFFINITY_SHIFT", optarg, 1);
			break;
		case 'p':
			setenv("XSCHED_AFFINITY_STEP", "0", 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || optind >= argc) {
		fprintf(stderr, PROG " record: %s\n", !out ? "-o GRAPH is required" :
			"no program to run (record -o GRAPH -- PROG ARGS)");
		return 2;
	}
	unlink(out);
	setenv("XSCHED_AFFINITY_RECORD", out, 1);
	setenv("XSCHED_LOOP_SCHEDULE", "affinity", 1);
	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror(PROG ": fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, PROG ": %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror(PROG ": waitpid");
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, PROG ": %s %s %d; no graph kept\n", argv[optind],
			WIFEXITED(status) ? "exited with" : "died of signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		unlink(out);
		return 1;
	}
	if (access(out, F_OK)) {
		fprintf(stderr, PROG ": %s ran no XSCHED_LOOP_SCHEDULE=affinity loop over "
			"registered regions: no graph written to %s\n", argv[optind], out);
		return 1;
	}
	if (xs_aff_hgraph_read(out, &h))
		return 1;
	printf("%s: %llu iterations, %u logical threads (granule %llu), %llu accesses, "
	       "%llu addresses, %llu shared by >= 2 threads; recorded loop %.3f s, whole run "
	       "%.3f s\n", out, (unsigned long long)h.n, h.nthreads,
	       (unsigned long long)h.granule, (unsigned long long)h.accesses,
	       (unsigned long long)h.naddrs, (unsigned long long)h.nedges, h.seconds,
	       now() - t0);
	xs_aff_hgraph_free(&h);
	return 0;
}

static int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "dense-ratio", required_argument, NULL, 'd' },
		{ "workers", required_argument, NULL, 'w' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct xs_aff_plan_cfg cfg = { 0 };
	const char *out = NULL, *in;
	double ratio = 0.9;
	uint32_t workers = 0;
	long n;
	struct xs_options opt;
	struct xs_topology *topo = NULL;
	struct xs_aff_hgraph h = { 0 };
	struct xs_aff_graph g = { 0 };
	struct xs_aff_machine mach = { 0 };
	struct xs_affinity_map map = { 0 };
	struct xs_aff_plan_stats st;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'd':
			if (tool_parse_double(PROG, "--dense-ratio", optarg, 0, 1, &ratio))
				return 2;
			break;
		case 'w':
			if (tool_parse_long(PROG, "--workers", optarg, 1, 1024, &n))
				return 2;
			workers = (uint32_t)n;
			break;
		case 'f':
			cfg.force = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || optind != argc - 1) {
		fprintf(stderr, PROG " plan: expected plan GRAPH -o SCHEDULE\n");
		return 2;
	}
	in = argv[optind];
	if (xs_options_load(&opt) < 0)
		return 2;
	topo = xs_topology_load(opt.sysfs_root[0] ? opt.sysfs_root : NULL);
	if (!topo)
		return 1;
	if (!workers)
		workers = opt.workers ? (uint32_t)opt.workers : xs_affinity_cpus();
	if (xs_aff_hgraph_read(in, &h))
		goto out;
	if (xs_aff_machine_from_topology(topo, (int)opt.bind, workers, &mach)) {
		fprintf(stderr, PROG ": cannot place %u workers on %s\n", workers, topo->source);
		goto out;
	}
	if (xs_aff_graph_build(&h, ratio, 1ull << 31, &g))
		goto out;
	if (xs_aff_plan(&g, &mach, h.n, h.granule, &cfg, &map, &st))
		goto out;
	if (xs_affinity_map_write(out, &map))
		goto out;
	printf("%s: %u logical threads of %s over %s (%s, %u cache domains): graph of %llu "
	       "edges (%llu addresses pruned at DenseRatio %g); cut between workers %.1f%%, "
	       "LLCs %.1f%%, nodes %.1f%% of the edge weight; METIS %.3f s\n", out, map.nthreads,
	       in, mach.desc, topo->source, st.domains, (unsigned long long)g.ne / 2,
	       (unsigned long long)g.pruned, ratio,
	       st.total ? 100.0 * (double)st.cut / (double)st.total : 0.0,
	       st.total ? 100.0 * (double)st.cut_llc / (double)st.total : 0.0,
	       st.total ? 100.0 * (double)st.cut_node / (double)st.total : 0.0, st.seconds);
	printf("  schedule: %s; between cache domains METIS cuts %.1f%%, the static split "
	       "%.1f%%; %u of %u parts breadth-first\n", xs_aff_plan_kind_str(st.kind),
	       st.total ? 100.0 * (double)st.metis_cut_llc / (double)st.total : 0.0,
	       st.total ? 100.0 * (double)st.static_cut_llc / (double)st.total : 0.0,
	       st.parts_bfs, map.nworkers);
	ret = 0;
out:
	xs_affinity_map_free(&map);
	xs_aff_machine_free(&mach);
	xs_aff_graph_free(&g);
	xs_aff_hgraph_free(&h);
	xs_topology_free(topo);
	return ret;
}

/* The cut of schedule @m on graph @gpath at @ratio. */
static int show_cut_on(const struct xs_affinity_map *m, const char *gpath, double ratio)
{
	struct xs_aff_hgraph h;
	struct xs_aff_graph g = { 0 };
	uint64_t cut, scut, total;
	int ret = 1;

	if (xs_aff_hgraph_read(gpath, &h))
		return 1;
	if (h.nthreads != m->nthreads || h.n != m->n) {
		fprintf(stderr, PROG ": %s: a loop of %llu iterations in %u logical threads, the "
			"schedule's is %llu in %u: not the same loop\n", gpath,
			(unsigned long long)h.n, h.nthreads, (unsigned long long)m->n, m->nthreads);
		goto out;
	}
	if (xs_aff_graph_build(&h, ratio, 1ull << 31, &g) ||
	    xs_aff_schedule_cut(&g, m, &cut, &scut, &total))
		goto out;
	printf("  on graph %s (DenseRatio %g, edge weight %llu): this schedule cuts %.1f%% "
	       "between workers, the static split %.1f%%\n", gpath, ratio,
	       (unsigned long long)total, total ? 100.0 * (double)cut / (double)total : 0.0,
	       total ? 100.0 * (double)scut / (double)total : 0.0);
	ret = 0;
out:
	xs_aff_graph_free(&g);
	xs_aff_hgraph_free(&h);
	return ret;
}

static int show_schedule(const char *path, const char *gpath, double ratio)
{
	struct xs_affinity_map m;

	if (xs_affinity_map_read(path, &m))
		return 1;
	printf("schedule %s: loop of %llu iterations, %u logical threads of %llu, planned for "
	       "%s (machine %016llx)\n", path, (unsigned long long)m.n, m.nthreads,
	       (unsigned long long)m.granule, m.machine_desc, (unsigned long long)m.machine);
	if (m.identity)
		printf("  identity order: each worker runs one range of consecutive iterations, as "
		       "the static schedule does\n");
	for (uint32_t w = 0; w < m.nworkers; w++) {
		uint32_t a = m.start[w], b = m.start[w + 1], runs = 0;

		for (uint32_t i = a; i < b; i++)
			runs += i == a || m.order[i] != m.order[i - 1] + 1;
		printf("  worker %u: %u logical threads in %u runs:", w, b - a, runs);
		for (uint32_t i = a; i < b && i < a + 8; i++)
			printf(" %u", m.order[i]);
		printf("%s\n", b - a > 8 ? " ..." : "");
	}
	if (gpath && show_cut_on(&m, gpath, ratio)) {
		xs_affinity_map_free(&m);
		return 1;
	}
	xs_affinity_map_free(&m);
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	struct xs_aff_hgraph h;
	char magic[8] = { 0 };
	const char *gpath = NULL;
	double ratio = 0.9;
	FILE *f;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc == 2 && !strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, PROG " show: expected show FILE [--graph GRAPH [--dense-ratio R]]\n");
		return 2;
	}
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc || (strcmp(argv[i], "--graph") && strcmp(argv[i], "--dense-ratio"))) {
			fprintf(stderr, PROG " show: unexpected '%s': expected show FILE [--graph "
				"GRAPH [--dense-ratio R]]\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--graph"))
			gpath = argv[i + 1];
		else if (tool_parse_double(PROG, "--dense-ratio", argv[i + 1], 0, 1, &ratio))
			return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (fread(magic, 1, 8, f) != 8)
		memset(magic, 0, 8);
	fclose(f);
	if (memcmp(magic, "XSAFGRPH", 8))
		return show_schedule(argv[1], gpath, ratio);
	if (gpath) {
		fprintf(stderr, PROG " show: %s is a graph: --graph goes with a schedule\n",
			argv[1]);
		return 2;
	}
	if (xs_aff_hgraph_read(argv[1], &h))
		return 1;
	printf("graph %s: loop of %llu iterations, %u logical threads of %llu; %llu accesses "
	       "recorded at 2^%u-byte granularity in %.3f s; %llu addresses, %llu shared by >= 2 "
	       "threads (%llu entries); %llu pairs dropped at the memory cap\n", argv[1],
	       (unsigned long long)h.n, h.nthreads, (unsigned long long)h.granule,
	       (unsigned long long)h.accesses, h.shift, h.seconds,
	       (unsigned long long)h.naddrs, (unsigned long long)h.nedges,
	       (unsigned long long)h.nentries, (unsigned long long)h.dropped);
	xs_aff_hgraph_free(&h);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		tool_version(PROG);
		return 0;
	}
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "plan"))
		return cmd_plan(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	fprintf(stderr, PROG ": unknown command '%s': expected record, plan or show\n", argv[1]);
	usage(stderr);
	return 2;
}
