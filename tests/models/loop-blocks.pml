/*
 * loop-blocks.pml - the elastic loop's static block loops
 * (libxsched/loops/loop.c, "Static block loops"; runtime.h, loop_state).
 *
 * loop.pml checks the join/leave/close word; here the same word also holds
 * which helper blocks are taken, and a taken block runs in pieces claimed
 * in its pieces word, which is stamped with the loop's number instead of
 * being reset between loops. A caller posts LOOPS loops; NH helpers join
 * whichever is open, taking their own block (or the first untaken one) in
 * the join CAS and more untaken blocks while the loop is open. The caller
 * runs its block 0, takes the untaken blocks and closes (one CAS loop),
 * may take the pieces left of helpers still inside (the rescue, past a
 * timeout: here at any time or never), waits for the helpers inside
 * (parking if it must) and returns.
 *
 * Checked:
 *  - every piece of every block, and block 0, run exactly once per loop,
 *    all of them over when the caller returns;
 *  - nobody claims in a loop whose caller returned (job_live);
 *  - the word is closed and empty when a loop is posted;
 *  - no lost wake-up of a parked caller (invalid end state).
 * Helpers may be switched out between any two steps, so each can come
 * late, take another's block, be rescued from, or never come.
 *
 * Memory model: sequentially consistent; every access to the two words is
 * an RMW or a load of one word (loop.pml argues the orderings).
 *
 * Map to the code:
 *
 *   caller()    loop.c  xs_for_elastic(), xs_blocks_run_and_close()
 *     P  seq++, open, none taken   xs_store_release(&rt->loop_state, posted)
 *     R  run block 0               xs_for_chunk() of xs_block(.., 0, ..)
 *     C  take the first untaken    xs_cas_weak_relaxed(.., s | TAKEN(b)),
 *        block and run it whole,      xs_for_chunk() of the block; mine
 *        or, none left, close      xs_cas_weak_acquire(.., s & ~OPEN)
 *     S  claim pieces from the     xs_blocks_rescue(): xs_piece_claim(..,
 *        back of blocks not mine      false, ..) unless in mine
 *        (maybe)
 *     W  wait for inside == 0      xs_worker_wait_until(w0, ..helpers_left)
 *
 *   helper()    loop.c  xs_loop_help(), xs_blocks_help()
 *     J1 read the word             xs_load_acquire(&rt->loop_state)
 *     J2 CAS word -> word + 1 |    xs_block_pick(); xs_cas_weak_acquire()
 *        TAKEN(b), b its own or
 *        the first untaken; none
 *        untaken: stay out
 *     H  claim pieces of b from    xs_block_run(): xs_piece_claim(.., true)
 *        the front; then take
 *        another untaken block     xs_cas_weak_relaxed(.., s | TAKEN(b))
 *        while open
 *     X  inside--, notify if last  xs_fetch_sub_release(); xs_park_notify()
 *        out of a closed loop
 *
 *   pieces word  seq << 32 | front << 16 | back; a stamp other than the
 *                claimer's loop reads as all PIECES left (xs_piece_claim())
 *
 * Mutations (each must make spin report an error, tests/models/check.sh):
 *   -DMUT_CLOSE_UNTAKEN  the caller closes without taking the blocks no
 *                        helper took (C as the claim-word loops' plain
 *                        fetch_and): a block of an absent helper never runs.
 *   -DMUT_NO_STAMP       a claim does not stamp the word with the loop's
 *                        number: the next claim reads it as untouched and
 *                        a piece runs twice.
 *   -DMUT_RESCUE_MINE    the rescue claims in the blocks the caller took
 *                        and ran whole too: their pieces words are stale,
 *                        read as untouched, and the pieces run twice.
 *   -DMUT_CLOSE_GUESS    the caller closes by storing its guess (every
 *                        block taken, nobody inside) instead of a CAS from
 *                        it: untaken blocks never run, and it does not
 *                        wait for a helper inside.
 */
#ifndef NH
#define NH 2
#endif
#define LOOPS 2
#define PIECES 2
#define NONE 255

/* rt->loop_state: seq << 32 | OPEN | taken | inside */
byte seq = 0;
bit open = 0;
byte inside = 0;
byte taken = 0;         /* bit b: helper b's block (b = 1 .. NH) */

bit job_live = 0;       /* the posted loop's job (caller's stack) exists */
byte ran0;              /* runs of the caller's block 0 */
byte ran[(NH + 1) * PIECES]; /* runs of piece k of block b: [b * PIECES + k] */

/* rt->loop_slots[b].pieces: stamp, front, back */
byte pw_seq[NH + 1];
byte pw_f[NH + 1];
byte pw_e[NH + 1];

bit sleeping = 0;       /* the caller is parked in W */

/* xs_block_pick(): @me's block if untaken in @t, else the first untaken,
 * else 0. */
