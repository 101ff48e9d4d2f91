// SPDX-License-Identifier: MIT
/*
 * display_env.c - omp_display_env() and OMP_DISPLAY_ENV=true|verbose: the
 * OpenMP settings in effect, on stderr, under the names and in the format
 * libgomp prints them, between OPENMP DISPLAY ENVIRONMENT BEGIN and END.
 * verbose adds the GOMP_* settings and then the XSCHED_* settings of the
 * runtime the drop-in runs on.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gomp.h"
#include "ext.h"

static const char *const xg_sched_names[] = { "?", "STATIC", "DYNAMIC", "GUIDED", "AUTO",
					      "HYBRID", "AFFINITY", "?" };
static const char *const xg_bind_names[] = { "FALSE", "TRUE", "MASTER", "CLOSE", "SPREAD" };

static void xg_display_xsched(void)
{
	static const char *const enums[] = { "XSCHED_DLB", "XSCHED_BIND", "XSCHED_PUSH",
					     "XSCHED_DAEMON", "XSCHED_LOOP_SCHEDULE" };
	struct xs_options opt;

	if (xs_options_load(&opt) < 0)
		return;
	fprintf(stderr, "  XSCHED_WORKERS = '%lld'\n  XSCHED_QUEUE_SIZE = '%lld'\n"
		"  XSCHED_SPIN_US = '%lld'\n  XSCHED_STACK_KIB = '%lld'\n",
		(long long)opt.workers, (long long)opt.queue_size, (long long)opt.spin_us,
		(long long)opt.stack_kib);
	const int64_t values[] = { opt.dlb, opt.bind, opt.push, opt.daemon, opt.loop_schedule };
	for (size_t i = 0; i < sizeof(enums) / sizeof(enums[0]); i++) {
		const char *name = xs_option_choice(enums[i], values[i]);

		fprintf(stderr, "  %s = '%s'\n", enums[i], name ? name : "?");
	}
	fprintf(stderr, "  XSCHED_DLB_VICTIMS = '%lld'\n  XSCHED_DLB_STEAL = '%lld'\n"
		"  XSCHED_DLB_TIMEOUT = '%lld'\n  XSCHED_DLB_LOCAL = '%lld'\n"
		"  XSCHED_LOOP_CHUNK = '%lld'\n  XSCHED_SHOW_STATS = '%lld'\n"
		"  XSCHED_PROFILE = '%s'\n",
		(long long)opt.dlb_victims, (long long)opt.dlb_steal, (long long)opt.dlb_timeout,
		(long long)opt.dlb_local, (long long)opt.loop_chunk, (long long)opt.show_stats,
		opt.profile);
}

void xg_display_env(bool verbose)
{
	const struct xg_icv *icv = &xg_env.icv;
	const uint32_t *list;
	uint32_t levels = xg_env_nthreads_list(&list);
	const uint32_t *bind_list;
	uint32_t binds = xg_env_bind_list(&bind_list);
	uint32_t sched = icv->run_sched & ~XG_SCHED_MONOTONIC;
	const char *stack = getenv("OMP_STACKSIZE") ? getenv("XSCHED_STACK_KIB") : NULL;

	fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '201511'\n", stderr);
	fprintf(stderr, "  OMP_DYNAMIC = '%s'\n", icv->dynamic ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_NESTED = '%s'\n", icv->max_active_levels > 1 ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_NUM_THREADS = '");
	if (levels > 1)
		for (uint32_t i = 0; i < levels; i++)
			fprintf(stderr, "%s%u", i ? "," : "", list[i]);
	else
		fprintf(stderr, "%u", icv->nthreads);
	fprintf(stderr, "'\n  OMP_SCHEDULE = '%s%s", icv->run_sched & XG_SCHED_MONOTONIC ?
		"MONOTONIC:" : "", xg_sched_names[sched & 7]);
	if (icv->run_chunk > (sched == XG_SCHED_STATIC ? 0 : 1))
		fprintf(stderr, ",%d", icv->run_chunk);
	/* libgomp 12 still says MASTER for primary */
	fprintf(stderr, "'\n  OMP_PROC_BIND = '%s", xg_bind_names[icv->bind % 5]);
	for (uint32_t i = 1; i < binds; i++)
		fprintf(stderr, ",%s", xg_bind_names[bind_list[i] % 5]);
	fputs("'\n  OMP_PLACES = '", stderr);
	xg_places_print(stderr);
	fputs("'\n", stderr);
	fprintf(stderr, "  OMP_STACKSIZE = '%llu'\n",
		stack ? strtoull(stack, NULL, 10) * 1024 : 0ull);
	/* As libgomp: its default waits neither way, and it says PASSIVE
	 * for it; ACTIVE only when asked. */
	fprintf(stderr, "  OMP_WAIT_POLICY = '%s'\n", xg_env.wait_active ? "ACTIVE" : "PASSIVE");
	fprintf(stderr, "  OMP_THREAD_LIMIT = '%u'\n", icv->thread_limit);
	fprintf(stderr, "  OMP_MAX_ACTIVE_LEVELS = '%u'\n", icv->max_active_levels);
	fprintf(stderr, "  OMP_NUM_TEAMS = '%u'\n", xg_env.num_teams);
	fprintf(stderr, "  OMP_TEAMS_THREAD_LIMIT = '%u'\n", xg_env.teams_thread_limit);
	fprintf(stderr, "  OMP_CANCELLATION = 'FALSE'\n  OMP_DEFAULT_DEVICE = '%d'\n",
		icv->default_device);
	fprintf(stderr, "  OMP_MAX_TASK_PRIORITY = '%d'\n", xg_env.max_task_priority);
	fprintf(stderr, "  OMP_DISPLAY_AFFINITY = '%s'\n", xg_env.display_affinity ? "TRUE" : "FALSE");
	fprintf(stderr, "  OMP_AFFINITY_FORMAT = '%s'\n", xg_affinity_format());
	fprintf(stderr, "  OMP_ALLOCATOR = '%s'\n", xg_allocator_name(xg_allocator_default()));
	fprintf(stderr, "  OMP_TARGET_OFFLOAD = '%s'\n",
		xg_env.target_offload == XG_OFFLOAD_MANDATORY  ? "MANDATORY"
		: xg_env.target_offload == XG_OFFLOAD_DISABLED ? "DISABLED"
							       : "DEFAULT");
	if (verbose) {
		fprintf(stderr, "  GOMP_CPU_AFFINITY = ''\n  GOMP_STACKSIZE = '%llu'\n",
			stack ? strtoull(stack, NULL, 10) * 1024 : 0ull);
		xg_display_xsched();
	}
	fputs("OPENMP DISPLAY ENVIRONMENT END\n", stderr);
}

XG_EXPORT void omp_display_env(int verbose)
{
	xg_env_init();
	xg_display_env(verbose != 0);
}
