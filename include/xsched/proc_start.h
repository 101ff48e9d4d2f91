/* SPDX-License-Identifier: MIT */
/*
 * xsched/proc_start.h - a process's start time, which tells a live process
 * from a later one that reuses its pid. The statistics pages carry their
 * writer's (struct xs_stats_header.pid_start); readers compare it with the
 * pid's current one. Header-only, so that libxsched, libxsched-mpi (which
 * links nothing of libxsched), the tools and any other reader of the pages
 * read it one way.
 */
#ifndef XSCHED_PROC_START_H
#define XSCHED_PROC_START_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* O_CLOEXEC is POSIX 2008: a strict C11 includer may not see it. */
#ifdef O_CLOEXEC
#define XS_PROC_START_OPEN (O_RDONLY | O_CLOEXEC)
#else
#define XS_PROC_START_OPEN O_RDONLY
#endif

/* Field 22 of /proc/<pid>/stat (clock ticks since boot), of the calling
 * process when @pid is 0; 0 when it cannot be read. The command name
 * before it may hold spaces and parentheses: fields are counted from the
 * last ')'. */
static inline uint64_t xs_proc_start_time(uint32_t pid)
{
	char path[32], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, XS_PROC_START_OPEN);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

#endif /* XSCHED_PROC_START_H */