inline pick(t, me, out) {
	out = 0;
	if
	:: me != 0 && (t & (1 << me)) == 0 -> out = me
	:: else ->
		i_ = 1;
		do
		:: i_ > NH -> break
		:: i_ <= NH && (t & (1 << i_)) == 0 -> out = i_; break
		:: i_ <= NH && (t & (1 << i_)) != 0 -> i_++
		od
	fi
}

/* xs_piece_claim() of block b in loop js: k, or NONE. */
inline claim(b, js, front, k) {
	atomic {
		assert(job_live);
		if
		:: pw_seq[b] != js -> f = 0; e = PIECES
		:: else -> f = pw_f[b]; e = pw_e[b]
		fi;
		if
		:: f < e ->
			if
			:: front -> k = f; f++
			:: else -> e--; k = e
			fi;
#ifndef MUT_NO_STAMP
			pw_seq[b] = js;
#endif
			pw_f[b] = f; pw_e[b] = e
		:: else -> k = NONE
		fi
	}
}

inline run_piece(b, k) {
	assert(job_live);
	ran[b * PIECES + k]++;
	assert(ran[b * PIECES + k] == 1)
}

/* xs_block_run(): the pieces of b from the front. */
inline run_block(b, js) {
	do
	:: claim(b, js, 1, k);
	   if
	   :: k == NONE -> break
	   :: else -> run_piece(b, k)
	   fi
	od
}

active proctype caller()
{
	byte n = 0, i, i_, b, k, f, e, old_inside, mine;
	bit closed;

	do
	:: n == LOOPS -> break
	:: else ->
		/* a new job on the caller's stack */
		ran0 = 0;
		i = 0;
		do
		:: i < (NH + 1) * PIECES -> ran[i] = 0; i++
		:: else -> break
		od;
		job_live = 1;
P:		atomic { assert(!open && inside == 0); seq++; open = 1; taken = 0 };
R:		assert(job_live); ran0++;
		closed = 0;
		mine = 0;
C:		do
		:: closed -> break
		:: else ->
			atomic {
				pick(taken, 0, b);
#ifdef MUT_CLOSE_UNTAKEN
				b = 0;
#endif
#ifdef MUT_CLOSE_GUESS
				b = 0;
				taken = (1 << (NH + 1)) - 2;
				old_inside = 0; open = 0; closed = 1
#else
				if
				:: b != 0 -> taken = taken | (1 << b)
				:: else -> old_inside = inside; open = 0; closed = 1
				fi
#endif
			};
			if
			:: b != 0 ->
				/* one call: every piece of it */
				mine = mine | (1 << b);
				k = 0;
				do
				:: k < PIECES -> run_piece(b, k); k++
				:: else -> break
				od
			:: else -> skip
			fi
		od;
S:		if
		:: old_inside > 0 ->
			b = 1;
			do
			:: b > NH -> break
#ifdef MUT_RESCUE_MINE
			:: b <= NH ->
#else
			:: b <= NH && (mine & (1 << b)) != 0 -> b++
			:: b <= NH && (mine & (1 << b)) == 0 ->
#endif
				claim(b, seq, 0, k);
				if
				:: k == NONE -> b++
				:: else -> run_piece(b, k)
				fi
			od
		:: true -> skip /* they left before the timeout */
		fi;
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
		/* return: every block and piece ran, once */
		assert(ran0 == 1);
		i = PIECES;
		do
		:: i < (NH + 1) * PIECES -> assert(ran[i] == 1); i++
		:: else -> break
		od;
		job_live = 0;
		n++
	od
}

active [NH] proctype helper()
{
	byte s_seq, s_inside, s_taken, b, k, f, e, i_, js, old_inside;
	bit s_open, joined, old_open;

end:	do
	:: seq < LOOPS || open ->
J1:		atomic { s_seq = seq; s_open = open; s_inside = inside; s_taken = taken };
		joined = 0;
		do
		:: !s_open -> break
		:: else ->
			pick(s_taken, _pid, b);
			if
			:: b == 0 -> break /* every block taken: stay out */
			:: else ->
J2:				atomic {
					if
					:: seq == s_seq && open == s_open && inside == s_inside &&
					   taken == s_taken ->
						inside++; taken = taken | (1 << b); js = seq; joined = 1
					:: else ->
						s_seq = seq; s_open = open; s_inside = inside;
						s_taken = taken
					fi
				};
				if
				:: joined -> break
				:: else -> skip
				fi
			fi
		od;
		if
		:: !joined -> goto end
		:: else -> skip
		fi;
H:		do
		:: run_block(b, js);
		   atomic {
			if
			:: open -> pick(taken, 0, b)
			:: else -> b = 0
			fi;
			if
			:: b != 0 -> taken = taken | (1 << b)
			:: else -> skip
			fi
		   };
		   if
		   :: b == 0 -> break
		   :: else -> skip
		   fi
		od;
X:		atomic { old_open = open; old_inside = inside; inside-- };
		if
		:: !old_open && old_inside == 1 -> sleeping = 0
		:: else -> skip
		fi
	od
}
