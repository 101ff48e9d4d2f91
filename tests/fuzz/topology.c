// SPDX-License-Identifier: MIT
/*
 * topology.c - fuzz the sysfs topology parser (XSCHED_SYSFS_ROOT trees).
 *
 * Input: records "PATH\0CONTENT\0" (the last CONTENT may end the input
 * without its NUL). The target holds tests/machines/2s2n4c in memory; each
 * record replaces the file PATH of that tree by CONTENT, or adds it (any
 * path: new CPUs, nodes and cache indexes too), and a record "!PATH\0..."
 * removes the file PATH. xs_topology_load_from() (libxsched/topology.c,
 * the parser xs_topology_load() runs over the file system) then reads the
 * tree from memory: no file is written per input, so the parser, not the
 * disk, sets the pace. Promises (topology.h): a refused tree returns NULL
 * with errno set; an accepted one has at least one CPU, CPU numbers
 * strictly increasing, node, core and LLC indexes below their counts, and
 * distances in 10..255.
 */
#include <ftw.h>

#include "fuzz.h"
#include "topology.h"

#define MAX_FILES 512
#define MAX_RECORDS 64
#define ROOT "/fuzz/sys" /* only named in errors: nothing is read there */

struct mem_file {
	const char *rel;
	const char *text;
	size_t len;
	int removed;
};

/* The base tree, read once, then this input's records over it. */
static struct mem_file base[MAX_FILES];
static size_t nbase;
static size_t srclen;
static struct {
	struct mem_file over[MAX_RECORDS];
	size_t nover;
} tree;

static int base_add(const char *path, const struct stat *st, int type, struct FTW *f)
{
	char *text;
	FILE *in;

	(void)st;
	(void)f;
	if (type != FTW_F)
		return 0;
	if (nbase == MAX_FILES)
		return 1;
	in = fopen(path, "r");
	text = calloc(1, 4096);
	if (!in || !text)
		return 1;
	base[nbase].len = fread(text, 1, 4095, in);
	base[nbase].text = text;
	base[nbase].rel = strdup(path + srclen + 1);
	fclose(in);
	if (!base[nbase].rel)
		return 1;
	nbase++;
	return 0;
}

static int base_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mem_file *)a)->rel, ((const struct mem_file *)b)->rel);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char src[4096];

	(void)argc;
	(void)argv;
	snprintf(src, sizeof(src), "%s/tests/machines/2s2n4c", fuzz_srcdir());
	srclen = strlen(src);
	if (nftw(src, base_add, 16, FTW_PHYS) || !nbase) {
		fprintf(stderr, "topology: cannot read the tree %s\n", src);
		exit(1);
	}
	qsort(base, nbase, sizeof(base[0]), base_cmp);
	return 0;
}

/* Index of the first base file whose name is >= @rel (base is sorted). */
static size_t base_lower(const char *rel)
{
	size_t lo = 0, hi = nbase;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(base[mid].rel, rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The file @rel as this input has it: a record's, else the base's, or NULL. */
static const struct mem_file *mem_find(const char *rel)
{
	size_t i;

	for (i = tree.nover; i-- > 0;)
		if (!strcmp(tree.over[i].rel, rel))
			return tree.over[i].removed ? NULL : &tree.over[i];
	i = base_lower(rel);
	return i < nbase && !strcmp(base[i].rel, rel) ? &base[i] : NULL;
}

/* Whether some file of this input lies under directory @rel. */
static int mem_is_dir(const char *rel)
{
	size_t len = strlen(rel);

	for (size_t i = 0; i < tree.nover; i++)
		if (!strncmp(tree.over[i].rel, rel, len) && tree.over[i].rel[len] == '/' &&
		    mem_find(tree.over[i].rel))
			return 1;
	/* the base files under rel/ sort together, right after rel */
	for (size_t i = base_lower(rel); i < nbase && !strncmp(base[i].rel, rel, len); i++)
		if (base[i].rel[len] == '/' && mem_find(base[i].rel))
			return 1;
	return 0;
}

static ssize_t mem_read(void *ctx, const char *path, const char *rel, char *buf, size_t cap)
{
	const struct mem_file *f = mem_find(rel);
	size_t n;

	(void)ctx;
	FUZZ_CHECK(!strncmp(path, ROOT "/", sizeof(ROOT)) && !strcmp(path + sizeof(ROOT), rel));
	if (!f)
		return mem_is_dir(rel) ? -EISDIR : -ENOENT;
	n = f->len < cap ? f->len : cap;
	memcpy(buf, f->text, n);
	return (ssize_t)n;
}

static int mem_exists(void *ctx, const char *path, const char *rel)
{
	(void)ctx;
	(void)path;
	return mem_find(rel) || mem_is_dir(rel);
}

static const struct xs_topology_files mem_files = { .read = mem_read, .exists = mem_exists };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2), *p, *end;
	struct xs_topology *t;

	if (!nbase)
		LLVMFuzzerInitialize(NULL, NULL);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	end = text + size;
	tree.nover = 0;
	for (p = text; p < end && tree.nover < MAX_RECORDS;) {
		char *rel = p, *content = p + strlen(p) + 1;
		struct mem_file *f = &tree.over[tree.nover];

		if (content > end)
			break;
		f->len = strlen(content);
		p = content + f->len + 1;
		f->removed = *rel == '!';
		f->rel = rel + f->removed;
		f->text = content;
		if (*f->rel)
			tree.nover++;
	}
	errno = 0;
	t = xs_topology_load_from(ROOT, &mem_files);
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
	tree.nover = 0;
	free(text);
	return 0;
}
