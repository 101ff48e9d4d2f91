// SPDX-License-Identifier: MIT
/*
 * options.c - the one table behind every XSCHED_* environment variable.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xsched.h"
#include "base/atomics.h"
#include "base/options.h"

extern char **environ;

enum xs_option_kind { XS_OPT_INT, XS_OPT_BOOL, XS_OPT_POW2_OR_ZERO, XS_OPT_PATH, XS_OPT_ENUM };

struct xs_option_def {
	const char *name;
	enum xs_option_kind kind;
	size_t offset;          /* into struct xs_options */
	int64_t def, min, max;  /* integer kinds; index into choices for enums */
	const char *range;      /* for humans: the accepted values */
	const char *def_text;
	const char *doc;
	const char *const *choices; /* XS_OPT_ENUM: NULL-terminated, by value */
};

/* Enum choices, in the order of the enums they map to. */
static const char *const xs_dlb_choices[] = { "slb", "ws", "rp", "auto", NULL };
static const char *const xs_bind_choices[] = { "none", "compact", "scatter", NULL };
static const char *const xs_push_choices[] = { "auto", "rr", "local", NULL };
static const char *const xs_daemon_choices[] = { "auto", "off", "required", NULL };
static const char *const xs_loop_choices[] = { "auto", "static", "dynamic", "guided",
						 "hybrid", "affinity", NULL };


#define XS_OPT(field) offsetof(struct xs_options, field)

