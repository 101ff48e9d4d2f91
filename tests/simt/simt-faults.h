/* SPDX-License-Identifier: MIT */
/*
 * simt-faults.h - buggy kernels for the host SIMT emulator's own test
 * (faults.cc): the checks of simt.h must fire on them.
 */
#ifndef XSCHED_TESTS_SIMT_FAULTS_H
#define XSCHED_TESTS_SIMT_FAULTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Run the faulty kernel @name (one launch; the emulator should abort):
 * barrier-inside-warp-collective, collective-with-exited-lane,
 * shuffle-outside-mask, spin-for-ever. -EINVAL for another name. */
int xs_simt_fault(const char *name);

/* What 8 rounds of a 128-thread block reduction of in[i] = i % 13 + 1
 * (i < 1024) add up to, with or without the barrier that ends each round,
 * under scheduler seed @seed. */
long long xs_simt_block_sum(int with_barrier, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* XSCHED_TESTS_SIMT_FAULTS_H */
