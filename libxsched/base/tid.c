// SPDX-License-Identifier: MIT
/*
 * tid.c - the cached thread id of tid.h.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/tid.h"

__thread uint32_t xs_tid_cache __attribute__((tls_model("initial-exec")));

/* fork() copies the cache into a child whose one thread has a new id. */
static void xs_tid_forget(void)
{
	xs_tid_cache = 0;
}

static void xs_tid_register_atfork(void)
{
	pthread_atfork(NULL, NULL, xs_tid_forget);
}

uint32_t xs_tid_slow(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, xs_tid_register_atfork);
	xs_tid_cache = (uint32_t)syscall(SYS_gettid);
	return xs_tid_cache;
}
