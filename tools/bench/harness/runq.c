/* SPDX-License-Identifier: MIT */
/*
 * runq.c - how long a cell's threads waited for a CPU (Linux schedstat).
 *
 * /proc/self/task/TID/schedstat holds three numbers per thread: ns on a
 * CPU, ns runnable but waiting for one (on a run queue), time slices. The
 * sum of the second over every thread of this process, before and after
 * each xsched run, is the time the workers spent preempted: by other
 * programs on the machine, or by a teammate sharing their CPU (an
 * unpinned worker 0 that Linux placed on a pinned worker's CPU). The
 * table prints it as runq%, of threads x run time: near 0 on a quiet
 * machine whose workers each have a CPU, up to 50 at 2 threads when two
 * workers share one CPU. It tells a slow run that was the machine's from
 * one that was the runtime's (docs/perf/core.md, health).
 *
 * Linux books a wait when the thread gets a CPU again, whole: a wait that
 * began before a run counts in it, and the process's other threads (the
 * stats page's) count too, so a run of a few milliseconds can show more
 * than 100. Runs much longer than a time slice (health's, about a second)
 * are off by at most a slice or two.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "driver.h"

int runq_parse(const char *line, uint64_t *run_ns, uint64_t *wait_ns)
{
	uint64_t slices;
	int end = 0;

	if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 "%n", run_ns, wait_ns, &slices,
		   &end) != 3 || (line[end] && line[end] != '\n'))
		return -EINVAL;
	return 0;
}

int64_t runq_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int64_t sum = 0;
	int err = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && !err) {
		char path[64], line[128];
		uint64_t run, wait;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (!f) {
			/* A thread that exited since readdir(): nothing to add. */
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		if (!fgets(line, sizeof(line), f) || runq_parse(line, &run, &wait))
			err = -EINVAL;
		else
			sum += (int64_t)wait;
		fclose(f);
	}
	closedir(d);
	return err ? err : sum;
}
