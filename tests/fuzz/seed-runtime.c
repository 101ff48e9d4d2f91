// SPDX-License-Identifier: MIT
/*
 * seed-runtime.c - run a runtime once and keep the files it writes, as
 * seeds for the top-pages and trace-json targets (make-seeds.sh).
 *
 *   XSCHED_PROFILE=FILE build/fuzz/seed-runtime PAGE-COPY
 *
 * Runs fib(16) as tasks, copies this process's statistics page to
 * PAGE-COPY while the runtime lives, then destroys it (which writes the
 * profile).
 */
#include <glob.h>

#include "fuzz.h"
#include "xsched/stats_page.h"
#include "../fib-task.h"

static void root(void *p)
{
	struct fib_arg a = { 16, p };

	fib_task(&a);
}

int main(int argc, char **argv)
{
	struct xs_runtime *rt;
	char pattern[256];
	glob_t g;
	long out = 0;
	int ret = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PAGE-COPY\n", argv[0]);
		return 2;
	}
	rt = xs_runtime_create(0);
	if (!rt || xs_runtime_run(rt, root, &out) || out != 987) {
		fprintf(stderr, "seed-runtime: fib(16) failed\n");
		return 1;
	}
	usleep(300000); /* a publication or two of the page */
	snprintf(pattern, sizeof(pattern), "%s/xsched-stats.%d.*", XS_STATS_SHM_DIR,
		 (int)getpid());
	if (!glob(pattern, 0, NULL, &g) && g.gl_pathc == 1) {
		char cmd[8192];

		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", g.gl_pathv[0], argv[1]);
		ret = system(cmd) ? 1 : 0;
		globfree(&g);
	} else {
		fprintf(stderr, "seed-runtime: no page matches %s\n", pattern);
	}
	xs_runtime_destroy(rt);
	return ret;
}
