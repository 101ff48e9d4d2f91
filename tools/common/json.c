// SPDX-License-Identifier: MIT
/*
 * json.c - the strict JSON pull reader of json.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, const char *buf, size_t len)
{
	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->len = len;
}

int json_fail_at(struct json *j, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (j->failed)
		return -1;
	j->failed = 1;
	j->err_pos = pos;
	va_start(ap, fmt);
	vsnprintf(j->err, sizeof(j->err), fmt, ap);
	va_end(ap);
	/* Strings quoted from the file may hold decoded control characters
	 * ("\n", ESC): the message stays one printable line. */
	for (char *c = j->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* A printable description of the byte at @pos, for messages. */
static const char *json_what(const struct json *j, size_t pos, char *tmp, size_t cap)
{
	unsigned char c;

	if (pos >= j->len)
		return "end of file";
	c = (unsigned char)j->buf[pos];
	if (c >= 0x20 && c < 0x7f)
		snprintf(tmp, cap, "'%c'", c);
	else
		snprintf(tmp, cap, "byte 0x%02x", c);
	return tmp;
}

static void json_blanks(struct json *j)
{
	while (j->pos < j->len) {
		char c = j->buf[j->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		j->pos++;
	}
}

int json_peek(struct json *j)
{
	if (j->failed)
		return 0;
	json_blanks(j);
	return j->pos < j->len ? (unsigned char)j->buf[j->pos] : 0;
}

int json_expect(struct json *j, char c)
{
	char tmp[16];

	if (j->failed)
		return -1;
	json_blanks(j);
	if (j->pos < j->len && j->buf[j->pos] == c) {
		j->pos++;
		return 0;
	}
	return json_fail_at(j, j->pos, "expected '%c', found %s", c,
			    json_what(j, j->pos, tmp, sizeof(tmp)));
}

int json_object_begin(struct json *j, const char *what, const char *empty,
		      size_t *at)
{
	if (json_peek(j) != '{')
		return json_fail_at(j, j->pos, "expected %s object%s", what,
				    j->pos >= j->len ? ", found end of file" : "");
	*at = j->pos;
	if (json_expect(j, '{'))
		return -1;
	if (json_peek(j) == '}') {
		j->pos++;
		return json_fail_at(j, *at, "%s", empty);
	}
	return 0;
}

int json_next(struct json *j, char close)
{
	char tmp[16];

	if (j->failed)
		return -1;
	json_blanks(j);
	if (j->pos < j->len && j->buf[j->pos] == ',') {
		j->pos++;
		return 1;
	}
	if (j->pos < j->len && j->buf[j->pos] == close) {
		j->pos++;
		return 0;
	}
	return json_fail_at(j, j->pos, "expected ',' or '%c', found %s", close,
			    json_what(j, j->pos, tmp, sizeof(tmp)));
}

static int json_hex4(struct json *j, size_t at, unsigned int *out)
{
	unsigned int v = 0;

	if (j->len - at < 4)
		return json_fail_at(j, j->len, "unexpected end of file in a \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = j->buf[at + (size_t)i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return json_fail_at(j, at + (size_t)i, "bad hex digit in a \\u escape");
	}
	*out = v;
	return 0;
}

/* Append @n bytes to @out if it has room; remember overflow in *@over. */
static void json_put(char *out, size_t cap, size_t *n, const char *s, size_t len, int *over)
{
	if (!out)
		return;
	if (*n + len + 1 > cap) {
		*over = 1;
		return;
	}
	memcpy(out + *n, s, len);
	*n += len;
	out[*n] = '\0';
}

static int json_string_impl(struct json *j, char *out, size_t cap, int *over)
{
	size_t start, n = 0;
	char tmp[16];

	*over = 0;
	if (out && cap)
		out[0] = '\0';
	if (out && !cap)
		out = NULL;
	if (j->failed)
		return -1;
	json_blanks(j);
	start = j->pos;
	if (j->pos >= j->len || j->buf[j->pos] != '"')
		return json_fail_at(j, j->pos, "expected a string, found %s",
				    json_what(j, j->pos, tmp, sizeof(tmp)));
	j->pos++;
	for (;;) {
		unsigned char c;

		if (j->pos >= j->len)
			return json_fail_at(j, j->len,
					    "unexpected end of file in the string that starts at byte %zu",
					    start);
		c = (unsigned char)j->buf[j->pos];
		if (c == '"') {
			j->pos++;
			return 0;
		}
		if (c < 0x20)
			return json_fail_at(j, j->pos, "control character 0x%02x in a string", c);
		if (c != '\\') {
			json_put(out, cap, &n, (const char *)&c, 1, over);
			j->pos++;
			continue;
		}
		if (j->pos + 1 >= j->len)
			return json_fail_at(j, j->len, "unexpected end of file in an escape");
		c = (unsigned char)j->buf[j->pos + 1];
		const char *rep = NULL;

		switch (c) {
		case '"': rep = "\""; break;
		case '\\': rep = "\\"; break;
		case '/': rep = "/"; break;
		case 'b': rep = "\b"; break;
		case 'f': rep = "\f"; break;
		case 'n': rep = "\n"; break;
		case 'r': rep = "\r"; break;
		case 't': rep = "\t"; break;
		case 'u': {
			unsigned int u = 0;
			char utf[3];

			if (json_hex4(j, j->pos + 2, &u))
				return -1;
			j->pos += 6;
			/* Only names are kept: code points past U+07FF (and
			 * surrogates) become '?'. */
			if (u < 0x80) {
				utf[0] = (char)u;
				json_put(out, cap, &n, utf, 1, over);
			} else if (u < 0x800) {
				utf[0] = (char)(0xc0 | (u >> 6));
				utf[1] = (char)(0x80 | (u & 0x3f));
				json_put(out, cap, &n, utf, 2, over);
			} else {
				json_put(out, cap, &n, "?", 1, over);
			}
			continue;
		}
		default:
			return json_fail_at(j, j->pos, "bad escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
		}
		json_put(out, cap, &n, rep, 1, over);
		j->pos += 2;
	}
}

int json_string(struct json *j, char *out, size_t cap)
{
	size_t start;
	int over;

	json_blanks(j);
	start = j->pos;
	if (json_string_impl(j, out, cap, &over))
		return -1;
	if (over)
		return json_fail_at(j, start, "string longer than %zu bytes", cap - 1);
	return 0;
}

int json_key(struct json *j, char *out, size_t cap)
{
	int over;

	if (json_string_impl(j, out, cap, &over))
		return -1;
	if (over && out && cap)
		out[0] = '\0';
	return json_expect(j, ':');
}

int json_number(struct json *j, double *out)
{
	size_t start, p;
	char tmp[64];
	const char *b;

	if (j->failed)
		return -1;
	json_blanks(j);
	start = p = j->pos;
	b = j->buf;
#define DIGIT(i) ((i) < j->len && b[i] >= '0' && b[i] <= '9')
	if (p < j->len && b[p] == '-')
		p++;
	if (!DIGIT(p))
		return json_fail_at(j, p, "expected a number, found %s",
				    json_what(j, p, tmp, sizeof(tmp)));
	if (b[p] == '0')
		p++;
	else
		while (DIGIT(p))
			p++;
	if (p < j->len && b[p] == '.') {
		p++;
		if (!DIGIT(p))
			return json_fail_at(j, p, "expected a digit after '.', found %s",
					    json_what(j, p, tmp, sizeof(tmp)));
		while (DIGIT(p))
			p++;
	}
	if (p < j->len && (b[p] == 'e' || b[p] == 'E')) {
		p++;
		if (p < j->len && (b[p] == '+' || b[p] == '-'))
			p++;
		if (!DIGIT(p))
			return json_fail_at(j, p, "expected an exponent digit, found %s",
					    json_what(j, p, tmp, sizeof(tmp)));
		while (DIGIT(p))
			p++;
	}
#undef DIGIT
	if (p - start >= sizeof(tmp))
		return json_fail_at(j, start, "number longer than %zu characters", sizeof(tmp) - 1);
	memcpy(tmp, b + start, p - start);
	tmp[p - start] = '\0';
	*out = strtod(tmp, NULL);
	if (!isfinite(*out))
		return json_fail_at(j, start, "number %s out of range", tmp);
	j->pos = p;
	return 0;
}

static int json_literal(struct json *j, const char *word)
{
	size_t n = strlen(word);

	if (j->len - j->pos < n || memcmp(j->buf + j->pos, word, n))
		return json_fail_at(j, j->pos, "expected a value");
	j->pos += n;
	return 0;
}

static int json_skip_depth(struct json *j, int depth)
{
	char tmp[16];
	double d;
	int c, more;

	c = json_peek(j);
	if (j->failed)
		return -1;
	if ((c == '{' || c == '[') && depth >= JSON_MAX_DEPTH)
		return json_fail_at(j, j->pos, "nested deeper than %d levels", JSON_MAX_DEPTH);
	switch (c) {
	case '{':
		j->pos++;
		if (json_peek(j) == '}') {
			j->pos++;
			return 0;
		}
		do {
			if (json_key(j, NULL, 0) || json_skip_depth(j, depth + 1))
				return -1;
		} while ((more = json_next(j, '}')) == 1);
		return more;
	case '[':
		j->pos++;
		if (json_peek(j) == ']') {
			j->pos++;
			return 0;
		}
		do {
			if (json_skip_depth(j, depth + 1))
				return -1;
		} while ((more = json_next(j, ']')) == 1);
		return more;
	case '"':
		return json_string(j, NULL, 0);
	case 't':
		return json_literal(j, "true");
	case 'f':
		return json_literal(j, "false");
	case 'n':
		return json_literal(j, "null");
	case '-':
	case '0' ... '9':
		return json_number(j, &d);
	default:
		return json_fail_at(j, j->pos, "expected a value, found %s",
				    json_what(j, j->pos, tmp, sizeof(tmp)));
	}
}

int json_skip(struct json *j)
{
	return json_skip_depth(j, 1);
}

int json_end(struct json *j)
{
	char tmp[16];

	if (j->failed)
		return -1;
	json_blanks(j);
	if (j->pos != j->len)
		return json_fail_at(j, j->pos, "trailing data after the JSON document: %s",
				    json_what(j, j->pos, tmp, sizeof(tmp)));
	return 0;
}

void json_line_col(const struct json *j, size_t pos, size_t *line, size_t *col)
{
	size_t l = 1, c = 1;

	if (pos > j->len)
		pos = j->len;
	for (size_t i = 0; i < pos; i++) {
		if (j->buf[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}
