// SPDX-License-Identifier: MIT
/*
 * notify.c - tell systemd how start-up went (Type=notify).
 *
 * Under the unit, systemd names a datagram socket in NOTIFY_SOCKET and
 * counts xschedd started only when "READY=1" arrives on it: a daemon that
 * exits first (a bad /etc/default/xschedd value, BPF that must load and
 * did not) makes `systemctl start` fail with its message in the journal,
 * instead of reporting a start that was not one. Outside systemd
 * NOTIFY_SOCKET is unset and nothing is sent. The protocol is that of
 * sd_notify(3): newline-separated VAR=value lines in one datagram; a name
 * that starts with '@' is in the abstract namespace.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "xschedd.h"

int xsd_notify(const char *msg)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t n;
	int fd, ret = 0;

	if (!name || !*name)
		return 0;
	len = strlen(name);
	if ((name[0] != '/' && name[0] != '@') || len >= sizeof(sa.sun_path)) {
		xsd_log("NOTIFY_SOCKET=\"%s\": not a socket path\n", name);
		return -EINVAL;
	}
	memcpy(sa.sun_path, name, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	if (n < 0)
		ret = -errno;
	close(fd);
out:
	if (ret)
		xsd_log("NOTIFY_SOCKET %s: %s\n", name, strerror(-ret));
	return ret;
}
