/* SPDX-License-Identifier: MIT */
/*
 * number.h - a number given on a tool's command line: the whole argument
 * must be one, within the range the option accepts, or the tool says which
 * option got which text and what it takes,
 *
 *   xsched-trace: --width '10': expected an integer in [240, 8192]
 *
 * and the caller exits with status 2 (bad usage), as every tool does.
 * Integers are decimal: "010" is ten, as a user reads it.
 *
 * Header-only, so that the tools built from one source file (tools/cuda/)
 * use the same code as the others.
 */
#ifndef XSCHED_TOOLS_NUMBER_H
#define XSCHED_TOOLS_NUMBER_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* @s as an integer in [min, max] into *out; 0, or -EINVAL after the message. */
static inline int tool_parse_long(const char *prog, const char *opt, const char *s,
				  long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = s ? strtol(s, &end, 10) : 0;
	if (!s || errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s '%s': expected an integer in [%ld, %ld]\n",
			prog, opt, s ? s : "", min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* tool_parse_long() into an int: [min, max] must lie within int's range. */
static inline int tool_parse_int(const char *prog, const char *opt, const char *s,
				 int min, int max, int *out)
{
	long v;
	int rc = tool_parse_long(prog, opt, s, min, max, &v);

	if (!rc)
		*out = (int)v;
	return rc;
}

/* @s as a number in [min, max] into *out; 0, or -EINVAL after the message. */
static inline int tool_parse_double(const char *prog, const char *opt, const char *s,
				    double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = s ? strtod(s, &end) : 0;
	if (!s || errno || end == s || *end || !(v >= min && v <= max)) {
		fprintf(stderr, "%s: %s '%s': expected a number in [%g, %g]\n",
			prog, opt, s ? s : "", min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

#endif /* XSCHED_TOOLS_NUMBER_H */
