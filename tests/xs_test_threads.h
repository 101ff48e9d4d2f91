/* SPDX-License-Identifier: MIT */
/*
 * xs_test_threads.h - this process's threads by name, from
 * /proc/self/task/TID/comm, for tests that find a runtime's worker or
 * helper thread (libxsched/base/thread_name.h names them).
 */
#ifndef XS_TEST_THREADS_H
#define XS_TEST_THREADS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* How many threads of this process are named @name (-1: /proc cannot be
 * read); *@first, when given, gets the first one's tid, or -1. */
static inline int xs_test_threads_named(const char *name, pid_t *first)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (first)
		*first = -1;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		if (strcmp(comm, name))
			continue;
		if (!n++ && first)
			*first = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return n;
}

#endif /* XS_TEST_THREADS_H */
