// SPDX-License-Identifier: MIT
/*
 * needed.c - the OpenMP runtime a program links (needed.h): a breadth-first
 * walk over DT_NEEDED, reading each ELF64 file with pread.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "needed.h"

#define MAX_OBJECTS 128
#define MAX_NEEDED 64

struct object {
	char needed[MAX_NEEDED][256];
	int nneeded;
	char runpath[1024];     /* RUNPATH, else RPATH, $ORIGIN expanded */
};

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* File offset of virtual address @vaddr, through the PT_LOAD headers. */
static off_t vaddr_to_off(const Elf64_Phdr *ph, int n, Elf64_Addr vaddr)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr < ph[i].p_vaddr + ph[i].p_filesz)
			return (off_t)(vaddr - ph[i].p_vaddr + ph[i].p_offset);
	return -1;
}

static void expand_origin(const char *in, const char *path, char *out, size_t len)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t o = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	for (const char *p = in; *p && o + 1 < len;) {
		size_t n = !strncmp(p, "$ORIGIN", 7) ? 7 : !strncmp(p, "${ORIGIN}", 9) ? 9 : 0;

		if (n) {
			o += (size_t)snprintf(out + o, len - o, "%s", dir);
			p += n;
		} else {
			out[o++] = *p++;
		}
		if (o >= len)
			o = len - 1;
	}
	out[o] = '\0';
}

/* Read @path's dynamic section. Returns 0, 1 when it has none (static),
 * or -1 with *why set. */
