/* SPDX-License-Identifier: MIT */
/*
 * needed.h - which OpenMP runtime a program links, from the DT_NEEDED
 * entries of its ELF file and, transitively, of the libraries they name
 * (found as the dynamic linker would: RUNPATH/RPATH with $ORIGIN,
 * LD_LIBRARY_PATH, the default directories; /etc/ld.so.cache is not read,
 * so a library only the cache knows is not followed). xsched-run uses it
 * to say when LD_PRELOAD of the drop-in cannot put a program on xsched.
 */
#ifndef XSCHED_RUN_NEEDED_H
#define XSCHED_RUN_NEEDED_H

#include <stddef.h>

enum needed_omp {
	NEEDED_GOMP,       /* libgomp.so.1: the drop-in serves it */
	NEEDED_OTHER_OMP,  /* LLVM libomp or Intel libiomp5, and no libgomp */
	NEEDED_NO_OMP,     /* no OpenMP runtime linked (dlopen not seen) */
	NEEDED_STATIC,     /* no dynamic section: LD_PRELOAD does nothing */
	NEEDED_UNKNOWN,    /* not an ELF64 file we can read; *why says why */
};

/* Classify the program at @path. @what gets the library named (other OMP)
 * or the reason (unknown), at most @len bytes. */
enum needed_omp needed_omp_runtime(const char *path, char *what, size_t len);

#endif /* XSCHED_RUN_NEEDED_H */