static const struct xs_option_def xs_option_table[] = {
	{ "XSCHED_WORKERS", XS_OPT_INT, XS_OPT(workers), 0, 0, 1024, "0..1024", "0",
	  "worker threads; 0 = the CPUs of the process's affinity mask", NULL },
	{ "XSCHED_QUEUE_SIZE", XS_OPT_POW2_OR_ZERO, XS_OPT(queue_size), 0, 16, 65536,
	  "0, or a power of two in 16..65536", "0",
	  "slots per SPSC queue; XQueue memory is N^2 x (8 x size + 128) bytes; "
	  "0 = 256, shrunk so that N^2 x 8 x size stays within 32 MiB (minimum 16)", NULL },
	{ "XSCHED_SPIN_US", XS_OPT_INT, XS_OPT(spin_us), 50, 0, 1000000, "0..1000000", "50",
	  "microseconds an idle or waiting worker spins before it parks on a futex, at least "
	  "XSCHED_RESCUE_US while a teammate holds private frames (with more workers than CPUs "
	  "it parks after 64 looks instead; 0: never spins)", NULL },
	{ "XSCHED_STACK_KIB", XS_OPT_INT, XS_OPT(stack_kib), 16384, 64, 4194304,
	  "64..4194304", "16384", "stack size of each worker thread in KiB", NULL },
	{ "XSCHED_SHOW_STATS", XS_OPT_BOOL, XS_OPT(show_stats), 0, 0, 1, "0 or 1", "0",
	  "print per-worker counters to stderr when the runtime is destroyed", NULL },
	{ "XSCHED_PROFILE", XS_OPT_PATH, XS_OPT(profile), 0, 0, 0, "a file path", "(off)",
	  "write a Chrome trace-event JSON event log (Perfetto) here at destroy", NULL },
	{ "XSCHED_PROFILE_EVENTS", XS_OPT_INT, XS_OPT(profile_events), 1 << 20, 1024,
	  1 << 28, "1024..268435456", "1048576",
	  "event-log capacity per worker; later events are counted as dropped", NULL },
	{ "XSCHED_PROFILE_MIN_NS", XS_OPT_INT, XS_OPT(profile_min_ns), 1000, 0, 1000000000,
	  "0..1000000000", "1000",
	  "events shorter than this many ns are left out of the profile (counted per worker "
	  "as events_short); 0 writes every event", NULL },
	{ "XSCHED_VERBOSE", XS_OPT_BOOL, XS_OPT(verbose), 0, 0, 1, "0 or 1", "0",
	  "print the effective options to stderr when a runtime is created", NULL },
	{ "XSCHED_DLB", XS_OPT_ENUM, XS_OPT(dlb), 1, 0, 3, "slb, ws, rp or auto", "ws",
	  "dynamic load balancing: static round-robin only, NUMA-aware work stealing, "
	  "NUMA-aware redirect push, or chosen from measured task sizes",
	  xs_dlb_choices },
	{ "XSCHED_DLB_VICTIMS", XS_OPT_INT, XS_OPT(dlb_victims), 1, 1, 64, "1..64", "1",
	  "N: victims a thief asks per attempt", NULL },
	{ "XSCHED_DLB_STEAL", XS_OPT_INT, XS_OPT(dlb_steal), 8, 1, 4096, "1..4096", "8",
	  "S: tasks a victim moves (ws) or redirects (rp) per request", NULL },
	{ "XSCHED_DLB_TIMEOUT", XS_OPT_INT, XS_OPT(dlb_timeout), 1000, 1, 100000000,
	  "1..100000000", "1000", "T: idle scheduling points before a thief asks again", NULL },
	{ "XSCHED_DLB_LOCAL", XS_OPT_INT, XS_OPT(dlb_local), 100, 0, 100, "0..100", "100",
	  "P: percent of requests a thief sends to its own NUMA node", NULL },
	{ "XSCHED_PUSH", XS_OPT_ENUM, XS_OPT(push), 0, 0, 2, "auto, rr or local", "auto",
	  "where spawn puts a task: round-robin over every worker's queue (static load "
	  "balancing), or the spawner's own queue, leaving distribution to XSCHED_DLB; "
	  "auto = rr under slb, local otherwise",
	  xs_push_choices },
	{ "XSCHED_BIND", XS_OPT_ENUM, XS_OPT(bind), 1, 0, 2, "none, compact or scatter",
	  "compact",
	  "pin workers: fill a node (LLC, core) before the next, round-robin over nodes, "
	  "or not at all",
	  xs_bind_choices },
	{ "XSCHED_SYSFS_ROOT", XS_OPT_PATH, XS_OPT(sysfs_root), 0, 0, 0,
	  "a directory laid out like /sys/devices/system", "(real machine)",
	  "read the machine's topology from here instead (tests, what-if runs); "
	  "workers are not pinned then", NULL },
	{ "XSCHED_DAEMON", XS_OPT_ENUM, XS_OPT(daemon), 0, 0, 2, "auto, off or required",
	  "auto",
	  "use xschedd's victim tables and worker state: when its socket exists, never, "
	  "or fail xs_runtime_create() without it",
	  xs_daemon_choices },
	{ "XSCHED_RUNTIME_DIR", XS_OPT_PATH, XS_OPT(runtime_dir), 0, 0, 0,
	  "a directory", "/run/xsched",
	  "where xschedd publishes its socket and state (its --runtime-dir)", NULL },
	{ "XSCHED_STATS_PAGE", XS_OPT_BOOL, XS_OPT(stats_page), 1, 0, 1, "0 or 1", "1",
	  "publish per-worker counters for xsched-top in a shared-memory page (in "
	  "XSCHED_RUNTIME_DIR when xschedd runs there, else /dev/shm)", NULL },
	{ "XSCHED_LOOP_SCHEDULE", XS_OPT_ENUM, XS_OPT(loop_schedule), 0, 0, 5,
	  "auto, static, dynamic, guided, hybrid or affinity", "auto",
	  "schedule of xs_parallel_for() without one (auto = hybrid) and, when not auto, of "
	  "OpenMP schedule(runtime) loops on the drop-in (wins over OMP_SCHEDULE)",
	  xs_loop_choices },
	{ "XSCHED_LOOP_CHUNK", XS_OPT_INT, XS_OPT(loop_chunk), 0, 0, 1099511627776LL,
	  "0..1099511627776", "0",
	  "iterations per chunk of those loops: static 0 = one block per worker, "
	  "else cyclic; dynamic, guided: 0 = 1 (minimum chunk)", NULL },
	{ "XSCHED_LOOP_HYBRID_NS", XS_OPT_INT, XS_OPT(loop_ns), 2, 1, 64, "1..64", "2",
	  "hybrid: Ns, static tasks a worker runs itself, first", NULL },
	{ "XSCHED_LOOP_HYBRID_ND", XS_OPT_INT, XS_OPT(loop_nd), 4, 0, 1024, "0..1024", "4",
	  "hybrid: Nd, dynamic tasks per worker, which idle workers may take; "
	  "Nd x grain <= 1000", NULL },
	{ "XSCHED_LOOP_HYBRID_GRAIN", XS_OPT_INT, XS_OPT(loop_grain), 50, 1, 1000, "1..1000",
	  "50", "hybrid: g, one dynamic task in per mille of a worker's block", NULL },
	/* Affinity-graph schedules (affinity_*.c, tools/xsched-affinity.c). */
	{ "XSCHED_AFFINITY_FILE", XS_OPT_PATH, XS_OPT(affinity_file), 0, 0, 0, "a file path",
	  "(none)",
	  "affinity schedule (xsched-affinity plan) that XSCHED_LOOP_SCHEDULE=affinity loops "
	  "replay; loops it does not fit run hybrid", NULL },
	{ "XSCHED_AFFINITY_RECORD", XS_OPT_PATH, XS_OPT(affinity_record), 0, 0, 0,
	  "a file path", "(off)",
	  "record the first XSCHED_LOOP_SCHEDULE=affinity loop's accesses to the regions of "
	  "xs_affinity_region_add() and write its affinity graph here", NULL },
	{ "XSCHED_AFFINITY_GRANULE", XS_OPT_INT, XS_OPT(affinity_granule), 0, 0, 1 << 30,
	  "0..1073741824", "0",
	  "iterations per logical thread of a recorded loop; 0 = n / 262144 rounded up", NULL },
	{ "XSCHED_AFFINITY_SHIFT", XS_OPT_INT, XS_OPT(affinity_shift), 3, 0, 12, "0..12", "3",
	  "recorded address granularity, log2 bytes: 3 = 8-byte words, 6 = cache lines, "
	  "12 = pages", NULL },
	{ "XSCHED_AFFINITY_STEP", XS_OPT_BOOL, XS_OPT(affinity_step), 1, 0, 1, "0 or 1", "1",
	  "record every access by single-stepping the faulting instruction (x86-64); 0 = the "
	  "first access per page and logical thread", NULL },
	{ "XSCHED_AFFINITY_SAMPLE", XS_OPT_INT, XS_OPT(affinity_sample), 1, 1, 4096, "1..4096",
	  "1",
	  "record only one page in this many of the registered regions (the same pages "
	  "throughout, by a hash): about that many times fewer faults and addresses seen", NULL },
	{ "XSCHED_AFFINITY_WINDOW", XS_OPT_INT, XS_OPT(affinity_window), 0, 0, 1 << 20,
	  "0..1048576", "0",
	  "record with only this many watched pages protected per logical thread, the "
	  "window moving on by as many each time, and at most this many faults per logical "
	  "thread; 0 = every watched page", NULL },
	{ "XSCHED_AFFINITY_TRIAL", XS_OPT_INT, XS_OPT(affinity_trial), 5, 0, 64, "0..64", "5",
	  "xs_parallel_for() loops that replay a schedule first run this many rounds of it, "
	  "hybrid and static, a warm-up and a timed loop each, then keep the one with the "
	  "lowest median time over static's of the same round; 0 = always the schedule",
	  NULL },
	{ "XSCHED_RESCUE_US", XS_OPT_INT, XS_OPT(rescue_us), 2000, 1, 10000000, "1..10000000",
	  "2000",
	  "a victim that xschedd shows preempted or stopped for this long, or that leaves "
	  "a thief's splitreq unanswered this long, is stranded: a thief publishes its "
	  "private frames for it (deque_rescue.c)", NULL },
	{ "XSCHED_SPREAD", XS_OPT_BOOL, XS_OPT(spread), 1, 0, 1, "0 or 1", "1",
	  "an unpinned worker that waits while an awake teammate was last seen on its CPU "
	  "moves to a CPU of its affinity mask where none was (at most once per ms; "
	  "spread.c)", NULL },
	{ "XSCHED_AWAIT_OFFCPU_US", XS_OPT_INT, XS_OPT(await_offcpu_us), 20, 0, 1000000,
	  "0..1000000", "20",
	  "a worker waiting for a teammate that xschedd shows switched out this long "
	  "(preempted, stopped, or woken and still without a CPU) parks instead of spinning "
	  "out XSCHED_SPIN_US; 0 = off (worker.c)", NULL },
};

