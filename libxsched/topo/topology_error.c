// SPDX-License-Identifier: MIT
/*
 * topology_error.c - how the topology layer names a bad input.
 *
 * Both readers of a machine - hwloc (machine.c) and xsched's own reader of
 * a fake sysfs tree (topology.c) - report a load error as
 * "xsched: topology: <file>: <problem>", so that the user sees which file
 * or which source to fix. A file of its own because both readers call it
 * and topology.c calls machine.c: neither may call the other back.
 */
#include <stdarg.h>
#include <stdio.h>

#include "topo/topology.h"

void xs_topology_err(const char *file, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xsched: topology: %s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
