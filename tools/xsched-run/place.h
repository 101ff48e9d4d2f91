/* SPDX-License-Identifier: MIT */
/*
 * place.h - xsched-run --mpi's placement of one rank (place.c): respect the
 * launcher's binding, or with --place bind the rank to its share of the
 * node's CPUs along NUMA nodes and caches; say which under --verbose.
 */
#ifndef XSCHED_RUN_PLACE_H
#define XSCHED_RUN_PLACE_H

#include <stdbool.h>

/* Find the rank's place on its node; bind it there when @place and the
 * launcher has not bound it. Messages on stderr when @verbose or @place.
 * Returns 0, or -errno when binding failed. */
int place_rank(bool place, bool verbose);

/* Under --verbose: each GPU and network device, its NUMA node, and whether
 * it is near the CPUs the rank now runs on. */
void place_show_devices(void);

#endif /* XSCHED_RUN_PLACE_H */