static int object_read(const char *path, struct object *obj, char *why, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	Elf64_Dyn dyn;
	Elf64_Addr strtab = 0;
	Elf64_Xword needed_off[MAX_NEEDED], runpath = 0, rpath = 0;
	off_t dyn_off = -1, str_off;
	size_t dyn_size = 0;
	int fd, ret = -1, nph;

	memset(obj, 0, sizeof(*obj));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		snprintf(why, len, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(Elf64_Phdr)) {
		snprintf(why, len, "%s: not a little-endian ELF64 file", path);
		goto out;
	}
	nph = eh.e_phnum < 64 ? eh.e_phnum : 64;
	if (read_at(fd, ph, (size_t)nph * sizeof(ph[0]), (off_t)eh.e_phoff)) {
		snprintf(why, len, "%s: truncated program headers", path);
		goto out;
	}
	for (int i = 0; i < nph; i++) {
		if (ph[i].p_type == PT_DYNAMIC) {
			dyn_off = (off_t)ph[i].p_offset;
			dyn_size = ph[i].p_filesz;
		}
	}
	if (dyn_off < 0) {
		ret = 1;
		goto out;
	}
	for (size_t k = 0; k + sizeof(dyn) <= dyn_size; k += sizeof(dyn)) {
		if (read_at(fd, &dyn, sizeof(dyn), dyn_off + (off_t)k) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_STRTAB)
			strtab = dyn.d_un.d_ptr;
		else if (dyn.d_tag == DT_NEEDED && obj->nneeded < MAX_NEEDED)
			needed_off[obj->nneeded++] = dyn.d_un.d_val;
		else if (dyn.d_tag == DT_RUNPATH)
			runpath = dyn.d_un.d_val + 1;
		else if (dyn.d_tag == DT_RPATH)
			rpath = dyn.d_un.d_val + 1;
	}
	str_off = vaddr_to_off(ph, nph, strtab);
	if (str_off < 0) {
		snprintf(why, len, "%s: no string table for its dynamic section", path);
		goto out;
	}
	for (int i = 0; i < obj->nneeded; i++) {
		char *s = obj->needed[i];

		if (pread(fd, s, sizeof(obj->needed[i]) - 1, str_off + (off_t)needed_off[i]) <= 0)
			s[0] = '\0';
		s[sizeof(obj->needed[i]) - 1] = '\0';
	}
	if (runpath || rpath) {
		char raw[1024] = "";

		if (pread(fd, raw, sizeof(raw) - 1, str_off + (off_t)((runpath ? runpath : rpath) - 1)) > 0)
			expand_origin(raw, path, obj->runpath, sizeof(obj->runpath));
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/* Find library @name from @obj's runpath, LD_LIBRARY_PATH, the defaults. */
static int resolve(const char *name, const struct object *obj, char *out, size_t len)
{
	static const char *const defaults = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
					    "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu:"
					    "/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";
	const char *env = getenv("LD_LIBRARY_PATH");
	const char *lists[3] = { obj->runpath, env ? env : "", defaults };

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, R_OK);
	}
	for (int l = 0; l < 3; l++) {
		for (const char *p = lists[l]; *p;) {
			size_t n = strcspn(p, ":");

			if (n && (size_t)snprintf(out, len, "%.*s/%s", (int)n, p, name) < len &&
			    !access(out, R_OK))
				return 0;
			p += n + (p[n] == ':');
		}
	}
	return -1;
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Breadth-first over the DT_NEEDED closure of @path: @visit(name, ctx) is
 * called for every library name, and a non-zero return ends the walk with
 * that value. Returns it, 0 when the walk ended, NEEDED_WALK_STATIC for a
 * program without a dynamic section, NEEDED_WALK_UNKNOWN (@what says why)
 * when @path cannot be read.
 */
#define NEEDED_WALK_STATIC (-1)
#define NEEDED_WALK_UNKNOWN (-2)
static int needed_walk(const char *path, int (*visit)(const char *name, void *ctx), void *ctx,
		       char *what, size_t len)
{
	static char seen[MAX_OBJECTS][256];
	static char queue[MAX_OBJECTS][PATH_MAX];
	int head = 0, tail = 0, nseen = 0;
	struct object obj;
	int r;

	snprintf(queue[tail++], sizeof(queue[0]), "%s", path);
	while (head < tail) {
		char why[512];

		r = object_read(queue[head], &obj, why, sizeof(why));
		if (r < 0 && head == 0) {
			snprintf(what, len, "%s", why);
			return NEEDED_WALK_UNKNOWN;
		}
		if (r > 0 && head == 0)
			return NEEDED_WALK_STATIC;
		head++;
		if (r)
			continue;
		for (int i = 0; i < obj.nneeded; i++) {
			const char *name = obj.needed[i];
			int dup = 0, v = visit(name, ctx);

			if (v)
				return v;
			for (int k = 0; k < nseen && !dup; k++)
				dup = !strcmp(seen[k], name);
			if (dup || nseen == MAX_OBJECTS || tail == MAX_OBJECTS)
				continue;
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
			if (resolve(name, &obj, queue[tail], sizeof(queue[0])) == 0)
				tail++;
		}
	}
	return 0;
}

struct omp_ctx {
	char *what;
	size_t len;
	int other;
};

static int visit_omp(const char *name, void *ctx)
{
	struct omp_ctx *c = ctx;

	if (starts(name, "libgomp.so"))
		return 1;
	if (!c->other && (starts(name, "libomp.so") || starts(name, "libiomp5.so") ||
			  starts(name, "libomp5.so"))) {
		snprintf(c->what, c->len, "%s", name);
		c->other = 1;
	}
	return 0;
}

enum needed_omp needed_omp_runtime(const char *path, char *what, size_t len)
{
	struct omp_ctx c = { what, len, 0 };
	int r;

	what[0] = '\0';
	r = needed_walk(path, visit_omp, &c, what, len);
	if (r == NEEDED_WALK_UNKNOWN)
		return NEEDED_UNKNOWN;
	if (r == NEEDED_WALK_STATIC)
		return NEEDED_STATIC;
	if (r)
		return NEEDED_GOMP;
	return c.other ? NEEDED_OTHER_OMP : NEEDED_NO_OMP;
}

struct mpi_ctx {
	char *what;
	size_t len;
};

/* Open MPI's libmpi.so.N (40 in 4.x); MPICH's libmpich.so.12, or
 * libmpi.so.12 where MPICH (and its ABI-compatible kin) ships that name. */
static int visit_mpi(const char *name, void *ctx)
{
	struct mpi_ctx *c = ctx;

	if (starts(name, "libmpich.so") || !strcmp(name, "libmpi.so.12")) {
		snprintf(c->what, c->len, "%s", name);
		return NEEDED_MPI_MPICH;
	}
	if (starts(name, "libmpi.so")) {
		snprintf(c->what, c->len, "%s", name);
		return NEEDED_MPI_OPENMPI;
	}
	return 0;
}

enum needed_mpi needed_mpi_runtime(const char *path, char *what, size_t len)
{
	struct mpi_ctx c = { what, len };
	int r;

	what[0] = '\0';
	r = needed_walk(path, visit_mpi, &c, what, len);
	if (r == NEEDED_WALK_UNKNOWN)
		return NEEDED_MPI_UNKNOWN;
	if (r == NEEDED_WALK_STATIC)
		return NEEDED_MPI_STATIC;
	return r ? (enum needed_mpi)r : NEEDED_MPI_NONE;
}
