// SPDX-License-Identifier: MIT
/*
 * affinity_fmt.c - the affinity format (OMP_AFFINITY_FORMAT,
 * omp_set_affinity_format, omp_display_affinity, omp_capture_affinity).
 *
 * A format is text with fields: %[0][.][width]X or %[0][.][width]{name},
 * X one of t T L n N a H P i A (team_num, num_teams, nesting_level,
 * thread_num, num_threads, ancestor_tnum, host, process_id,
 * native_thread_id, thread_affinity) and %% a percent sign. A field is
 * left-justified in its width; "." right-justifies it, "0." pads numbers
 * with zeros after their sign (or 0x), as libgomp prints them. The native
 * thread id is the pthread_t, in hex; thread_affinity the calling thread's
 * CPUs as a list of ranges. A malformed format is fatal, naming it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gomp.h"

#define XG_DEFAULT_AFFINITY_FORMAT "level %L thread %i affinity %A"

static pthread_mutex_t xg_format_lock = PTHREAD_MUTEX_INITIALIZER;
static char *xg_format;

const char *xg_affinity_format(void)
{
	return xg_format ? xg_format : XG_DEFAULT_AFFINITY_FORMAT;
}

__attribute__((constructor)) static void xg_affinity_format_env(void)
{
	const char *v = getenv("OMP_AFFINITY_FORMAT");

	if (v)
		xg_format = strdup(v);
}

XG_EXPORT void omp_set_affinity_format(const char *format)
{
	char *copy = strdup(format ? format : "");

	if (!copy) {
		xg_warn("out of memory for an affinity format");
		abort();
	}
	pthread_mutex_lock(&xg_format_lock);
	free(xg_format); /* a concurrent reader is the program's race */
	xg_format = copy;
	pthread_mutex_unlock(&xg_format_lock);
}

/* Copy @s (length @len) into @buf of @size as strncpy-with-NUL would. */
static size_t xg_copy_out(char *buf, size_t size, const char *s, size_t len)
{
	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(buf, s, n);
		buf[n] = '\0';
	}
	return len;
}

XG_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
{
	const char *f = xg_affinity_format();

	return xg_copy_out(buffer, size, f, strlen(f));
}

/* Output being built: bytes beyond @size are counted, not stored. */
struct xg_out {
	char *buf;
	size_t size, len;
};

