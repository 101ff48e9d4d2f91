/* SPDX-License-Identifier: MIT */
/* omp_binding.h - which library serves xsched-bench-omp's OpenMP calls. */
#ifndef XSCHED_BENCH_OMP_BINDING_H
#define XSCHED_BENCH_OMP_BINDING_H

#include <stddef.h>

/* The library that serves GOMP_parallel@GOMP_4.0, or "unknown". */
const char *omp_library(void);

/*
 * Is every GOMP_* and omp_* function this executable imports served by
 * @lib? 0: yes; 1: no, and @why names the first that is not, with its
 * version and library; -1: the imports could not be read (@why says why).
 */
int omp_stray(const char *lib, char *why, size_t len);

#endif /* XSCHED_BENCH_OMP_BINDING_H */
