/* SPDX-License-Identifier: MIT */
/*
 * rss.c - peak resident memory of a cell's runs (Linux: /proc/self).
 *
 * Before each run the peak (VmHWM) is reset to the current resident size
 * by writing 5 to /proc/self/clear_refs; after it VmHWM is the run's peak,
 * everything resident included: the program's state, and for xsched the
 * runtime's pools, stacks and committed frames. The table compares
 * xsched's peak with the serial run's plus the RSS that creating the
 * runtime added (its fixed pools): see report_counters().
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "driver.h"

/* Field @name ("VmRSS", "VmHWM") of /proc/self/status in KiB, or 0. */
long rss_kib(const char *name)
{
	size_t len = strlen(name);
	char line[256];
	long kib = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			if (sscanf(line + len + 1, "%ld", &kib) != 1)
				kib = 0;
			break;
		}
	fclose(f);
	return kib;
}

/* Start a new peak at the current resident size; false if the kernel
 * cannot (then VmHWM is the process's peak so far, and not reported). */
bool rss_peak_reset(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, "5", 1) == 1;
	close(fd);
	return ok;
}

/* Around one run of @c: call with @before true just before it, false just
 * after; keeps the largest peak of the cell's runs. */
void rss_track(struct cell *c, bool before)
{
	long kib;

	if (before) {
		c->rss_ok = rss_peak_reset() && (c->reps == 0 || c->rss_ok);
		return;
	}
	kib = rss_kib("VmHWM");
	if (!kib)
		c->rss_ok = false;
	if (kib > c->peak_kib)
		c->peak_kib = kib;
}
