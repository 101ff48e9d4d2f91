// SPDX-License-Identifier: MIT
/*
 * guard.c - reading a mapping that another user may truncate.
 *
 * xsched-top maps files that other users own (their statistics pages;
 * xschedd's state it reads with pread(), xsched/abi_pread.h). Their owner
 * can shrink such a file at any moment; a load from a mapped page past the new end of
 * the file raises SIGBUS, which would kill the tool. Every read of a
 * mapping therefore happens inside top_guard(): a SIGBUS that a load in
 * its callback raises ends the callback early and top_guard() returns
 * -EFAULT; the caller drops what it copied. Outside top_guard() SIGBUS
 * keeps its default action, and SIGSEGV is never caught: a bad address
 * is a bug of the reader (offsets are checked before they are followed)
 * and must still kill the tool.
 *
 * The callback only copies (loads from the mapping, stores to private
 * memory): it holds no lock and allocates nothing, so leaving it from the
 * signal handler with siglongjmp() loses nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "top.h"

/* The guard of this thread, NULL outside top_guard(). Written and read
 * only by this thread (the handler runs on the thread that faulted), so a
 * volatile pointer is all the ordering needed against the handler. */
static __thread sigjmp_buf *volatile top_guard_env;

static void top_guard_handler(int sig, siginfo_t *si, void *ctx)
{
	sigjmp_buf *env = top_guard_env;

	(void)si;
	(void)ctx;
	if (env) {
		top_guard_env = NULL;
		siglongjmp(*env, 1);
	}
	/* Not ours: the default action, on the faulting load when it is
	 * executed again after this return. */
	signal(sig, SIG_DFL);
}

static void top_guard_install(void)
{
	static int installed;
	struct sigaction sa;

	if (installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = top_guard_handler;
	/* SA_NODEFER: the signal is not blocked while the handler runs, so
	 * the siglongjmp() out of it (sigsetjmp without a saved mask: no
	 * system call per guard) leaves the mask as it was. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	installed = 1;
}

int top_guard(void (*fn)(void *arg), void *arg)
{
	sigjmp_buf env;

	top_guard_install();
	if (sigsetjmp(env, 0)) {
		/* The handler cleared top_guard_env. */
		return -EFAULT;
	}
	top_guard_env = &env;
	fn(arg);
	top_guard_env = NULL;
	return 0;
}
