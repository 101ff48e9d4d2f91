// SPDX-License-Identifier: MIT
/*
 * topology.c - fuzz the sysfs topology parser (XSCHED_SYSFS_ROOT trees).
 *
 * Input: records "PATH\0CONTENT\0" (the last CONTENT may end the input
 * without its NUL). The target keeps a copy of tests/machines/2s2n4c,
 * writes each record over the file PATH of that tree (a new file only in a
 * directory the tree has), runs xs_topology_load() (libxsched/topology.c)
 * on it, then puts the tree back. Promises (topology.h): a refused tree
 * returns NULL with errno set; an accepted one has at least one CPU, CPU
 * numbers strictly increasing, node, core and LLC indexes below
 * their counts, and distances in 10..255.
 */
#include <ftw.h>

#include "fuzz.h"
#include "topology.h"

#define MAX_FILES 512

static char root[2048];
static struct {
	char rel[256];
	char *text;
	size_t len;
} base[MAX_FILES];
static size_t nbase;
static size_t srclen;

static int base_add(const char *path, const struct stat *st, int type, struct FTW *f)
{
	FILE *in;

	(void)st;
	(void)f;
	if (type != FTW_F || nbase == MAX_FILES)
		return 0;
	snprintf(base[nbase].rel, sizeof(base[nbase].rel), "%s", path + srclen + 1);
	in = fopen(path, "r");
	if (!in)
		return 1;
	base[nbase].text = calloc(1, 4096);
	base[nbase].len = fread(base[nbase].text, 1, 4095, in);
	fclose(in);
	nbase++;
	return 0;
}

static int tree_copy(const char *path, const struct stat *st, int type, struct FTW *f)
{
	char dst[8192];

	(void)st;
	(void)f;
	snprintf(dst, sizeof(dst), "%s/%s", root, path + srclen + (path[srclen] == '/'));
	if (type == FTW_D)
		return mkdir(dst, 0755) && errno != EEXIST;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char src[4096];

	(void)argc;
	(void)argv;
	snprintf(src, sizeof(src), "%s/tests/machines/2s2n4c", fuzz_srcdir());
	snprintf(root, sizeof(root), "%s/sys", fuzz_tmpdir());
	srclen = strlen(src);
	if (nftw(src, tree_copy, 16, FTW_PHYS) || nftw(src, base_add, 16, FTW_PHYS) || !nbase) {
		fprintf(stderr, "topology: cannot copy %s to %s\n", src, root);
		exit(1);
	}
	for (size_t i = 0; i < nbase; i++) {
		char path[4400];

		snprintf(path, sizeof(path), "%s/%.255s", root, base[i].rel);
		fuzz_write_file(path, base[i].text, base[i].len);
	}
	return 0;
}

/* A path inside the tree: no "..", no empty or absolute components. */
static int rel_ok(const char *rel)
{
	if (!*rel || *rel == '/' || strlen(rel) >= 200 || strstr(rel, "..") || strstr(rel, "//"))
		return 0;
	for (const char *c = rel; *c; c++)
		if (!(*c == '/' || *c == '_' || *c == '-' || *c == '.' ||
		      (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
			return 0;
	return 1;
}

static void restore(const char *rel)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (size_t i = 0; i < nbase; i++) {
		if (!strcmp(base[i].rel, rel)) {
			fuzz_write_file(path, base[i].text, base[i].len);
			return;
		}
	}
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2), *p, *end;
	const char *written[64];
	size_t nwritten = 0;
	struct xs_topology *t;

	if (!root[0])
		LLVMFuzzerInitialize(NULL, NULL);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	end = text + size;
	for (p = text; p < end && nwritten < 64;) {
		char *rel = p, *content = p + strlen(p) + 1, path[4400];
		size_t len;
		int fd;

		if (content > end)
			break;
		len = strlen(content);
		p = content + len + 1;
		if (!rel_ok(rel))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0)
			continue; /* a directory, or no such directory */
		written[nwritten++] = rel;
		if (write(fd, content, len) != (ssize_t)len)
			abort();
		close(fd);
	}
	errno = 0;
	t = xs_topology_load(root);
	if (!t) {
		FUZZ_CHECK(errno != 0);
	} else {
		FUZZ_CHECK(t->ncpus >= 1 && t->ncpus <= XS_MAX_CPUS);
		FUZZ_CHECK(t->nnodes >= 1 && t->nnodes <= XS_MAX_NODES);
		for (uint32_t i = 0; i < t->ncpus; i++) {
			const struct xs_cpu_info *c = &t->cpus[i];

			FUZZ_CHECK(i == 0 || t->cpus[i - 1].cpu < c->cpu);
			FUZZ_CHECK(c->node < t->nnodes && c->core_group < t->ncores);
			FUZZ_CHECK(c->llc < t->nllcs);
			FUZZ_CHECK(xs_topology_cpu_index(t, c->cpu) == (int)i);
		}
		for (uint32_t a = 0; a < t->nnodes; a++)
			for (uint32_t b = 0; b < t->nnodes; b++)
				FUZZ_CHECK(t->distance[a][b] >= 10);
		xs_topology_free(t);
	}
	while (nwritten)
		restore(written[--nwritten]);
	free(text);
	return 0;
}
