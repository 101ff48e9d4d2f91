/* SPDX-License-Identifier: MIT */
/*
 * json_write.h - a C string written as a JSON string: the one escaper of
 * the tools that print JSON (json.h reads it). Quotes and backslashes are
 * escaped and control characters written as \u00XX, so any text - a
 * program's name, an error message, a path - gives a valid string; other
 * bytes pass as they are.
 *
 * Header-only, so that a tool uses it without an object in its list.
 */
#ifndef XSCHED_TOOLS_JSON_WRITE_H
#define XSCHED_TOOLS_JSON_WRITE_H

#include <stdio.h>

static inline void json_put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

#endif /* XSCHED_TOOLS_JSON_WRITE_H */
