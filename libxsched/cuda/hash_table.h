/* SPDX-License-Identifier: MIT */
/*
 * hash_table.h - reading back the synchronization server's hash table
 * (host half, plain C): shared by sync_server.cu and the tests that run
 * its kernels in the host SIMT emulator.
 */
#ifndef XSCHED_CUDA_HASH_TABLE_H
#define XSCHED_CUDA_HASH_TABLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A slot holding this key is empty (keys must differ from it). */
#define XS_EMPTY_KEY 0xffffffffu

/*
 * The occupied slots of a table of @capacity (keys, vals) as (key, value)
 * pairs sorted by key into out_keys / out_vals (room for @capacity each).
 * Returns the number of pairs, or -ENOMEM.
 */
__attribute__((visibility("hidden")))
int32_t xs_hash_table_collect(const uint32_t *keys, const int64_t *vals,
			      int32_t capacity, uint32_t *out_keys,
			      int64_t *out_vals);

#ifdef __cplusplus
}
#endif

#endif /* XSCHED_CUDA_HASH_TABLE_H */
