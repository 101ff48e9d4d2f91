// SPDX-License-Identifier: MIT
/*
 * xsched-top - a live view of xsched: what xschedd sees of the CPUs, and
 * what every libxsched process publishes about its workers.
 *
 *   xsched-top [-b | --json] [-J] [-d SECONDS] [-n N] [-p PID[,PID...]] [-s KEY] [-r]
 *              [--filter TEXT] [--runtime-dir DIR] [--shm-dir DIR]
 *   (usage() has the long forms)
 *
 * Exit status: 0, 1 when the terminal cannot be used, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/number.h"
#include "top.h"
#include "../version.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xsched-top [-b | --json] [-J] [-d SECONDS] [-n N] [-p PID[,PID...]] [-s KEY]\n"
		"                  [-r] [--filter TEXT] [--runtime-dir DIR] [--shm-dir DIR]\n"
		"\n"
		"  -d, --delay=SECONDS     refresh every SECONDS (0.1..3600, default 1)\n"
		"  -n, --iterations=N      stop after N refreshes (default: until q, or killed)\n"
		"  -p, --pid=PID[,PID...]  show only these processes (repeat -p for more)\n"
		"  -s, --sort=KEY          sort processes by tasks, steals, idle, pid or command\n"
		"  -r, --reverse           the other direction: rates lowest first, pid and\n"
		"                          command last first\n"
		"      --filter=TEXT       only processes whose command or pid contains TEXT\n"
		"                          (case-insensitive; the screen's / key sets it too)\n"
		"  -b, --batch             plain-text snapshots on stdout, no terminal needed\n"
		"  -j, --json              batch: one JSON object per refresh, one line each\n"
		"  -J, --jobs              the job view: the MPI ranks of each job on this\n"
		"                          node (libxsched-mpi), their useful and MPI time,\n"
		"                          CPU-seconds lent and borrowed, and per job load\n"
		"                          balance, communication and parallel efficiency\n"
		"                          (with -b, --json, or the screen's J key)\n"
		"      --runtime-dir=DIR   xschedd's runtime directory (default\n"
		"                          $XSCHED_RUNTIME_DIR, else " XS_ABI_DEFAULT_RUNTIME_DIR ")\n"
		"      --shm-dir=DIR       where daemon-less processes publish (default\n"
		"                          " XS_STATS_SHM_DIR ")\n"
		"  -h, --help              this text\n"
		"  -V, --version           the xsched version\n"
		"\n"
		"Short options combine as in top: -bn1, -d0.5. Processes publish their\n"
		"counters unless XSCHED_STATS_PAGE=0. Keys of the screen: h or F1 (help).\n"
		"Rates and totals are shown as 12.3K, 1.2M, 4.5G (powers of 1000); --json\n"
		"prints them exact.\n"
		"Pages of processes that are gone are removed.\n"
		"Exit status: 0, 1 when the terminal cannot be used, 2 on a usage error.\n");
}

/* -p PID[,PID...]: appended to o->pids; repeated -p add more. */
static int parse_pids(const char *v, struct top_opts *o)
{
	const char *p = v;
	char *end;

	do {
		unsigned long pid;

		errno = 0;
		pid = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
		if (!pid || errno || pid > 4194304 || (*end && *end != ',')) {
			fprintf(stderr,
				"xsched-top: -p/--pid '%s': expected pids in [1, 4194304], separated "
				"by commas\n",
				v);
			return -1;
		}
		if (o->npids == TOP_MAX_PIDS) {
			fprintf(stderr, "xsched-top: -p/--pid '%s': at most %d pids\n", v,
				TOP_MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = (uint32_t)pid;
		p = end + (*end == ',');
	} while (*end);
	o->pid = o->npids == 1 ? o->pids[0] : 0;
	return 0;
}

/* --filter TEXT: printable, shorter than TOP_FILTER_LEN. */
static int parse_filter(const char *v, struct top_opts *o)
{
	for (const char *c = v; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			goto bad;
	if (!*v || strlen(v) >= sizeof(o->filter))
		goto bad;
	strcpy(o->filter, v);
	return 0;
bad:
	fprintf(stderr,
		"xsched-top: --filter '%s': expected 1 to %zu printable ASCII characters\n", v,
		sizeof(o->filter) - 1);
	return -1;
}

static int parse_sort(const char *v)
{
	static const char *const keys[TOP_SORT_N] = { "tasks", "steals", "idle", "pid",
						       "command" };

	for (int i = 0; v && i < TOP_SORT_N; i++)
		if (!strcmp(v, keys[i]))
			return i;
	fprintf(stderr, "xsched-top: -s '%s': expected tasks, steals, idle, pid or command\n",
		v ? v : "");
	return -1;
}

static int parse_dir(const char *opt, const char *v, char *dst, size_t len)
{
	if (!*v || strlen(v) >= len) {
		fprintf(stderr, "xsched-top: %s '%s': expected a directory (under %zu bytes)\n",
			opt, v, len);
		return -1;
	}
	strcpy(dst, v);
	return 0;
}

static int parse_args(int argc, char **argv, struct top_opts *o)
{
	enum { OPT_RUNTIME_DIR = 256, OPT_SHM_DIR, OPT_FILTER };
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "jobs", no_argument, NULL, 'J' },
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "sort", required_argument, NULL, 's' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "runtime-dir", required_argument, NULL, OPT_RUNTIME_DIR },
		{ "shm-dir", required_argument, NULL, OPT_SHM_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *env = getenv("XSCHED_RUNTIME_DIR");
	double v;
	int c;

	memset(o, 0, sizeof(*o));
	o->delay_s = 1;
	snprintf(o->runtime_dir, sizeof(o->runtime_dir), "%s",
		 env && *env ? env : XS_ABI_DEFAULT_RUNTIME_DIR);
	snprintf(o->shm_dir, sizeof(o->shm_dir), "%s", XS_STATS_SHM_DIR);
	while ((c = getopt_long(argc, argv, "bjJd:n:p:s:rhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->batch = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'J':
			o->jobs = 1;
			break;
		case 'd':
			if (tool_parse_double("xsched-top", "-d/--delay", optarg, 0.1, 3600,
					      &o->delay_s))
				return -1;
			break;
		case 'n':
			if (tool_parse_double("xsched-top", "-n/--iterations", optarg, 1, 1e9,
					      &v))
				return -1;
			if (v != (long)v) {
				fprintf(stderr, "xsched-top: -n/--iterations '%s': expected an integer\n",
					optarg);
				return -1;
			}
			o->iterations = (long)v;
			break;
		case 'p':
			if (parse_pids(optarg, o))
				return -1;
			break;
		case 's':
			if ((o->sort = parse_sort(optarg)) < 0)
				return -1;
			break;
		case 'r':
			o->reverse = 1;
			break;
		case OPT_FILTER:
			if (parse_filter(optarg, o))
				return -1;
			break;
		case OPT_RUNTIME_DIR:
			if (parse_dir("--runtime-dir", optarg, o->runtime_dir, sizeof(o->runtime_dir)))
				return -1;
			break;
		case OPT_SHM_DIR:
			if (parse_dir("--shm-dir", optarg, o->shm_dir, sizeof(o->shm_dir)))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			tool_version("xsched-top");
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xsched-top: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	if (o->batch && o->json) {
		fprintf(stderr, "xsched-top: -b and --json: choose one\n");
		return -1;
	}
	return 0;
}

static void top_sleep(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int top_batch(const struct top_opts *o)
{
	struct top_snap prev = { 0 }, cur;

	if (!o->json && !o->jobs)
		top_print_legend(stdout);
	for (long n = 0; !o->iterations || n < o->iterations; n++) {
		if (n)
			top_sleep(o->delay_s);
		top_snap_take(&cur, o, n ? &prev : NULL);
		top_snap_filter(&cur, o);
		if (o->jobs && o->json)
			top_print_jobs_json(stdout, &cur);
		else if (o->jobs)
			top_print_jobs_text(stdout, &cur, 1);
		else if (o->json)
			top_print_json(stdout, &cur);
		else
			top_print_text(stdout, &cur, o);
		top_snap_free(&prev);
		prev = cur;
	}
	top_snap_free(&prev);
	return 0;
}

int main(int argc, char **argv)
{
	struct top_opts o;

	if (parse_args(argc, argv, &o))
		return 2;
	if (o.batch || o.json)
		return top_batch(&o);
	return top_tui(&o);
}
