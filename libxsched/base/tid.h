/* SPDX-License-Identifier: MIT */
/*
 * tid.h - the calling thread's kernel thread id, without a system call
 * after the first (gettid() is a real syscall: ~100 ns with mitigations,
 * too much for every job start). A forked child gets its cache reset.
 */
#ifndef XSCHED_TID_H
#define XSCHED_TID_H

#include <stdint.h>

#include "base/atomics.h"

extern __thread uint32_t xs_tid_cache __attribute__((tls_model("initial-exec")));

uint32_t xs_tid_slow(void);

static inline uint32_t xs_tid(void)
{
	uint32_t tid = xs_tid_cache;

	return xs_likely(tid) ? tid : xs_tid_slow();
}

#endif /* XSCHED_TID_H */
