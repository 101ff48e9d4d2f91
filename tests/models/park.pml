/*
 * park.pml - the park/notify handshake (libxsched/queue/park.c, park.h).
 *
 * Property: no lost wake-up. A sleeper that finds no work parks; a
 * notifier publishes one item of work, then notifies. In every
 * interleaving the sleeper ends having consumed the item: spin reports a
 * sleeper left blocked in futex_wait as an invalid end state.
 *
 * Memory model. Under sequential consistency the handshake is trivially
 * right; what the fences buy is against store buffering (x86-TSO: a store
 * waits in its CPU's buffer while later loads go ahead). So each thread's
 * stores go through a one-entry store buffer here, drained by a flusher
 * at any moment, by a fence, by an atomic read-modify-write and by a
 * syscall. The asymmetric configuration (the default, membarrier works)
 * gives the notifier only a compiler fence and the sleeper a membarrier,
 * which runs a full fence on every CPU of the process: it drains both
 * buffers. -DSYMMETRIC: both sides a seq_cst fence, each its own buffer.
 *
 * Map to the code, line by line:
 *
 *   sleeper()      libxsched/queue/park.c  xs_park_until()
 *     S1  state_buf = SLEEPING      xs_store_relaxed(&p->state, XS_PARK_SLEEPING)
 *     S2  heavy_fence()             xs_heavy_fence(): xs_fence_seq_cst() +
 *                                   membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
 *     S3  work -> cancel            if (has_work(arg)) { state = AWAKE; return }
 *     S4  own_state == SLEEPING     while (xs_load_acquire(&p->state) == SLEEPING)
 *     S5  futex_wait()                  xs_futex_wait(&p->state, SLEEPING, NULL)
 *     (the caller's loop)           worker.c: re-checks its queues after xs_park()
 *
 *   notifier()     park.h  xs_park_notify(), park.c  xs_park_wake()
 *     N1  work_buf = 1              the caller publishes a task (a queue store)
 *     N2  light fence               xs_fence_compiler() (asymmetric) or
 *                                   xs_fence_seq_cst() (-DSYMMETRIC)
 *     N3  state == SLEEPING         xs_load_relaxed(&p->state) == XS_PARK_SLEEPING
 *     N4  old = xchg(state, AWAKE)  xs_exchange_acq_rel(&p->state, XS_PARK_AWAKE)
 *     N5  old == SLEEPING -> wake   syscall(SYS_futex, FUTEX_WAKE_PRIVATE, 1)
 *
 * Mutations (each must make spin report an error, tests/models/check.sh):
 *   -DMUT_CHECK_FIRST  the sleeper checks for work before it announces that
 *                      it sleeps (S3 before S1): the notifier's N3 can see
 *                      AWAKE between them, and nobody wakes the sleeper.
 *   -DMUT_NO_FENCE     no heavy fence (S2 dropped): SLEEPING still in the
 *                      sleeper's buffer when N3 reads, work still in the
 *                      notifier's buffer when S3 reads; both miss.
 */

#define AWAKE    0
#define SLEEPING 1

bit work;            /* memory: the published item */
bit state;           /* memory: p->state, the futex word (AWAKE) */
bit work_buf;        /* notifier's store buffer: a pending work = 1 */
bit state_full;      /* sleeper's store buffer: a pending state store */
bit state_val;
bit in_futex;        /* sleeper blocked in the kernel */
bit consumed;

/* drain the buffers: a fence on that CPU */
inline drain_sleeper() {
	atomic { if :: state_full -> state = state_val; state_full = 0 :: else fi }
}
inline drain_notifier() {
	atomic { if :: work_buf -> work = 1; work_buf = 0 :: else fi }
}

/* the hardware: a buffered store reaches memory at any time */
active proctype flush_sleeper() {
end:	do :: atomic { state_full -> state = state_val; state_full = 0 } od
}
active proctype flush_notifier() {
end:	do :: atomic { work_buf -> work = 1; work_buf = 0 } od
}

active proctype sleeper() {
	bit own;
	do
	:: consumed -> break
	:: else ->
		if
		:: work -> consumed = 1; goto next         /* caller's own check */
		:: else
		fi;
		/* xs_park() */
#ifdef MUT_CHECK_FIRST
		if :: work -> goto next :: else fi;         /* S3 too early */
		atomic { state_full = 1; state_val = SLEEPING }; /* S1 */
		drain_sleeper(); drain_notifier();          /* S2 */
#else
		atomic { state_full = 1; state_val = SLEEPING }; /* S1 */
#ifndef MUT_NO_FENCE
#ifdef SYMMETRIC
		drain_sleeper();                            /* S2: seq_cst fence */
#else
		atomic { drain_sleeper(); drain_notifier() } /* S2: membarrier */
#endif
#endif
		if                                          /* S3 */
		:: work -> atomic { state_full = 1; state_val = AWAKE }; goto next
		:: else
		fi;
#endif
		do                                          /* S4 */
		:: atomic { own = (state_full -> state_val : state) };
		   if
		   :: own == SLEEPING ->
			drain_sleeper();                    /* the syscall */
			atomic {                            /* S5: futex_wait */
				if :: state == SLEEPING -> in_futex = 1 :: else fi
			};
			in_futex == 0                       /* until FUTEX_WAKE */
		   :: else -> break
		   fi
		od;
next:		skip
	od
}

active proctype notifier() {
	bit old;
	work_buf = 1;                                       /* N1 */
#ifdef SYMMETRIC
	drain_notifier();                                   /* N2 */
#endif
	if
	:: state == SLEEPING ->                             /* N3 */
		atomic {                                    /* N4: RMW drains */
			drain_notifier();
			old = state; state = AWAKE
		};
		if
		:: old == SLEEPING -> in_futex = 0          /* N5 */
		:: else
		fi
	:: else
	fi
}
