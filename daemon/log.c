// SPDX-License-Identifier: MIT
/*
 * log.c - "xschedd: ..." lines on stderr (the journal under systemd).
 */
#include <stdarg.h>
#include <stdio.h>

#include "xschedd.h"

void xsd_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("xschedd: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
