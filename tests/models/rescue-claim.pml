/*
 * rescue-claim.pml - the claim protocol of libxsched/core/rescue.h, in Spin.
 *
 * A victim V pops the items a producer pushes into its queue; two thieves
 * that find V stranded claim V's consumer side, pop one item, and hand it
 * back. V can be switched out between any two steps (Spin interleaves
 * every statement), so it "wakes mid-claim" at every point of a thief.
 * V keeps a private copy of the consumer index (B-queue's cached head),
 * which it must reload when the claim's epoch moved.
 *
 * Checked: no item is popped twice (assert at each pop), and when
 * everyone is done every item was popped exactly once (no loss). The
 * model is sequentially consistent: the asymmetric fence (a compiler
 * barrier in V, membarrier() in the thief) is what makes the hardware
 * behave so for the two words of the handshake, as argued in rescue.h.
 *
 * Mutations that must fail (tests/core/rescue-claim-model.sh runs them):
 *   -DNO_RELOAD    V does not reload its cached index after a claim
 *   -DNO_CONSUMING the thief does not check V's consuming flag
 */
#define N 3            /* items */
#define THIEVES 2
#define TRIES 2        /* claims each thief attempts */

byte tail = 0;          /* producer's index: items [0, tail) pushed */
byte head = 0;          /* shared consumer index */
byte taken[N];
bit consuming = 0;      /* V is inside a consumer section */
byte holder = 0;        /* claim: 0 = V, t + 1 = thief t */
byte epoch = 0;         /* claim: bumped by each hand-back */
byte done = 0;          /* processes finished */

inline take(i) {
	taken[i]++;
	assert(taken[i] == 1)
}

active proctype producer()
{
	do
	:: tail < N -> tail++
	:: else -> break
	od;
	done++
}

active proctype victim()
{
	byte mine = 0;      /* cached consumer index */
	byte seen = 0;      /* epoch the cache belongs to */
	byte h, e;

	do
	:: head == N -> break
	:: else ->
		consuming = 1;
		atomic { h = holder; e = epoch };
		if
		:: h != 0 -> consuming = 0      /* claimed: idle path, retry */
		:: else ->
#ifndef NO_RELOAD
			if
			:: e != seen -> mine = head; seen = e
			:: else -> skip
			fi;
#endif
			if
			:: mine < tail -> take(mine); mine++; head = mine
			:: else -> skip
			fi;
			consuming = 0
		fi
	od;
	done++
}

active [THIEVES] proctype thief()
{
	byte t = _pid;      /* nonzero: a claim holder id */
	byte tries = 0, h, e;
	bool won;

	do
	:: tries == TRIES -> break
	:: else ->
		tries++;
		atomic { h = holder; e = epoch };
		if
		:: h != 0 -> skip
		:: else ->
			/* CAS(claim, (e, 0), (e, t)) */
			atomic {
				won = (holder == 0 && epoch == e);
				if
				:: won -> holder = t
				:: else -> skip
				fi
			};
			if
			:: won ->
				/* membarrier(): SC here */
#ifndef NO_CONSUMING
				if
				:: consuming -> skip   /* V is awake: hand back untouched */
				:: else ->
#endif
					if
					:: head < tail -> take(head); head++
					:: else -> skip
					fi
#ifndef NO_CONSUMING
				fi;
#endif
				atomic { epoch++; holder = 0 }   /* hand-back */
			:: else -> skip
			fi
		fi
	od;
	done++
}

/* Everyone done: every item popped exactly once. */
active proctype check()
{
	byte i = 0;

	done == THIEVES + 2;
	do
	:: i < N -> assert(taken[i] == 1); i++
	:: else -> break
	od
}
