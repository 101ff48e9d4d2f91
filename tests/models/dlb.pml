/*
 * dlb.pml - the round/request-cell steal protocol, NA-WS (libxsched/core/dlb.c).
 *
 * Worker 0 (the victim) starts with T tasks in its own queue; thieves
 * 1..NTHIEVES have none. Each thief asks the victim through its request
 * cell; the victim, at its scheduling points, serves a request of its
 * current round by moving up to S of its oldest tasks into its queue to
 * that thief (capacity Q), then bumps its round. Everyone runs tasks until
 * all T are done.
 *
 * Properties:
 *   no lost task         monitor: every task is, at every step, in exactly
 *                        one place (a queue, a worker's hands, done)
 *   no double execution  exec_task(): assert a task runs at most once
 *   no double serve      serve(): assert a request (its round) is served
 *                        at most once
 *   termination          every task done, nobody blocked (end states)
 * Bounds: each thief sends at most MAXREQ requests (rounds stay small);
 * queues are channels (their release/acquire publication is xs_spsc's,
 * checked by tests/queue/spsc-fifo-two-threads). Sequentially consistent: the
 * cells are relaxed on purpose (a stale round only makes a request the
 * victim ignores), and the tasks travel through the queues.
 *
 * Map to the code, line by line:
 *
 *   victim()        libxsched/core/runtime.h xs_dlb_poll(), dlb.c xs_dlb_serve()
 *     V1  req = request cell            req = xs_load_relaxed(&w->cells.request)
 *     V2  req_round == round            xs_dlb_request_round(req) == w->dlb.round
 *     V3  thief check                   thief >= nworkers || thief == w->id -> bump
 *     V4  full(to) -> stop              xs_dlb_serve_ws: if (!xs_spsc_reserve(to)) break
 *     V5  own?t  (oldest)               t = xs_worker_pop_oldest(w); if (!t) break
 *     V6  to!t                          xs_spsc_push(to, t); moved++
 *     V7  round++                       xs_dlb_round_bump(w): round + 1, store relaxed
 *     V8  own?t; exec_task(t)                 worker.c: the victim runs its own tasks
 *
 *   thief(me)       dlb.c xs_dlb_idle()
 *     T1  to_me?t; exec_task(t)               worker.c: the thief's queues first
 *     T2  round = victim's round cell   round = xs_load_relaxed(&cells->round)
 *     T3  req = victim's request cell   req = xs_load_relaxed(&cells->request)
 *     T4  req_round == round -> skip    if (xs_dlb_request_round(req) == round) continue
 *     T5  request cell = (round, me)    xs_store_relaxed(&cells->request,
 *                                           xs_dlb_request(round, w->id))
 *
 * Mutations (each must make spin report an error, tests/models/check.sh):
 *   -DMUT_POP_FIRST  the victim pops a task before it checks that the
 *                    thief's queue has room, and stops when it has none
 *                    (V5 before V4): the popped task is lost.
 *   -DMUT_NO_BUMP    the victim does not bump its round after serving
 *                    (V7 dropped): the same request is served again.
 */

#ifndef T
#define T 3          /* tasks */
#endif
#ifndef NTHIEVES
#define NTHIEVES 2   /* workers 1..NTHIEVES */
#endif
#define S 2          /* tasks moved per request (XSCHED_DLB_STEAL) */
#define Q 1          /* slots of a queue to a thief: "target full" happens */
#define MAXREQ 2     /* requests per thief */

chan own = [T] of { byte };
chan to[NTHIEVES + 1] = [Q] of { byte };

byte round = 1;      /* victim's round cell (its own copy is the same) */
byte req_round;      /* victim's request cell: round ... */
byte req_thief;      /* ... and thief id; round 0 never matches */
byte last_served;    /* round of the last request served (0: none) */
bit executed[T];
byte done;
byte inhand = T;     /* tasks popped and not yet pushed or finished
                        (at first: spawned, not yet queued) */

inline exec_task(t) {
	atomic { assert(!executed[t]); executed[t] = 1 };
	atomic { done++; inhand-- }
}

/* Every task is somewhere, exactly once. */
active proctype monitor() {
	byte queued, i;
end:	do
	:: atomic {
		queued = len(own);
		for (i : 1 .. NTHIEVES) { queued = queued + len(to[i]) };
		assert(queued + inhand + done == T)
	   }
	od
}

active proctype victim() {
	byte i, t, rr, th, moved;

	atomic { for (i : 0 .. T - 1) { own!i }; inhand = 0 };
	do
	:: done == T -> break
	:: else ->
		rr = req_round; th = req_thief;             /* V1 */
		if
		:: rr == round ->                           /* V2 */
			assert(last_served != round);       /* served once */
			last_served = round;
			if
			:: th == 0 || th > NTHIEVES -> skip /* V3 */
			:: else ->
				moved = 0;
				do
				:: moved == S -> break
				:: else ->
#ifdef MUT_POP_FIRST
					if
					:: nempty(own) -> atomic { own?t; inhand++ }
					:: empty(own) -> break
					fi;
					if
					:: full(to[th]) -> inhand--; break /* t dropped */
					:: nfull(to[th]) -> atomic { to[th]!t; inhand-- }
					fi;
#else
					if
					:: full(to[th]) -> break    /* V4 */
					:: nfull(to[th])
					fi;
					if
					:: nempty(own) -> atomic { own?t; inhand++ } /* V5 */
					:: empty(own) -> break
					fi;
					atomic { to[th]!t; inhand-- } /* V6 */
#endif
					moved++
				od
			fi;
#ifndef MUT_NO_BUMP
			round++                             /* V7 */
#endif
		:: else
		fi;
		if
		:: nempty(own) -> atomic { own?t; inhand++ }; exec_task(t) /* V8 */
		:: empty(own)
		fi
	od
}

active [NTHIEVES] proctype thief() {
	byte me = _pid - 1, t, r, rr, sent;             /* 1..NTHIEVES */
	do
	:: done == T -> break
	:: nempty(to[me]) -> atomic { to[me]?t; inhand++ }; exec_task(t) /* T1 */
	:: empty(to[me]) && sent < MAXREQ ->
		r = round;                                  /* T2 */
		rr = req_round;                             /* T3 */
		if
		:: rr == r -> skip                          /* T4 */
		:: else -> atomic { req_round = r; req_thief = me }; sent++ /* T5 */
		fi
	od
}
