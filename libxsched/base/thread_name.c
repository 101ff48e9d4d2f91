// SPDX-License-Identifier: MIT
/*
 * thread_name.c - worker thread names (thread_name.h).
 */
#include <pthread.h>
#include <stdio.h>

#include "base/thread_name.h"

/* Written once by the drop-in's constructor while the process has one
 * thread, read by workers created after it: pthread_create() orders the
 * two, no atomic needed. */
static const char *xs_thread_name_prefix = XS_THREAD_NAME_NATIVE;

void xs_thread_name_prefix_set(const char *prefix)
{
	xs_thread_name_prefix = prefix;
}

void xs_thread_name_self(uint32_t id)
{
	char name[16]; /* the kernel's TASK_COMM_LEN, NUL included */

	if (id == 0)
		return;
	snprintf(name, sizeof(name), "%s%u", xs_thread_name_prefix, id);
	pthread_setname_np(pthread_self(), name);
}
