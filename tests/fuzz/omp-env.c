// SPDX-License-Identifier: MIT
/*
 * omp-env.c - fuzz the drop-in's OMP_* environment parser.
 *
 * Input: lines; each line's first byte picks one of the variables below
 * (modulo their count), the rest is its value. The target sets them, runs
 * xg_env_load() (libxsched/gomp/env.c, which the drop-in runs once at
 * load), then unsets them and what it handed to the runtime. OMP_PLACES
 * counts places on tests/machines/2s2n4c (XSCHED_SYSFS_ROOT). Promises:
 * the ICVs it leaves are usable: at least one thread, a thread limit and
 * at most 255 active levels (0 is valid), no more places than
 * that machine's topology gives the kind chosen (any number, >= 1, for an
 * explicit list; none for a rejected value, or under OMP_PROC_BIND the
 * threads), and the nthreads list walk stays in its array.
 */
#include "fuzz.h"
#include "gomp/gomp.h"
#include "topo/topology.h"

static const char *const vars[] = {
	"OMP_NUM_THREADS", "OMP_SCHEDULE",	 "OMP_DYNAMIC",	    "OMP_NESTED",
	"OMP_MAX_ACTIVE_LEVELS", "OMP_THREAD_LIMIT", "OMP_MAX_TASK_PRIORITY",
	"OMP_STACKSIZE",	 "OMP_WAIT_POLICY", "OMP_PROC_BIND",   "OMP_PLACES",
	"OMP_CANCELLATION", "OMP_DISPLAY_ENV", "XSCHED_LOOP_SCHEDULE",
};
#define NVARS (sizeof(vars) / sizeof(vars[0]))
/* what xg_env_load() hands on to the runtime (setenv without overwrite) */
static const char *const handed[] = { "XSCHED_BIND", "XSCHED_SPIN_US", "XSCHED_STACK_KIB" };
/* places per kind (threads, cores, sockets, ll_caches, numa_domains) */
static uint32_t places[5];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char root[4096];

	(void)argc;
	(void)argv;
	struct xs_topology *t;

	snprintf(root, sizeof(root), "%s/tests/machines/2s2n4c", fuzz_srcdir());
	setenv("XSCHED_SYSFS_ROOT", root, 1);
	t = xs_topology_load(root);
	if (!t) {
		fprintf(stderr, "omp-env: cannot load %s\n", root);
		exit(1);
	}
	places[0] = t->ncpus;
	places[1] = t->ncores;
	places[2] = t->npackages;
	places[3] = t->nllcs;
	places[4] = t->nnodes;
	xs_topology_free(t);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *line, *save = NULL;
	struct xg_icv icv;

	if (!getenv("XSCHED_SYSFS_ROOT"))
		LLVMFuzzerInitialize(NULL, NULL);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		setenv(vars[(unsigned char)line[0] % NVARS], line + 1, 1);
	memset(&xg_env, 0, sizeof(xg_env));
	xg_env_load();
	FUZZ_CHECK(xg_env.icv.nthreads >= 1);
	FUZZ_CHECK(xg_env.icv.thread_limit >= 1);
	/* 0 is valid: no region is active then. */
	FUZZ_CHECK(xg_env.icv.max_active_levels <= 255);
	FUZZ_CHECK(xg_env.max_task_priority >= 0);
	if (getenv("OMP_PLACES") && *getenv("OMP_PLACES") && xg_env.num_places) {
		/* Accepted: an abstract name gives at most that machine's
		 * places of its kind (fewer with a count), an explicit list
		 * (kind 5) at least one place. A rejected value (named on
		 * stderr) leaves no places, or under OMP_PROC_BIND the
		 * threads (kind 0). */
		FUZZ_CHECK(xg_env.place_kind <= 5);
		if (xg_env.place_kind < 5)
			FUZZ_CHECK(xg_env.num_places <= places[xg_env.place_kind]);
	}
	icv = xg_env.icv;
	for (int level = 0; level < 40; level++) {
		xg_env_nthreads_level(&icv);
		FUZZ_CHECK(icv.nthreads >= 1);
	}
	for (size_t i = 0; i < NVARS; i++)
		unsetenv(vars[i]);
	for (size_t i = 0; i < sizeof(handed) / sizeof(handed[0]); i++)
		unsetenv(handed[i]);
	free(text);
	return 0;
}
