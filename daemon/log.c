// SPDX-License-Identifier: MIT
/*
 * log.c - "xschedd: ..." lines on stderr (the journal under systemd).
 *
 * Under systemd, stderr is a stream to the journal (JOURNAL_STREAM names
 * its device and inode): each line then starts with its syslog priority,
 * "<3>" for an error, as sd-daemon.h's SD_ERR does, which journald strips
 * and records. Elsewhere (a terminal, a test's log file) lines are plain.
 *
 * Whatever a client can cause is logged through xsd_log_limited(): at most
 * XSD_LOG_BURST lines per call site every XSD_LOG_INTERVAL_NS, then one
 * line saying how many were left out. A client cannot flood the log.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xschedd.h"

/* -1: not looked yet, 0: plain lines, 1: journal prefixes */
static int xsd_log_journal = -1;

static bool xsd_log_to_journal(void)
{
	const char *js;
	unsigned long long dev, ino;
	struct stat st;

	if (xsd_log_journal >= 0)
		return xsd_log_journal;
	js = getenv("JOURNAL_STREAM");
	xsd_log_journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) &&
			  (unsigned long long)st.st_dev == dev &&
			  (unsigned long long)st.st_ino == ino;
	return xsd_log_journal;
}

static void xsd_vlog(int prio, const char *fmt, va_list ap)
{
	if (xsd_log_to_journal())
		fprintf(stderr, "<%d>", prio);
	fputs("xschedd: ", stderr);
	vfprintf(stderr, fmt, ap);
}

void xsd_log_at(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xsd_vlog(prio, fmt, ap);
	va_end(ap);
}

void xsd_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xsd_vlog(XSD_LOG_NOTICE, fmt, ap);
	va_end(ap);
}

void xsd_log_limited(struct xsd_ratelimit *rl, int prio, const char *fmt, ...)
{
	uint64_t now = xsd_now_ns();
	va_list ap;

	if (!rl->start_ns || now - rl->start_ns >= XSD_LOG_INTERVAL_NS) {
		if (rl->missed)
			xsd_log_at(XSD_LOG_WARNING,
				   "%u similar message(s) left out in the last %u s\n",
				   rl->missed, (unsigned int)(XSD_LOG_INTERVAL_NS / 1000000000u));
		rl->start_ns = now;
		rl->printed = 0;
		rl->missed = 0;
	}
	if (rl->printed >= XSD_LOG_BURST) {
		rl->missed++;
		return;
	}
	rl->printed++;
	va_start(ap, fmt);
	xsd_vlog(prio, fmt, ap);
	va_end(ap);
}