#define XS_NOPTIONS (sizeof(xs_option_table) / sizeof(xs_option_table[0]))

int xs_option_describe(unsigned int index, struct xs_option_info *info)
{
	if (!info)
		return -EINVAL;
	if (index >= XS_NOPTIONS)
		return -ENOENT;
	info->name = xs_option_table[index].name;
	info->doc = xs_option_table[index].doc;
	info->range = xs_option_table[index].range;
	info->def = xs_option_table[index].def_text;
	return 0;
}

static const struct xs_option_def *xs_option_find(const char *name, size_t len)
{
	for (size_t i = 0; i < XS_NOPTIONS; i++)
		if (strlen(xs_option_table[i].name) == len &&
		    !memcmp(xs_option_table[i].name, name, len))
			return &xs_option_table[i];
	return NULL;
}

int xs_option_range(const char *name, int64_t *min, int64_t *max)
{
	const struct xs_option_def *d = xs_option_find(name, strlen(name));

	if (!d || d->kind == XS_OPT_PATH)
		return -ENOENT;
	*min = d->kind == XS_OPT_POW2_OR_ZERO ? 0 : d->min;
	*max = d->max;
	return 0;
}

const char *xs_option_choice(const char *name, int64_t value)
{
	const struct xs_option_def *d = xs_option_find(name, strlen(name));

	if (!d || d->kind != XS_OPT_ENUM || value < d->min || value > d->max)
		return "?";
	return d->choices[value];
}

