/*
 * loop.pml - the elastic loop's join/leave/close word
 * (libxsched/loops/loop.c, "Elastic loops"; runtime.h, loop_state).
 *
 * A caller posts LOOPS loops one after another, each of CHUNKS chunks in
 * a dispenser; NH helpers join whichever loop is open when they look,
 * claim chunks, and leave. The caller runs chunks too, closes the loop
 * once the dispenser is empty, waits for the helpers inside (parking if
 * it must) and returns, which ends the loop's job (its stack frame).
 *
 * Checked:
 *  - nobody touches a loop's job after its caller returned (assert
 *    job_live at every claim and run: the job is on the caller's stack);
 *  - when the caller returns every chunk of its loop has run exactly once
 *    (claimed is not enough: the run must be over);
 *  - the word is closed and empty when a loop is posted, so the post may
 *    be a plain store (assert at P);
 *  - no lost wake-up: a caller parked in W is woken by the last helper
 *    out (a caller left blocked is an invalid end state).
 * Helpers may be switched out between any two steps (Spin interleaves
 * every statement), so each can look, join late, or never come.
 * Static block loops, which also take blocks in the word, are
 * loop-blocks.pml.
 *
 * Memory model: sequentially consistent. Every access to the word is an
 * atomic RMW or a load of one word, totally ordered by the word's
 * modification order; the acquire/release pairs order the job and the
 * chunks' writes around them (argued in loop.c). The caller's park is the
 * handshake of park.pml, modelled here at the level of its outcome.
 *
 * Map to the code:
 *
 *   caller()    loop.c  xs_for_elastic()
 *     P  seq++, open = 1          xs_store_release(&rt->loop_state, seq+1 | OPEN)
 *     R  claim and run chunks     xs_for_part(w0, j)
 *     C  old = inside, open = 0   xs_fetch_and_acquire(&rt->loop_state, ~OPEN)
 *     W  wait for inside == 0     xs_worker_wait_until(w0, xs_loop_helpers_left)
 *        (park, re-check)         (worker.c, park.h)
 *
 *   helper()    loop.c  xs_loop_help()
 *     J1 read the word            xs_load_acquire(&rt->loop_state)
 *     J2 CAS word -> word + 1     xs_cas_weak_acquire(&rt->loop_state, &s, s + 1)
 *        if open, else retry;     before it, xs_loop_claims_left(): every
 *        or stay out when every      claim word empty (XS_LOOP_CLAIMS),
 *        chunk is taken              the dispenser's `next` here
 *     H  claim and run chunks     xs_for_part(w, rt->loop_job)
 *     X  inside--, and if the     xs_fetch_sub_release(&rt->loop_state, 1);
 *        loop was closed and we      xs_park_notify(&rt->workers[0]->park)
 *        were the last: notify
 *
 * Mutations (each must make spin report an error, tests/models/check.sh):
 *   -DMUT_JOIN_BLIND   a helper counts itself in without checking that the
 *                      loop is open (the fetch_add of a two-word Dekker
 *                      pair with its check of open dropped): it claims
 *                      from a loop whose caller has returned.
 *   -DMUT_NO_WAIT      the caller returns after the close without waiting
 *                      for the helpers inside: a claimed chunk is still
 *                      running.
 *   -DMUT_NOTIFY_OPEN  a helper notifies the caller when it leaves an
 *                      open loop instead of a closed one: the caller parked
 *                      in W is never woken.
 */
#ifndef NH
#define NH 2
#endif
#define LOOPS 2
#define CHUNKS 2
#define NONE 255

/* rt->loop_state, one word: seq << 32 | OPEN | inside */
byte seq = 0;
bit open = 0;
byte inside = 0;

bit job_live = 0;       /* the posted loop's job (caller's stack) exists */
byte next = 0;          /* the dispenser: chunks [0, next) claimed */
byte ran[CHUNKS];       /* runs of each chunk of the current loop */

bit sleeping = 0;       /* the caller is parked in W */

inline run_chunks() {
	do
	:: atomic {
		assert(job_live);
		if
		:: next < CHUNKS -> c = next; next++
		:: else -> c = NONE
		fi
	   };
	   if
	   :: c == NONE -> break
	   :: else -> assert(job_live); ran[c]++; assert(ran[c] == 1)
	   fi
	od
}

active proctype caller()
{
	byte k = 0, c, i, old_inside;

	do
	:: k == LOOPS -> break
	:: else ->
		/* a new job on the caller's stack, a fresh dispenser */
		next = 0;
		i = 0;
		do
		:: i < CHUNKS -> ran[i] = 0; i++
		:: else -> break
		od;
		job_live = 1;
P:		atomic { assert(!open && inside == 0); seq++; open = 1 };
R:		run_chunks();
C:		atomic { old_inside = inside; open = 0 };
#ifndef MUT_NO_WAIT
W:		if
		:: old_inside == 0 -> skip
		:: else ->
			do
			:: inside == 0 -> break
			:: else ->
				/* park: announce, re-check, sleep */
				sleeping = 1;
				if
				:: inside == 0 -> sleeping = 0; break
				:: else -> sleeping == 0
				fi
			od
		fi;
#endif
		/* return: every chunk ran, once */
		i = 0;
		do
		:: i < CHUNKS -> assert(ran[i] == 1); i++
		:: else -> break
		od;
		job_live = 0;
		k++
	od
}

active [NH] proctype helper()
{
	byte s_seq, s_inside, c;
	bit s_open, joined, old_open;
	byte old_inside;

end:	do
	:: seq < LOOPS || open ->
J1:		atomic { s_seq = seq; s_open = open; s_inside = inside };
#ifdef MUT_JOIN_BLIND
		inside++;
#else
		joined = 0;
		do
		:: !s_open -> break
		/* the peek: every chunk taken, stay out (a hint, so the
		 * helper may also go on and find nothing) */
		:: s_open && next == CHUNKS -> break
		:: else ->
J2:			atomic {
				if
				:: seq == s_seq && open == s_open && inside == s_inside ->
					inside++; joined = 1
				:: else ->
					s_seq = seq; s_open = open; s_inside = inside
				fi
			};
			if
			:: joined -> break
			:: else -> skip
			fi
		od;
		if
		:: !joined -> goto end
		:: else -> skip
		fi;
#endif
H:		run_chunks();
X:		atomic { old_open = open; old_inside = inside; inside-- };
#ifdef MUT_NOTIFY_OPEN
		if
		:: old_open && old_inside == 1 -> sleeping = 0
		:: else -> skip
		fi
#else
		if
		:: !old_open && old_inside == 1 -> sleeping = 0
		:: else -> skip
		fi
#endif
	od
}
