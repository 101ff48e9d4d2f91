/* SPDX-License-Identifier: MIT */
/*
 * topology-test.h - helpers shared by the tests/topo/topology-*.c programs:
 * find the source tree, generate a synthetic machine with
 * tools/xsched-mksysfs, remove it, and capture what a call prints on stderr.
 *
 * The source tree is $XS_SRCDIR (set by scripts/run-tests.sh), else the
 * directory above this header as the compiler named it.
 */
#ifndef XSCHED_TOPOLOGY_TEST_H
#define XSCHED_TOPOLOGY_TEST_H

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture-stderr.h"
#include "topo/topology.h"

static inline const char *xs_test_srcdir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("XS_SRCDIR");
	char *slash;

	if (env && *env)
		return env;
	snprintf(dir, sizeof(dir), "%s", __FILE__); /* [.../]tests/topology-test.h */
	slash = strrchr(dir, '/');
	if (!slash)
		return "..";                        /* compiled from inside tests/ */
	*slash = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return ".";                         /* "tests": relative to the tree */
	if (slash == dir)
		return "/";
	*slash = '\0';
	return dir;
}

/* Path of @rel inside the source tree, in a static buffer ("" if too long). */
static inline const char *xs_test_src(const char *rel)
{
	static char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", xs_test_srcdir(), rel) >= (int)sizeof(path))
		path[0] = '\0';
	return path;
}

/*
 * Write the machine of "xsched-mksysfs @args" into a new temporary
 * directory; @root receives <tmpdir>/sys. Returns 0, or the tool's exit
 * status (its message is on stderr).
 */
static inline int xs_test_mksysfs(char *root, size_t len, const char *args)
{
	char tmpl[] = "/tmp/xsched-topology-XXXXXX", cmd[2 * PATH_MAX];

	if (!mkdtemp(tmpl))
		return -errno;
	snprintf(root, len, "%s/sys", tmpl);
	if (snprintf(cmd, sizeof(cmd), "sh '%s' %s '%s'", xs_test_src("tools/xsched-mksysfs"),
		     args, root) >= (int)sizeof(cmd))
		return -ENAMETOOLONG;
	return system(cmd);
}

static inline int xs_test_rm_one(const char *path, const struct stat *st, int flag,
				 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the temporary directory that holds the machine at @root. */
static inline void xs_test_rmtree(const char *root)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", root);
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	/* Only one of xs_test_mksysfs()'s directories, checked after the
	 * cut: a caller that passes that directory itself instead of the
	 * machine in it must not get /tmp removed. */
	if (!strncmp(dir, "/tmp/xsched-topology-", 21) && !strchr(dir + 21, '/'))
		nftw(dir, xs_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Overwrite (or, with @text NULL, remove) <root>/<rel>. */
static inline int xs_test_write(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (!text)
		return remove(path) ? -errno : 0;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* What xs_topology_load(@root) printed on stderr, and its result. */
struct xs_test_load {
	struct xs_topology *topo;
	int err;            /* errno when topo is NULL */
	char stderr_text[4096];
};

static inline int xs_test_load_capture(const char *root, struct xs_test_load *res)
{
	struct capture c;

	memset(res, 0, sizeof(*res));
	if (capture_begin(&c))
		return -errno;
	res->topo = xs_topology_load(root);
	res->err = res->topo ? 0 : errno;
	capture_end(&c, res->stderr_text, sizeof(res->stderr_text));
	return 0;
}

#endif /* XSCHED_TOPOLOGY_TEST_H */
