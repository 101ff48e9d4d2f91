/* SPDX-License-Identifier: MIT */
/*
 * capture-stderr.h - collect what the code under test writes to stderr.
 *
 *	struct capture c;
 *	capture_begin(&c);
 *	... code that prints diagnostics ...
 *	capture_end(&c, buf, sizeof buf);   // buf holds the text, NUL-terminated
 */
#ifndef XS_CAPTURE_STDERR_H
#define XS_CAPTURE_STDERR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct capture {
	int fd, saved;
};

static inline int capture_begin(struct capture *c)
{
	char path[] = "/tmp/xsched-test-stderr-XXXXXX";

	c->fd = mkstemp(path);
	if (c->fd < 0)
		return -1;
	unlink(path);
	fflush(stderr);
	c->saved = dup(2);
	dup2(c->fd, 2);
	return 0;
}

static inline void capture_end(struct capture *c, char *buf, size_t len)
{
	ssize_t n;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = pread(c->fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(c->fd);
}

#endif /* XS_CAPTURE_STDERR_H */
