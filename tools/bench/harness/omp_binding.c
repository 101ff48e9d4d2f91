/* SPDX-License-Identifier: MIT */
/*
 * omp_binding.c - which library serves xsched-bench-omp's OpenMP calls.
 *
 * Under LD_PRELOAD a symbol that the preloaded library does not define
 * still resolves - to the real libgomp the program is linked against. A
 * drop-in that lacks one entry point would then run the program half on
 * itself and half on libgomp, and the numbers would carry the wrong name.
 * So the check covers every import, not only GOMP_parallel: read the
 * undefined GOMP_* and omp_* symbols, with their versions, from this
 * executable's .dynsym, look each one up the way the dynamic linker bound
 * it, and name the library that defines it.
 *
 * The dynamic linker binds NAME@VER to the first object of the global
 * scope (the executable, the preloads, then the libraries it needs) that
 * defines NAME at VER or without a version. dlvsym() finds the first at
 * VER but skips unversioned definitions; dlsym() finds the first default
 * or unversioned one. So: both, and dlsym's wins when it comes first in
 * the scope and its definition has no version.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "omp_binding.h"

static const char *lib_of(void *sym)
{
	Dl_info info;

	if (sym && dladdr(sym, &info) && info.dli_fname)
		return info.dli_fname;
	return NULL;
}

/* A pointer of @map's dynamic section: relocated in place by ld.so on
 * most targets, left as an offset on the others. */
static const void *dyn_ptr(const struct link_map *map, ElfW(Addr) p)
{
	return (const void *)(p < map->l_addr ? p + map->l_addr : p);
}

/* Is the definition @sym of object @map unversioned? */
static bool unversioned(const struct link_map *map, const ElfW(Sym) *sym)
{
	const ElfW(Sym) *symtab = NULL;
	const ElfW(Half) *versym = NULL;

	for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			symtab = dyn_ptr(map, d->d_un.d_ptr);
		else if (d->d_tag == DT_VERSYM)
			versym = dyn_ptr(map, d->d_un.d_ptr);
	}
	if (!versym)
		return true;	/* no versions at all */
	if (!symtab || sym < symtab)
		return false;
	return (versym[sym - symtab] & 0x7fff) <= 1;	/* local or global */
}

/* Place of @map in the global scope's order. */
static int scope_index(const struct link_map *map)
{
	int i = 0;

	while (map->l_prev) {
		map = map->l_prev;
		i++;
	}
	return i;
}

/* The definition NAME@VER binds to (see the top), or NULL. */
static void *bound(const char *name, const char *ver)
{
	void *v = ver ? dlvsym(RTLD_DEFAULT, name, ver) : NULL;
	void *u = dlsym(RTLD_DEFAULT, name);
	struct link_map *vmap, *umap;
	const ElfW(Sym) *usym;
	Dl_info info;

	if (!v || !u || v == u)
		return v ? v : u;
	if (!dladdr1(u, &info, (void **)&usym, RTLD_DL_SYMENT) ||
	    !dladdr1(u, &info, (void **)&umap, RTLD_DL_LINKMAP) ||
	    !dladdr1(v, &info, (void **)&vmap, RTLD_DL_LINKMAP))
		return v;
	if (scope_index(umap) < scope_index(vmap) && unversioned(umap, usym))
		return u;
	return v;
}

const char *omp_library(void)
{
	const char *lib = lib_of(bound("GOMP_parallel", "GOMP_4.0"));

	return lib ? lib : "unknown";
}

/* The name of version @idx in the .gnu.version_r at @vn, or NULL. */
static const char *version_name(const char *base, size_t size,
				const ElfW(Shdr) *vn, const char *strs,
				unsigned idx)
{
	size_t off = vn->sh_offset;

	for (unsigned i = 0; i < vn->sh_info && off + sizeof(ElfW(Verneed)) <= size; i++) {
		const ElfW(Verneed) *need = (const ElfW(Verneed) *)(base + off);
		size_t aoff = off + need->vn_aux;

		for (unsigned k = 0; k < need->vn_cnt &&
		     aoff + sizeof(ElfW(Vernaux)) <= size; k++) {
			const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)(base + aoff);

			if ((aux->vna_other & 0x7fff) == idx)
				return strs + aux->vna_name;
			aoff += aux->vna_next;
		}
		if (!need->vn_next)
			break;
		off += need->vn_next;
	}
	return NULL;
}

int omp_stray(const char *lib, char *why, size_t len)
{
	const ElfW(Shdr) *sh, *dynsym = NULL, *versym = NULL, *verneed = NULL;
	const ElfW(Ehdr) *eh;
	const char *base, *strs;
	int fd, rc = -1;
	struct stat sb;
	size_t size;

	why[0] = '\0';
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		snprintf(why, len, "cannot read /proc/self/exe");
		goto out_fd;
	}
	size = (size_t)sb.st_size;
	base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		snprintf(why, len, "cannot map /proc/self/exe");
		goto out_fd;
	}
	eh = (const ElfW(Ehdr) *)base;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > size) {
		snprintf(why, len, "/proc/self/exe: no section headers to read");
		goto out_map;
	}
	sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
		else if (sh[i].sh_type == SHT_GNU_versym)
			versym = &sh[i];
		else if (sh[i].sh_type == SHT_GNU_verneed)
			verneed = &sh[i];
	}
	if (!dynsym || dynsym->sh_link >= eh->e_shnum) {
		snprintf(why, len, "/proc/self/exe: no .dynsym");
		goto out_map;
	}
	strs = base + sh[dynsym->sh_link].sh_offset;
	rc = 0;
	for (size_t i = 0; i < dynsym->sh_size / sizeof(ElfW(Sym)); i++) {
		const ElfW(Sym) *s = (const ElfW(Sym) *)(base + dynsym->sh_offset) + i;
		const char *name = strs + s->st_name, *ver = NULL, *where;
		void *sym;

		if (s->st_shndx != SHN_UNDEF ||
		    (strncmp(name, "GOMP_", 5) && strncmp(name, "omp_", 4)))
			continue;
		if (versym && verneed) {
			unsigned idx = ((const ElfW(Half) *)(base + versym->sh_offset))[i] & 0x7fff;

			if (idx > 1)
				ver = version_name(base, size, verneed, strs, idx);
		}
		sym = bound(name, ver);
		where = lib_of(sym);
		if (where && !strcmp(where, lib))
			continue;
		snprintf(why, len, "%s%s%s went to %s", name, ver ? "@" : "",
			 ver ? ver : "", where ? where : "no library");
		rc = 1;
		break;
	}
out_map:
	munmap((void *)base, size);
out_fd:
	if (fd >= 0)
		close(fd);
	return rc;
}
