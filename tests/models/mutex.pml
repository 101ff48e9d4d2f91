/*
 * mutex.pml - the drop-in's futex mutex (libxsched/gomp/lock.c): critical,
 * atomic, omp_set_lock and the nest lock's inner word.
 *
 * Properties: mutual exclusion (an assertion in the section) and no lost
 * wake-up: a thread asleep in FUTEX_WAIT is woken by a later unlock. spin
 * reports a thread left asleep while the others finished as an invalid end
 * state.
 *
 * The word is 0 (free), 1 (held) or 2 (held, maybe sleepers). A waiter
 * spins (any number of failed looks, then its window runs out) and then
 * sleeps until the exchange that sets 2 finds the word free; whoever
 * unlocks a word of 2 wakes one sleeper. The code's FUTEX_WAIT has a 1 ms
 * timeout, so that a sleeper answers load-balancing requests; the model
 * leaves it out, so that correctness never rests on it: a lost wake-up
 * would be a 1 ms stall per section in the code and is a deadlock here.
 *
 * Memory model: every access of the protocol is a read-modify-write (the
 * CAS, the exchanges) but the spin's relaxed peek, which only decides
 * whether to try the CAS. On x86 a locked instruction is sequentially
 * consistent, so the model needs no store buffers (compare park.pml).
 *
 * Map to the code, line by line:
 *
 *   lock()         xg_mutex_lock(), xg_mutex_lock_slow()
 *     L1  CAS 0 -> 1 (fast path or a spin's look)
 *                                   xg_mutex_trylock(): xs_cas_strong_acquire_relaxed
 *     L2  the window runs out       the spin loop's break (xg_mutex_spin_ns())
 *     L3  old = xchg(w, 2)          xs_exchange_acquire(m, 2) != 0
 *     L4  futex_wait(w, 2)          xg_futex_wait(m, 2), then L3 again
 *
 *   unlock()       xg_mutex_unlock()
 *     U1  old = xchg(w, 0)          xs_exchange_release(m, 0)
 *     U2  old == 2 -> wake one      xg_futex_wake(m): FUTEX_WAKE_PRIVATE, 1
 *
 * Mutations (each must make spin report an error, tests/models/check.sh):
 *   -DMUT_TAKE_ONE       the sleep path takes a free word with 1, not 2
 *                        (L3 as "1 if free, else 2"): the mark of the
 *                        others still asleep is gone, its unlock wakes
 *                        nobody.
 *   -DMUT_UNLOCK_SPLIT   the unlock reads the word, then stores 0 (U1 as a
 *                        load and a store): a waiter's exchange between
 *                        the two marks 2 and sleeps, the unlock read 1.
 *   -DMUT_PEEK_STORE     a spin's look takes the lock by a store after its
 *                        peek (L1 as a load and a store): two holders.
 */

#ifndef NT
#define NT 3       /* threads */
#endif
#ifndef ROUNDS
#define ROUNDS 2   /* sections per thread */
#endif

byte w;            /* the mutex word */
byte inside;       /* threads in the section */
bit asleep[NT];    /* in FUTEX_WAIT, not woken yet */
byte nasleep;

/* FUTEX_WAIT: sleeps only if the word still holds val, atomically with
 * the check (the kernel's hash-bucket lock). */
inline futex_wait(me, val) {
	atomic {
		if
		:: w == val -> asleep[me] = 1; nasleep++
		:: else
		fi
	}
	!asleep[me]
}

/* FUTEX_WAKE of 1: any one sleeper (the k-th), if there is one. */
inline futex_wake_one(j, k) {
	atomic {
		if
		:: nasleep == 0
		:: else ->
			select (k : 1 .. nasleep);
			j = 0;
			do
			:: asleep[j] && k == 1 -> break
			:: asleep[j] && k > 1 -> k--; j++
			:: !asleep[j] -> j++
			od;
			asleep[j] = 0;
			nasleep--;
			j = 0;
			k = 0
		fi
	}
}

active [NT] proctype thread() {
	byte r, old, j, k;

	do
	:: r == ROUNDS -> break
	:: else ->
		/* lock */
		if
#ifdef MUT_PEEK_STORE
		:: w == 0 -> w = 1                                  /* L1 */
#else
		:: atomic { w == 0 -> w = 1 }                       /* L1 */
#endif
		:: true ->                                          /* L2 */
			do
#ifdef MUT_TAKE_ONE
			:: atomic { old = w; w = (old == 0 -> 1 : 2) };
#else
			:: atomic { old = w; w = 2 };               /* L3 */
#endif
				if
				:: old == 0 -> break
				:: else -> futex_wait(_pid, 2)      /* L4 */
				fi
			od
		fi;

		inside++;
		assert(inside == 1);
		inside--;

		/* unlock */
#ifdef MUT_UNLOCK_SPLIT
		old = w;                                            /* U1 */
		w = 0;
#else
		atomic { old = w; w = 0 };                          /* U1 */
#endif
		if
		:: old == 2 -> futex_wake_one(j, k)                    /* U2 */
		:: else
		fi;
		r++
	od
}
