// SPDX-License-Identifier: MIT
/*
 * account.c - where a rank's time goes: per thread and per call class, the
 * wall time inside intercepted MPI calls, and per process the time during
 * which at least one thread was inside one (the "MPI time" of the POP
 * metrics; useful time is the rest of the measured interval).
 *
 * The hot path (xs_mpi_enter/leave) takes no lock and allocates nothing
 * after a thread's first call: two clock reads, two single-writer counter
 * stores and one read-modify-write on the process's "threads inside" count.
 */
#include <stdlib.h>

#include "mpi_int.h"

const char *const xs_mpi_class_name[XS_MPI_NCLASSES] = {
	[XS_MPI_C_SEND] = "send",
	[XS_MPI_C_RECV] = "recv",
	[XS_MPI_C_SENDRECV] = "sendrecv",
	[XS_MPI_C_WAIT] = "wait",
	[XS_MPI_C_TEST] = "test",
	[XS_MPI_C_BARRIER] = "barrier",
	[XS_MPI_C_COLL] = "collective",
};

static _Thread_local struct xs_mpi_thread *self;

/* The registry of every thread's state: a lock-free stack, pushed by a
 * thread's first call, walked only by MPI_Finalize. */
static _Atomic(struct xs_mpi_thread *) threads;

/*
 * The process's MPI time as a union of intervals, in one word so that the
 * count and the start of the busy period change together:
 *
 *   bits 0-15   threads inside an accounted call
 *   bits 16-63  when the count went 0 -> 1, in 64 ns units since start_ns
 *               (2^48 units: 208 days)
 *
 * Invariant: the count is the number of threads between xs_mpi_enter()
 * and xs_mpi_leave() of their outermost call; the start field is valid
 * while the count is not 0. The thread whose CAS takes the count 1 -> 0
 * adds the period to @busy_ns. Every update is a CAS on the one word, so
 * no closer can read the start of a later period.
 */
#define BUSY_COUNT_BITS 16
#define BUSY_COUNT_MASK ((1ull << BUSY_COUNT_BITS) - 1)
#define BUSY_UNIT_SHIFT 6
static _Atomic uint64_t busy;
static _Atomic uint64_t busy_ns;

/* Accounting window: set at MPI_Init's return, cleared at MPI_Finalize.
 * Release/acquire: a thread that sees it set sees the options and lend
 * state that MPI_Init wrote before. */
static _Atomic int active;
static uint64_t start_ns;

struct xs_mpi_thread *xs_mpi_self(void)
{
	struct xs_mpi_thread *t = self, *head;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	/* Relaxed: the CAS below revalidates it. */
	head = xs_load_relaxed(&threads);
	do {
		t->next = head;
		/* Release: the zeroed state is visible to MPI_Finalize's walk,
		 * which loads the head with acquire. */
	} while (!xs_cas_weak_release(&threads, &head, t));
	self = t;
	return t;
}

bool xs_mpi_active(void)
{
	/* Acquire: pairs with the release in xs_mpi_account_start(). */
	return xs_load_acquire(&active);
}

void xs_mpi_account_start(void)
{
	start_ns = xs_now_ns();
	/* Release: publishes start_ns, the options and the lend state. */
	xs_store_release(&active, 1);
}

uint64_t xs_mpi_enter(struct xs_mpi_thread *t, enum xs_mpi_class c)
{
	uint64_t now = xs_now_ns();

	(void)c;
	if (t->depth++ == 0) {
		/* Relaxed: the CAS below revalidates it. */
		uint64_t old = xs_load_relaxed(&busy), new;

		t->enter_ns = now;
		do {
			if (old & BUSY_COUNT_MASK)
				new = old + 1;
			else
				new = ((now - start_ns) >> BUSY_UNIT_SHIFT) << BUSY_COUNT_BITS | 1;
			/* Relaxed: the word carries its own data (count and
			 * start); busy_ns is only read after every thread left. */
		} while (!xs_cas_weak_relaxed(&busy, &old, new));
	}
	return now;
}

void xs_mpi_leave(struct xs_mpi_thread *t, enum xs_mpi_class c, uint64_t t0)
{
	uint64_t now = xs_now_ns(), d = now - t0;

	/* Nested calls (an intercepted call made inside another, which the
	 * MPIs' own code does not do) count in both classes' times. */
	t->last_ns[c] = d;
	/* Single writer: load + store, no read-modify-write (see the struct). */
	xs_store_relaxed(&t->ns[c], xs_load_relaxed(&t->ns[c]) + d);
	xs_store_relaxed(&t->calls[c], xs_load_relaxed(&t->calls[c]) + 1);
	if (--t->depth == 0) {
		/* Relaxed: the CAS below revalidates it. */
		uint64_t old = xs_load_relaxed(&busy), new;

		do
			new = (old & BUSY_COUNT_MASK) == 1 ? 0 : old - 1;
		/* Relaxed: as in xs_mpi_enter(). */
		while (!xs_cas_weak_relaxed(&busy, &old, new));
		if (!new) {
			uint64_t start = start_ns + ((old >> BUSY_COUNT_BITS) << BUSY_UNIT_SHIFT);

			/* Release: a live reader (xs_mpi_account_live())
			 * that sees this period in busy_ns with acquire also
			 * sees the CAS that closed it, so it never counts the
			 * period twice. MPI_Finalize reads the sum after the
			 * threads left MPI (MPI's own synchronization). */
			xs_fetch_add_release(&busy_ns, now > start ? now - start : 0);
		}
	}
}

void xs_mpi_account_live(uint64_t now, uint64_t *elapsed_ns, uint64_t *mpi_ns)
{
	/* Acquire: pairs with the closer's release add in xs_mpi_leave(),
	 * so the load of busy below sees at least the CAS that closed every
	 * period in done (no period in both). A period closed and not yet
	 * added is in neither for that instant: the intended race. */
	uint64_t done = xs_load_acquire(&busy_ns);
	/* Relaxed: the word carries its own count and start. */
	uint64_t w = xs_load_relaxed(&busy);
	uint64_t elapsed = now > start_ns ? now - start_ns : 0, mpi = done;

	if (w & BUSY_COUNT_MASK) {
		uint64_t start = start_ns + ((w >> BUSY_COUNT_BITS) << BUSY_UNIT_SHIFT);

		mpi += now > start ? now - start : 0;
	}
	*elapsed_ns = elapsed;
	*mpi_ns = mpi < elapsed ? mpi : elapsed;
}

void xs_mpi_account_stop(struct xs_mpi_totals *out)
{
	uint64_t now = xs_now_ns();
	struct xs_mpi_thread *t;

	*out = (struct xs_mpi_totals){ 0 };
	/* Release pairs with xs_mpi_active()'s acquire: later calls (the
	 * summary's own PMPI calls are not intercepted anyway) go through. */
	xs_store_release(&active, 0);
	out->elapsed_ns = now > start_ns ? now - start_ns : 0;
	/* Relaxed: every thread has left MPI (MPI_Finalize's precondition),
	 * so no addition is in flight; the sum is whole. */
	out->mpi_ns = xs_load_relaxed(&busy_ns);
	/* Acquire: pairs with the release of each thread's registration. */
	for (t = xs_load_acquire(&threads); t; t = t->next) {
		for (int c = 0; c < XS_MPI_NCLASSES; c++) {
			out->class_ns[c] += xs_load_relaxed(&t->ns[c]);
			out->class_calls[c] += xs_load_relaxed(&t->calls[c]);
		}
	}
	if (out->mpi_ns > out->elapsed_ns)
		out->mpi_ns = out->elapsed_ns;
	xs_mpi_lend_totals(out);
}
