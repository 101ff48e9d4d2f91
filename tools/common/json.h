/* SPDX-License-Identifier: MIT */
/*
 * json.h - a strict, non-allocating JSON pull reader over a buffer in memory.
 *
 * The caller walks the document it expects (json_expect('{'), json_key(),
 * json_number(), ...) and skips what it does not know (json_skip(), which
 * validates as it goes and stops at JSON_MAX_DEPTH levels). The first
 * error sticks: it records a message and the byte offset, and every later
 * call fails at once, so a reader can check once per object. RFC 8259
 * grammar; no comments, no trailing commas, no NaN.
 */
#ifndef XSCHED_TOOLS_JSON_H
#define XSCHED_TOOLS_JSON_H

#include <stddef.h>

#define JSON_MAX_DEPTH 64

struct json {
	const char *buf;
	size_t len, pos;
	int failed;
	size_t err_pos;
	char err[160];
};

void json_init(struct json *j, const char *buf, size_t len);

/* Record an error at @pos (the first one wins). Returns -1. */
int json_fail_at(struct json *j, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The next non-blank byte without consuming it, or 0 at end of input. */
int json_peek(struct json *j);

/* Consume @c (one of {}[]:,) after blanks; error if something else. */
int json_expect(struct json *j, char c);

/*
 * Open an object that must have members: consume '{', store its position
 * in *at (for later errors about the whole object) and return 0 with the
 * first key next. Errors name @what ("expected @what object") or, for an
 * empty object, say @empty (at its '{').
 */
int json_object_begin(struct json *j, const char *what, const char *empty,
		      size_t *at);

/*
 * In an object or array after its first member: returns 1 and consumes ','
 * when another member follows, 0 and consumes @close when it ends, -1 on
 * anything else.
 */
int json_next(struct json *j, char close);

/* A string into @out (NUL-terminated, at most @cap - 1 bytes, \u escapes
 * as UTF-8); longer strings are an error. @out NULL: validate and skip. */
int json_string(struct json *j, char *out, size_t cap);

/* An object key and its ':' (keys longer than @cap - 1 bytes are read as
 * "" so that they are skipped as unknown). */
int json_key(struct json *j, char *out, size_t cap);

/* A number, as a double (finite). */
int json_number(struct json *j, double *out);

/* Validate and skip any value. */
int json_skip(struct json *j);

/* Require only blanks until the end of the buffer. */
int json_end(struct json *j);

/* 1-based line and column of byte @pos. */
void json_line_col(const struct json *j, size_t pos, size_t *line, size_t *col);

#endif /* XSCHED_TOOLS_JSON_H */
