/* SPDX-License-Identifier: MIT */
/*
 * needed.h - which OpenMP runtime a program links, from the DT_NEEDED
 * entries of its ELF file and, transitively, of the libraries they name
 * (found as the dynamic linker would: RUNPATH/RPATH with $ORIGIN,
 * LD_LIBRARY_PATH, the default directories; /etc/ld.so.cache is not read,
 * so a library only the cache knows is not followed). xsched-run uses it
 * to say when LD_PRELOAD of the drop-in cannot put a program on xsched,
 * and with --mpi to pick libxsched-mpi for the MPI the program links.
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

/* Which MPI a program links (xsched-run --mpi): the library built for it
 * is the one to preload, as their ABIs differ. */
enum needed_mpi {
	NEEDED_MPI_NONE = 0,   /* no MPI library in the DT_NEEDED closure */
	NEEDED_MPI_OPENMPI = 1, /* libmpi.so.N, N != 12 (Open MPI: 40) */
	NEEDED_MPI_MPICH = 2,  /* libmpich.so.12, or libmpi.so.12 (the MPICH ABI) */
	NEEDED_MPI_STATIC,     /* no dynamic section */
	NEEDED_MPI_UNKNOWN,    /* not an ELF64 file we can read; *what says why */
};

/* Classify the program at @path; @what gets the library named or the
 * reason, at most @len bytes. */
enum needed_mpi needed_mpi_runtime(const char *path, char *what, size_t len);

#endif /* XSCHED_RUN_NEEDED_H */