/*
 * A bad value is named once per process: the libgomp drop-in reads the
 * table when it is loaded and the runtime of its first region again.
 * Each row remembers a hash of the last value it reported; another bad
 * value of the same variable (setenv between runtimes) is reported again.
 * Relaxed: the words only suppress a duplicate line, they publish nothing;
 * two threads racing on a first report may both print it, harmlessly.
 */
static _Atomic uint64_t xs_option_reported[XS_NOPTIONS];

static bool xs_report_once(_Atomic uint64_t *last, const char *value)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (const char *p = value; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	h |= 1; /* never the initial 0 */
	return xs_exchange_relaxed(last, h) != h;
}

static int xs_option_reject(const struct xs_option_def *d, const char *value)
{
	if (xs_report_once(&xs_option_reported[d - xs_option_table], value))
		fprintf(stderr, "xsched: %s=\"%s\" is invalid: expected %s\n", d->name, value,
			d->range);
	return -EINVAL;
}

static int xs_option_parse(const struct xs_option_def *d, const char *value, void *field)
{
	char *end;
	long long v;

	if (d->kind == XS_OPT_PATH) {
		/* Every path option is a char[4096] (options.h). */
		if (strlen(value) >= sizeof(((struct xs_options *)0)->profile))
			return xs_option_reject(d, value);
		strcpy(field, value);
		return 0;
	}
	if (d->kind == XS_OPT_ENUM) {
		for (int64_t i = 0; d->choices[i]; i++) {
			if (!strcmp(value, d->choices[i])) {
				*(int64_t *)field = i;
				return 0;
			}
		}
		return xs_option_reject(d, value);
	}
	errno = 0;
	v = strtoll(value, &end, 10);
	if (errno || end == value || *end != '\0')
		return xs_option_reject(d, value);
	if (d->kind == XS_OPT_POW2_OR_ZERO) {
		if (v != 0 && (v < d->min || v > d->max || (v & (v - 1))))
			return xs_option_reject(d, value);
	} else if (v < d->min || v > d->max) {
		return xs_option_reject(d, value);
	}
	*(int64_t *)field = v;
	return 0;
}