static void xg_put(struct xg_out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void xg_pad(struct xg_out *o, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xg_put(o, &c, 1);
}

/* A field's text @s in @width (SIZE_MAX: none); numbers zero-padded. */
static void xg_field(struct xg_out *o, const char *s, bool zero, bool right, size_t width,
		     bool number)
{
	size_t n = strlen(s);

	if (width == SIZE_MAX || n >= width) {
		xg_put(o, s, n);
	} else if (zero && number) {
		size_t skip = s[0] == '-' ? 1 : s[0] == '0' && s[1] == 'x' ? 2 : 0;

		xg_put(o, s, skip);
		xg_pad(o, '0', width - n);
		xg_put(o, s + skip, n - skip);
	} else if (right) {
		xg_pad(o, ' ', width - n);
		xg_put(o, s, n);
	} else {
		xg_put(o, s, n);
		xg_pad(o, ' ', width - n);
	}
}

/* The calling thread's CPUs: "0-3,8". */
static void xg_affinity_text(char *text, size_t size)
{
	cpu_set_t set;
	size_t at = 0;

	text[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;

		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		if (at + 24 >= size)
			break;
		at += (size_t)snprintf(text + at, size - at, e > c ? "%s%d-%d" : "%s%d",
				       at ? "," : "", c, e);
		c = e;
	}
}

static const struct {
	const char *name;
	char c;
} xg_long_names[] = {
	{ "team_num", 't' }, { "num_teams", 'T' }, { "nesting_level", 'L' },
	{ "thread_num", 'n' }, { "num_threads", 'N' }, { "ancestor_tnum", 'a' },
	{ "host", 'H' }, { "process_id", 'P' }, { "native_thread_id", 'i' },
	{ "thread_affinity", 'A' },
};

static __attribute__((noreturn)) void xg_bad_format(const char *format, const char *why)
{
	xg_warn("affinity format '%s': %s", format, why);
	abort();
}

static size_t xg_format_affinity(char *buf, size_t size, const char *format)
{
	struct xg_out o = { buf, size, 0 };
	const char *p = format;
	char text[1024];

	while (*p) {
		const char *pct = strchr(p, '%');
		bool zero = false, right = false, number = true;
		size_t width = SIZE_MAX;
		char c;

		if (!pct) {
			xg_put(&o, p, strlen(p));
			break;
		}
		xg_put(&o, p, (size_t)(pct - p));
		p = pct + 1;
		if (*p == '%') {
			xg_put(&o, "%", 1);
			p++;
			continue;
		}
		if (*p == '0') {
			zero = true;
			if (*++p != '.')
				xg_bad_format(format, "a leading 0 must be followed by '.'");
		}
		if (*p == '.') {
			right = true;
			p++;
		}
		if (*p >= '1' && *p <= '9') {
			char *end;

			width = strtoul(p, &end, 10);
			p = end;
		} else if (zero || right) {
			xg_bad_format(format, "0 or . needs a width");
		}
		c = *p;
		if (c == '{') {
			const char *close = strchr(p, '}');

			c = 0;
			for (size_t i = 0; close && i < sizeof(xg_long_names) / sizeof(xg_long_names[0]);
			     i++)
				if (strlen(xg_long_names[i].name) == (size_t)(close - p - 1) &&
				    !strncmp(p + 1, xg_long_names[i].name, (size_t)(close - p - 1)))
					c = xg_long_names[i].c;
			if (!c)
				xg_bad_format(format, "unknown or unterminated {name}");
			p = close;
		}
		switch (c) {
		case 't':
			snprintf(text, sizeof(text), "%d", (int)xg_league.team_num);
			break;
		case 'T':
			snprintf(text, sizeof(text), "%d", (int)xg_league.num_teams + 1);
			break;
		case 'L':
			snprintf(text, sizeof(text), "%u", xg_task_self()->team->level);
			break;
		case 'n':
			snprintf(text, sizeof(text), "%u", xg_thread_num());
			break;
		case 'N':
			snprintf(text, sizeof(text), "%u", xg_team_size());
			break;
		case 'a': {
			const struct xg_team *team = xg_task_self()->team;

			snprintf(text, sizeof(text), "%d",
				 team->level ? (int)team->parent_tid : -1);
			break;
		}
		case 'H':
			if (gethostname(text, sizeof(text) - 1))
				strcpy(text, "node");
			text[sizeof(text) - 1] = '\0';
			number = false;
			break;
		case 'P':
			snprintf(text, sizeof(text), "%d", (int)getpid());
			break;
		case 'i':
			snprintf(text, sizeof(text), "0x%lx", (unsigned long)pthread_self());
			break;
		case 'A':
			xg_affinity_text(text, sizeof(text));
			number = false;
			break;
		default:
			xg_bad_format(format, "unknown field type");
		}
		xg_field(&o, text, zero, right, width, number);
		p++;
	}
	return o.len;
}

XG_EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
	size_t len;

	if (!format || !*format)
		format = xg_affinity_format();
	len = xg_format_affinity(buffer, size, format);
	if (size)
		buffer[len < size ? len : size - 1] = '\0';
	return len;
}

XG_EXPORT void omp_display_affinity(const char *format)
{
	char small[512], *buf = small;
	size_t len;

	if (!format || !*format)
		format = xg_affinity_format();
	len = xg_format_affinity(small, sizeof(small), format);
	if (len >= sizeof(small)) {
		buf = malloc(len + 1);
		if (!buf)
			return;
		xg_format_affinity(buf, len + 1, format);
	}
	buf[len] = '\0';
	fprintf(stderr, "%s\n", buf);
	if (buf != small)
		free(buf);
}
