/* SPDX-License-Identifier: MIT */
/*
 * scratch-user.h - an unprivileged user of its own for a test that plays
 * the other user of a shared machine: created with useradd (no home, no
 * login shell), become in a child process, removed with userdel. Needs
 * root (the tests of cross-user attacks skip, saying so, without it).
 */
#ifndef XSCHED_SCRATCH_USER_H
#define XSCHED_SCRATCH_USER_H

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct scratch_user {
	char name[32];
	uid_t uid;
	gid_t gid;
	int made;
};

/* Remove the scratch users of test processes that are gone (a test that
 * crashed before its userdel). */
static inline void scratch_user_reap(void)
{
	char names[16][32], cmd[600];
	struct passwd *pw;
	int n = 0;

	setpwent();
	while ((pw = getpwent()) && n < 16) {
		char *end;
		long pid;

		if (strncmp(pw->pw_name, "xsscratch", 9))
			continue;
		pid = strtol(pw->pw_name + 9, &end, 10);
		if (*end || pid <= 0 || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(names[n++], sizeof(names[0]), "%s", pw->pw_name);
	}
	endpwent();
	for (int i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "/usr/sbin/userdel %s 2>/dev/null", names[i]);
		if (system(cmd))
			fprintf(stderr, "scratch-user: '%s' failed\n", cmd);
	}
}

/* Create a user named after this process. NULL, or why it cannot be done
 * (for SKIP()). */
static inline const char *scratch_user_add(struct scratch_user *u)
{
	static char why[200];
	struct passwd *pw;
	char cmd[160];

	memset(u, 0, sizeof(*u));
	if (geteuid())
		return "needs root to create a scratch user (the other user of the attack)";
	if (access("/usr/sbin/useradd", X_OK) || access("/usr/sbin/userdel", X_OK))
		return "no /usr/sbin/useradd or userdel to make a scratch user";
	scratch_user_reap();
	snprintf(u->name, sizeof(u->name), "xsscratch%ld", (long)getpid());
	snprintf(cmd, sizeof(cmd),
		 "/usr/sbin/useradd --system --no-create-home --shell /usr/sbin/nologin %s",
		 u->name);
	/* Another test (or engineer) may hold the lock on /etc/passwd. */
	for (int tries = 0; system(cmd); tries++) {
		if (tries == 10) {
			snprintf(why, sizeof(why), "'%s' failed", cmd);
			return why;
		}
		usleep(200000);
	}
	u->made = 1;
	pw = getpwnam(u->name);
	if (!pw || !pw->pw_uid) {
		snprintf(why, sizeof(why), "user %s not found after useradd", u->name);
		return why;
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return NULL;
}

/* In a child: drop every privilege and become @u. 0 or -errno. */
static inline int scratch_user_become(const struct scratch_user *u)
{
	if (setgroups(0, NULL) || setgid(u->gid) || setuid(u->uid))
		return -errno;
	return getuid() == u->uid && geteuid() == u->uid ? 0 : -EPERM;
}

static inline void scratch_user_del(struct scratch_user *u)
{
	char cmd[96];

	if (!u->made)
		return;
	snprintf(cmd, sizeof(cmd), "/usr/sbin/userdel %s 2>/dev/null", u->name);
	if (system(cmd))
		fprintf(stderr, "scratch-user: '%s' failed\n", cmd);
	u->made = 0;
}

#endif /* XSCHED_SCRATCH_USER_H */
