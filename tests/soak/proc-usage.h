/* SPDX-License-Identifier: MIT */
/*
 * proc-usage.h - what the soak programs report about themselves to show
 * that nothing grows: resident memory and open file descriptors, read from
 * /proc/self.
 */
#ifndef XS_SOAK_PROC_USAGE_H
#define XS_SOAK_PROC_USAGE_H

#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

/* Resident set size in KiB (0 when /proc cannot be read). */
static inline long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	if (f)
		fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Open file descriptors, not counting the one this count opens. */
static inline int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = -3; /* ".", ".." and the DIR's own */

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

#endif /* XS_SOAK_PROC_USAGE_H */
