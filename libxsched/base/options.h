/* SPDX-License-Identifier: MIT */
/*
 * options.h - the effective settings of one runtime.
 *
 * One table in options.c (name, default, range, doc) drives the XSCHED_*
 * environment variables, XSCHED_VERBOSE=1 output and the README table.
 */
#ifndef XSCHED_OPTIONS_H
#define XSCHED_OPTIONS_H

#include <stdint.h>

struct xs_options {
	int64_t workers;        /* 0 = CPUs of the affinity mask */
	int64_t queue_size;     /* slots per SPSC queue; 0 = sized from workers */
	int64_t spin_us;        /* spin this long before parking */
	int64_t stack_kib;      /* worker thread stack size */
	int64_t show_stats;     /* print counters at destroy */
	int64_t profile_events; /* event-log capacity per worker */
	int64_t profile_min_ns; /* shorter events are left out of the profile */
	int64_t verbose;        /* print effective options at create */
	int64_t dlb;            /* enum xs_dlb_strategy */
	int64_t dlb_victims;    /* N: victims asked per attempt */
	int64_t dlb_steal;      /* S: tasks moved or redirected per request */
	int64_t dlb_timeout;    /* T: idle visits before a thief asks again */
	int64_t dlb_local;      /* P: percent of requests sent NUMA-locally */
	int64_t bind;           /* enum xs_bind_policy */
	int64_t push;           /* enum xs_push_policy */
	int64_t daemon;         /* enum xs_daemon_mode (daemon_client.h) */
	int64_t stats_page;     /* publish counters for xsched-top (stats_page.h) */
	int64_t loop_schedule;  /* enum xs_loop_kind; 0 = auto (loop.c) */
	int64_t loop_chunk;     /* default chunk of xs_parallel_for and the drop-in */
	int64_t loop_ns;        /* hybrid: static tasks per worker */
	int64_t loop_nd;        /* hybrid: dynamic tasks per worker */
	int64_t loop_grain;     /* hybrid: per mille of a worker's block per dynamic task */
	int64_t affinity_granule; /* iterations per recorded logical thread; 0 = auto */
	int64_t affinity_shift; /* recorded address granularity, log2 bytes */
	int64_t affinity_step;  /* single-step faulting instructions while recording */
	int64_t affinity_sample; /* watch one page in this many while recording */
	int64_t affinity_window; /* watched pages per logical thread while recording (0: all) */
	int64_t affinity_trial; /* timed loops of schedule, hybrid, static before keeping one */
	int64_t rescue_us;      /* a victim off-CPU this long is stranded (rescue.h) */
	int64_t spread;         /* unpinned teammates move apart (spread.h) */
	int64_t await_offcpu_us; /* park for a teammate switched out this long (worker.c) */
	char profile[4096];     /* Chrome trace-event JSON path; "" = off */
	char sysfs_root[4096];  /* synthetic /sys/devices/system; "" = real */
	char runtime_dir[4096]; /* xschedd's runtime directory; "" = /run/xsched */
	char affinity_file[4096];   /* schedule to replay; "" = none */
	char affinity_record[4096]; /* affinity graph to record; "" = off */
};

_Static_assert(sizeof(((struct xs_options *)0)->profile) ==
			       sizeof(((struct xs_options *)0)->sysfs_root) &&
		       sizeof(((struct xs_options *)0)->profile) ==
			       sizeof(((struct xs_options *)0)->runtime_dir),
	       "path options share one size limit");

/*
 * Fill @opt from the defaults and the XSCHED_* environment. A value outside
 * its range is an error: a message naming the variable and the accepted
 * range goes to stderr and -EINVAL is returned; so does an XSCHED_PROFILE
 * file that could not be written at the end. An XSCHED_* variable that is
 * not in the table gets a warning (once per process).
 */
int xs_options_load(struct xs_options *opt);

/* The accepted range of integer or enum option @name (an enum's values are
 * 0..choices-1). Returns 0, or -ENOENT. */
int xs_option_range(const char *name, int64_t *min, int64_t *max);

/* The name of value @value of enum option @name ("XSCHED_DLB", 1 -> "ws"). */
const char *xs_option_choice(const char *name, int64_t value);

/* Print the effective values (XSCHED_VERBOSE=1). */
void xs_options_dump(const struct xs_options *opt);

#endif /* XSCHED_OPTIONS_H */
