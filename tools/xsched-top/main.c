// SPDX-License-Identifier: MIT
/*
 * xsched-top - a live view of xsched: what xschedd sees of the CPUs, and
 * what every libxsched process publishes about its workers.
 *
 *   xsched-top [-d SECONDS] [-p PID] [-s KEY] [-b | --json] [-n N]
 *              [--runtime-dir DIR] [--shm-dir DIR]
 *
 * Exit status: 0, 1 when the terminal cannot be used, 2 on a usage error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: xsched-top [-d SECONDS] [-p PID] [-s KEY] [-b | --json] [-n N]\n"
		"                  [--runtime-dir DIR] [--shm-dir DIR]\n"
		"\n"
		"  -d SECONDS         refresh every SECONDS (0.1..3600, default 1)\n"
		"  -p PID             show only process PID\n"
		"  -s KEY             sort processes by tasks, steals, idle, pid or command\n"
		"  -b                 batch: plain-text snapshots on stdout, no terminal needed\n"
		"  --json             batch: one JSON object per refresh, one line each\n"
		"  -n N               stop after N refreshes (batch default: until killed)\n"
		"  --runtime-dir DIR  xschedd's runtime directory (default $XSCHED_RUNTIME_DIR,\n"
		"                     else " XS_ABI_DEFAULT_RUNTIME_DIR ")\n"
		"  --shm-dir DIR      where daemon-less processes publish (default " XS_STATS_SHM_DIR
		")\n"
		"\n"
		"Processes publish their counters unless XSCHED_STATS_PAGE=0. Keys of the\n"
		"screen: h (help). Pages of processes that are gone are removed.\n");
}

static int parse_num(const char *opt, const char *v, double min, double max, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = v ? strtod(v, &end) : 0;
	if (!v || errno || end == v || *end || !(d >= min && d <= max)) {
		fprintf(stderr, "xsched-top: %s '%s': expected a number in [%g, %g]\n", opt,
			v ? v : "", min, max);
		return -1;
	}
	*out = d;
	return 0;
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

static int parse_args(int argc, char **argv, struct top_opts *o)
{
	const char *env = getenv("XSCHED_RUNTIME_DIR");
	double v;

	memset(o, 0, sizeof(*o));
	o->delay_s = 1;
	snprintf(o->runtime_dir, sizeof(o->runtime_dir), "%s",
		 env && *env ? env : XS_ABI_DEFAULT_RUNTIME_DIR);
	snprintf(o->shm_dir, sizeof(o->shm_dir), "%s", XS_STATS_SHM_DIR);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "-b")) {
			o->batch = 1;
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "-d")) {
			if (parse_num("-d", next, 0.1, 3600, &o->delay_s))
				return -1;
			i++;
		} else if (!strcmp(a, "-n")) {
			if (parse_num("-n", next, 1, 1e9, &v) || v != (long)v) {
				if (v != (long)v)
					fprintf(stderr, "xsched-top: -n '%s': expected an integer\n",
						next);
				return -1;
			}
			o->iterations = (long)v;
			i++;
		} else if (!strcmp(a, "-p")) {
			if (parse_num("-p", next, 1, 4194304, &v) || v != (uint32_t)v) {
				if (v != (uint32_t)v)
					fprintf(stderr, "xsched-top: -p '%s': expected a pid\n", next);
				return -1;
			}
			o->pid = (uint32_t)v;
			i++;
		} else if (!strcmp(a, "-s")) {
			if ((o->sort = parse_sort(next)) < 0)
				return -1;
			i++;
		} else if (!strcmp(a, "--runtime-dir") || !strcmp(a, "--shm-dir")) {
			char *dst = a[2] == 'r' ? o->runtime_dir : o->shm_dir;

			if (!next || !*next || strlen(next) >= sizeof(o->runtime_dir)) {
				fprintf(stderr, "xsched-top: %s: expected a directory\n", a);
				return -1;
			}
			strcpy(dst, next);
			i++;
		} else {
			fprintf(stderr, "xsched-top: unknown argument '%s'\n", a);
			usage(stderr);
			return -1;
		}
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

	for (long n = 0; !o->iterations || n < o->iterations; n++) {
		if (n)
			top_sleep(o->delay_s);
		top_snap_take(&cur, o, n ? &prev : NULL);
		if (o->json)
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
