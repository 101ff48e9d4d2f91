// SPDX-License-Identifier: MIT
/*
 * topology.c - fuzz the sysfs topology parser (XSCHED_SYSFS_ROOT trees).
 *
 * Input: records "PATH\0CONTENT\0" (the last CONTENT may end the input
 * without its NUL). The target holds tests/machines/2s2n4c in memory; each
 * record replaces the file PATH of that tree by CONTENT, or adds it (any
 * path: new CPUs, nodes and cache indexes too), and a record "!PATH\0..."
 * removes the file PATH. xs_topology_load_from() (libxsched/topo/topology.c,
 * the parser xs_topology_load() runs over the file system) then reads the
 * tree from memory: no file is written per input, so the parser, not the
 * disk, sets the pace. Promises (topology.h): a refused tree returns NULL
 * with errno set; an accepted one has at least one CPU, CPU numbers
 * strictly increasing, node, core and LLC indexes below their counts, and
 * distances in 10..255.
 */
#include <ftw.h>

#include "fuzz.h"
#include "topo/topology.h"

#define MAX_ENTRIES 1024 /* files and directories of the base tree */
#define HASH_SLOTS 2048
#define MAX_RECORDS 64
#define ROOT "/fuzz/sys" /* only named in errors: nothing is read there */

struct mem_file {
	const char *rel;
	const char *text;
	size_t len;
	int removed;    /* a record "!PATH" */
	int is_dir;     /* base only: a directory, holding nfiles files */
	size_t nfiles;
};

/*
 * The base tree, read once: its files and directories, found by a hash of
 * the name. The lookups are the harness's, not the parser's, so they are
 * neither traced for coverage nor compared with strcmp() (whose hook
 * would have libFuzzer learn the base tree's names). The records of an
 * input are compared with strcmp(): that is how libFuzzer learns which
 * names the parser asks for.
 */
static struct mem_file base[MAX_ENTRIES];
static size_t nbase;
static int32_t slots[HASH_SLOTS]; /* base index + 1; 0: empty */
static size_t srclen;
static struct {
	struct mem_file over[MAX_RECORDS];
	size_t nover;
} tree;

static FUZZ_NO_COVERAGE int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Whether @path lies under directory @dir (@dir/...). */
static FUZZ_NO_COVERAGE int under(const char *path, const char *dir)
{
	while (*dir && *dir == *path)
		dir++, path++;
	return !*dir && *path == '/';
}

static FUZZ_NO_COVERAGE uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static FUZZ_NO_COVERAGE struct mem_file *base_find(const char *rel)
{
	for (uint32_t i = hash(rel) % HASH_SLOTS; slots[i]; i = (i + 1) % HASH_SLOTS)
		if (same(base[slots[i] - 1].rel, rel))
			return &base[slots[i] - 1];
	return NULL;
}

static struct mem_file *base_new(const char *rel)
{
	uint32_t i = hash(rel) % HASH_SLOTS;

	if (nbase == MAX_ENTRIES)
		return NULL;
	while (slots[i])
		i = (i + 1) % HASH_SLOTS;
	base[nbase].rel = strdup(rel);
	if (!base[nbase].rel)
		return NULL;
	slots[i] = (int32_t)++nbase;
	return &base[nbase - 1];
}

static int base_add(const char *path, const struct stat *st, int type, struct FTW *f)
{
	struct mem_file *file;
	char *text, *dir;
	FILE *in;

	(void)st;
	(void)f;
	if (type != FTW_F)
		return 0;
	in = fopen(path, "r");
	text = calloc(1, 4096);
	file = base_new(path + srclen + 1);
	if (!in || !text || !file)
		return 1;
	file->len = fread(text, 1, 4095, in);
	file->text = text;
	fclose(in);
	/* count it in every directory above it */
	dir = strdup(file->rel);
	if (!dir)
		return 1;
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		struct mem_file *d;

		*slash = '\0';
		d = base_find(dir);
		if (!d) {
			d = base_new(dir);
			if (!d)
				return 1;
			d->is_dir = 1;
		}
		d->nfiles++;
	}
	free(dir);
	return 0;
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
	return 0;
}

/* The file @rel as this input has it: a record's, else the base's, or NULL. */
static const struct mem_file *mem_find(const char *rel)
{
	const struct mem_file *f;

	for (size_t i = tree.nover; i-- > 0;)
		if (!strcmp(tree.over[i].rel, rel))
			return tree.over[i].removed ? NULL : &tree.over[i];
	f = base_find(rel);
	return f && !f->is_dir ? f : NULL;
}

/* Whether some file of this input lies under directory @rel. */
static int mem_is_dir(const char *rel)
{
	const struct mem_file *d = base_find(rel);
	size_t removed = 0;

	for (size_t i = 0; i < tree.nover; i++) {
		const struct mem_file *r = &tree.over[i];
		const struct mem_file *b;
		size_t j;

		if (!under(r->rel, rel))
			continue;
		if (!r->removed && mem_find(r->rel))
			return 1;
		/* a base file whose last record removes it */
		b = base_find(r->rel);
		for (j = i + 1; j < tree.nover && !same(tree.over[j].rel, r->rel); j++)
			;
		removed += j == tree.nover && b && !b->is_dir;
	}
	return d && d->is_dir && d->nfiles > removed;
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