/* Warn once per process about XSCHED_* names nobody reads: a typo in an
 * option name must not be silently ignored. */
static void xs_options_warn_unknown(void)
{
	static _Atomic int warned;

	if (xs_exchange_relaxed(&warned, 1))
		return;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');

		if (strncmp(*e, "XSCHED_", 7) || !eq)
			continue;
		/* libxsched-mpi's own table (libxsched/mpi/options.c), read in
		 * the same process when an MPI rank runs on xsched. */
		if (!strncmp(*e, "XSCHED_MPI_", 11))
			continue;
		if (!xs_option_find(*e, (size_t)(eq - *e)))
			fprintf(stderr, "xsched: warning: unknown variable %.*s ignored\n",
				(int)(eq - *e), *e);
	}
}

/*
 * A file the runtime will write at the end (XSCHED_PROFILE) must be
 * writable now: a run of minutes whose trace is lost at exit is the
 * failure to avoid. An existing file must be writable and not a directory,
 * a new one needs a writable directory. Nothing is created here.
 */
static int xs_option_check_writable(const char *name, const char *path)
{
	static _Atomic uint64_t reported;
	char dir[sizeof(((struct xs_options *)0)->profile)];
	struct stat st;
	char *slash;
	int err = 0;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			err = EISDIR;
		else if (access(path, W_OK))
			err = errno;
	} else if (errno != ENOENT) {
		err = errno;
	} else {
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		if (access(slash ? dir : ".", W_OK | X_OK))
			err = errno;
	}
	if (!err)
		return 0;
	if (xs_report_once(&reported, path))
		fprintf(stderr, "xsched: %s=%s: cannot be written: %s\n", name, path, strerror(err));
	return -err;
}

int xs_options_load(struct xs_options *opt)
{
	int ret = 0;

	memset(opt, 0, sizeof(*opt));
	for (size_t i = 0; i < XS_NOPTIONS; i++) {
		const struct xs_option_def *d = &xs_option_table[i];
		void *field = (char *)opt + d->offset;
		const char *value = getenv(d->name);

		if (d->kind != XS_OPT_PATH)
			*(int64_t *)field = d->def;
		if (value && xs_option_parse(d, value, field) < 0)
			ret = -EINVAL;
	}
	if (opt->profile[0] && xs_option_check_writable("XSCHED_PROFILE", opt->profile))
		ret = -EINVAL;
	/* The one rule across rows: the dynamic tasks fit in the block. */
	if (opt->loop_nd * opt->loop_grain > 1000) {
		static _Atomic uint64_t reported;
		char pair[48];

		snprintf(pair, sizeof(pair), "%lld x %lld", (long long)opt->loop_nd,
			 (long long)opt->loop_grain);
		if (xs_report_once(&reported, pair))
			fprintf(stderr,
				"xsched: XSCHED_LOOP_HYBRID_ND x XSCHED_LOOP_HYBRID_GRAIN = %s "
				"is invalid: expected at most 1000 (per mille of a block)\n", pair);
		ret = -EINVAL;
	}
	xs_options_warn_unknown();
	return ret;
}

void xs_options_dump(const struct xs_options *opt)
{
	for (size_t i = 0; i < XS_NOPTIONS; i++) {
		const struct xs_option_def *d = &xs_option_table[i];
		const void *field = (const char *)opt + d->offset;

		if (d->kind == XS_OPT_PATH)
			fprintf(stderr, "xsched: %s=%s\n", d->name,
				*(const char *)field ? (const char *)field : d->def_text);
		else if (d->kind == XS_OPT_ENUM)
			fprintf(stderr, "xsched: %s=%s\n", d->name,
				d->choices[*(const int64_t *)field]);
		else
			fprintf(stderr, "xsched: %s=%lld\n", d->name,
				(long long)*(const int64_t *)field);
	}
}
