/* SPDX-License-Identifier: MIT */
/*
 * tmux-test.h - drive a full-screen program through a private tmux server,
 * as the xsched-top screen tests do: tmux_sock names the server (each test
 * process sets its own), tmux() runs a tmux command on it, tmux_capture()
 * reads the pane's text, tmux_wait_for() polls the pane for a string.
 * Needs tt_sleep_ms() (xsched-top-test.h).
 */
#ifndef XS_TMUX_TEST_H
#define XS_TMUX_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmux_sock[64];

static inline int tmux(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int tmux(const char *fmt, ...)
{
	char cmd[8192];
	size_t n;
	va_list ap;

	n = (size_t)snprintf(cmd, sizeof(cmd), "tmux -f /dev/null -L %s ", tmux_sock);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The pane's text into @buf. */
static inline void tmux_capture(char *buf, size_t len)
{
	char cmd[256];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "tmux -f /dev/null -L %s capture-pane -p", tmux_sock);
	f = popen(cmd, "r");
	n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		pclose(f);
}

/* Wait up to ~3 s for @text on the screen; 1 when it came. */
static inline int tmux_wait_for(char *screen, size_t len, const char *text)
{
	for (int i = 0; i < 60; i++) {
		tmux_capture(screen, len);
		if (strstr(screen, text))
			return 1;
		tt_sleep_ms(50);
	}
	return 0;
}

#endif /* XS_TMUX_TEST_H */
