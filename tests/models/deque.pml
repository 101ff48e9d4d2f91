/*
 * deque.pml - the work-first split deque's steal path (libxsched/queue/deque.c,
 * the owner's inline half in include/xsched/task_inline.h).
 *
 * The owner (worker 0) runs a task that spawns N frames and joins them;
 * thieves 1..NTHIEVES steal the oldest public frame with a CAS on the
 * packed word ts = head << 32 | split, or raise the owner's splitreq when
 * nothing is public. The owner serves splitreq at each spawn and at each
 * step of its join by moving the split up (publish), claims private frames
 * with plain stores, takes public ones back by a CAS (take_own, reclaim),
 * and waits for stolen ones (wait_stolen). ts is two variables updated
 * together inside atomic blocks: each atomic block is one CAS (or store)
 * on the 64-bit word. Every statement interleaves with every other.
 *
 * Properties:
 *   no double execution  run(): assert a frame runs at most once
 *   no lost frame        owner, after its join: every frame ran, and every
 *                        stolen one has finished (its `done` acquired) -
 *                        so the join also returns no earlier than its
 *                        children (no premature join)
 *   invariant            head <= split <= top after every ts update
 *                        (assert in check_inv)
 *   no deadlock          spin's invalid end states
 * Sequentially consistent: the frames travel by the release CAS of
 * publish to the thief's acquire CAS, and `done` by a release/acquire pair
 * (deque.c says which); this model checks who may run what, not the
 * fences, which tests/{core,queue}/frames-* check under TSan.
 *
 * Map to the code, line by line (deque.c unless said):
 *
 *   owner()
 *     O1  fn[i] = 1; top++             task_inline.h xs_spawn(): f->fn = fn;
 *                                      d->top++
 *     O2  splitreq -> publish(0)       xs_spawn(): if (splitreq) xs_task_publish()
 *   publish(ns)                        xs_deque_publish_to()
 *     P1  top == split -> return       if (t == s) return
 *     P2  splitreq = 0                 __atomic_store_n(&d->splitreq, 0, ...)
 *     P3  ns = s + (t - s + 1) / 2     ns = from + (end - from + 1) / 2
 *     P4  atomic { split = ns; head =  CAS loop on ts keeping the head it
 *         head == split ? from : head }    finds, or @from when head == s:
 *                                          xs_ts(nh, ns)
 *     P5  done[osplit .. nh) = OWN;    frames[j].done = XS_FRAME_OWN;
 *         osplit = ns                      d->split = ns
 *   join                               xs_sync() (the private part) and
 *                                      xs_deque_join_from()
 *     J1  splitreq && osplit < N       if (splitreq && d->split < hi)
 *           -> publish(N, i)               xs_deque_publish_to(w, i, hi, true)
 *     J2  i < own -> run_own(i)        if (i < own) xs_deque_run_own(): fn = NULL;
 *                                          call; done = OWN (RAN here)
 *     J3  i < osplit -> take_own(i)    if (i < d->split) own = take_own...
 *     J4  private: fn[i] = 0; exec_frame(i) fn = f->fn; f->fn = NULL; xs_frame_call()
 *   take_own(i)                        xs_deque_take_own()
 *     K1  head > i -> stolen           if (xs_ts_head(old) > i) return i
 *     K2  head < i -> reclaim(i)       if (xs_ts_head(old) < i) reclaim
 *     K3  CAS head: i -> i + k, own =  k = xs_deque_take_count(split - i);
 *         i + k, any 1 <= k <= split - i   CAS(ts, old, old + (k << 32))
 *     K4  fn[i] = 0; exec_frame(i); done[i]   xs_deque_run_own(w, i)
 *   reclaim(i)                         xs_deque_reclaim()
 *     R1  CAS: head > i -> false,      if (xs_ts_head(old) > i) return false;
 *         else split = i; osplit = i   CAS(ts, old, xs_ts(head, i)); d->split = i
 *   pop-down, i = N-1 .. 0             the second loop of xs_deque_join_from()
 *     D1  top = i + 1                  d->top = i + 1
 *     D2  i >= osplit || reclaim(i)    if (i >= d->split || reclaim) continue
 *     D3  assert head == split == i+1  xs_deque_wait_stolen_run(w, lo, i):
 *         wait done[j], j = i .. 0         xs_deque_wait_frame(), j = i .. lo
 *     D4  done[j] = 0 each; then one   f->done = 0 each; then
 *         ts = (0, 0)                      store_release(ts, (lo, lo))
 *     D5  osplit = 0; i = 0            d->split = lo; i = lo (top = lo and
 *                                          its check, D1 for i == lo)
 *
 *   thief()                            xs_deque_steal_from()
 *     T1  (h, s) = ts                  old = xs_load_acquire(&v->dqs.ts)
 *     T2  h < s -> CAS(ts, (h, s),     CAS(ts, old, old + (1 << 32))
 *               (h + 1, s))
 *     T3  f = fn[h]; f -> exec_frame(h)       fn = f->fn; if (fn) xs_task_run_stolen()
 *     T4  done[h] = 1                  __atomic_store_n(&f->done, 1, RELEASE)
 *     T5  else splitreq = 1            if (!splitreq) store(splitreq, 1)
 *
 * Mutations (each must make spin report an error, tests/models/check.sh):
 *   -DMUT_STORE_TS      publish moves the split with a load and a plain
 *                       store of the word (the head it read), not a CAS:
 *                       a thief's head increment is undone and the frame
 *                       runs twice. The rule: the owner changes ts only by
 *                       CAS, since thieves move head concurrently.
 *   -DMUT_RECLAIM_BLIND reclaim lowers the split without checking that no
 *                       thief moved head past the frame (R1 without its
 *                       test): the owner runs a stolen frame again.
 *   -DMUT_TAKE_PAST_SPLIT the join's take (K3) counts its share to top
 *                       instead of the split of the word it CASes: head
 *                       passes split (check_inv).
 *   -DMUT_BATCH_WAIT_ONE the pop-down's run (D3) waits only for the newest
 *                       taken frame before it lowers ts: the join returns
 *                       while a thief still holds an older one.
 *   -DMUT_SKIP_NO_MARK  a publish that moves head over the join's claimed
 *                       frames (P4) does not mark them done (P5): the
 *                       pop-down waits for them forever.
 *
 * With -DRESCUE, the rescue of a stranded owner (libxsched/core/deque_rescue.c):
 * each thief may, at each try, publish the owner's private frames for it
 * instead of stealing, and the owner follows the claim-then-check rule.
 * The owner is never "stranded" in the model: it can be switched out
 * between any two statements, which is the point; every rescue is also a
 * false alarm on a running owner. Sequentially consistent, which the fence
 * pair (compiler barrier / membarrier) gives the handshake (deque_rescue.c).
 * splitreq is three bits (req, rescue, held), changed by RMWs.
 *
 *   rescuer (thief, other branch)      deque_rescue.c xs_deque_rescue()
 *     R1  !rescue -> rescue = held = 1 CAS(splitreq, r, r|RESCUE|HELD)
 *     R2  (SC)                         membarrier()
 *     R3  s = split                    s = xs_ts_split(load_acquire(ts))
 *     R4  t = top                      t = load_acquire(d->top)
 *     R5  split == s && t > s          CAS(ts, (h, s), (h, t)), given up
 *           -> split = t                   when split moved
 *     R6  held = 0                     fetch_and(splitreq, ~HELD)
 *   owner
 *     A   ack: held == 0; osplit =     xs_deque_rescue_check(): wait !HELD;
 *         split; rescue = 0                d->split = split(ts); clear RESCUE
 *     C   claim: fn[i] = 0; then       join_from / xs_sync: store fn NULL,
 *         rescue -> A; claimed(i)          check, xs_deque_rescue_claimed()
 *     CL  i >= osplit || reclaim(i)    xs_deque_rescue_claimed(): private,
 *         -> run; else done[i] != 0;       reclaimed, or the thief's done:
 *         run iff done[i] == BACK          BACK -> the owner runs it
 *     T4' done[h] = f ? RAN : BACK     xs_deque_steal_from()
 *     D1' top = i + 1; rescue -> A;    the pop-down: each top store, then
 *         osplit > top -> i = osplit       the check; back up to the split
 *     D4' fn[j] = 0                    xs_deque_wait_frame() clears fn
 *     P0  rescue -> A                  publish_to(): check first, and a CAS
 *     P4' split != osplit -> A, stop       that meets a split it did not set
 * With -DTYPED, the owner joins as typed tasks do (xsched/task_typed.h),
 * newest first, with or without -DRESCUE:
 *   typed join, i = N-1 .. 0          xs_typed_pop(), xs_task_join_newest()
 *     Y1  i < osplit -> slow           if (i < d->split) out of line
 *     Y2  top = i; splitreq or rescue  store top, then the check (O1-O3):
 *           -> top = i + 1, slow           put it back, out of line
 *     Y3  else run frame i, unclaimed  the direct call (fn stays set)
 *     Y4  slow: ack, publish below i,  the cases of the pop-down (D1'-D5):
 *         then private or reclaimed        private: pop and check, back up
 *         -> pop, check; else wait         when rescued; stolen: wait, run
 *         (RAN: the thief ran it)          only what no thief ran
 *   -DMUT_TYPED_NO_CHECK  Y2 without the check: a rescuer that read the
 *                       old top publishes the frame the owner runs.
 * Mutations of the rescue (each must fail):
 *   -DMUT_CHECK_FIRST   the owner checks before it claims (C in the old
 *                       order): a frame published between the two runs
 *                       twice.
 *   -DMUT_NO_BACKUP     the pop-down does not go back up to the split when
 *                       the rescuer published above the new top (D1').
 */

#ifndef N
#define N 3            /* frames spawned by the owner's task */
#endif
#ifndef NTHIEVES
#define NTHIEVES 2
#endif
#ifndef TRIES
#define TRIES 2        /* steal attempts per thief */
#endif
#define RAN 1
#define BACK 2

byte head = 0;         /* ts: head << 32 | split */
byte split = 0;
byte osplit = 0;       /* the owner's copy, d->split */
byte top = 0;          /* the owner's; read by rescuers */
bit splitreq = 0;      /* XS_SPLITREQ_REQ */
bit rescue = 0;        /* XS_SPLITREQ_RESCUE */
bit held = 0;          /* XS_SPLITREQ_HELD */
bit fn[N];             /* 1: not claimed (f->fn != NULL) */
byte done[N];          /* 0, RAN or BACK */
byte ran[N];
bit owner_done = 0;

inline check_inv() {
#ifdef RESCUE
	assert(head <= split)  /* split > top until the owner's ack, D1' */
#else
	assert(head <= split && split <= top)
#endif
}

inline exec_frame(i) {
	atomic { ran[i]++; assert(ran[i] == 1) }
}

/* xs_deque_rescue_check() after a claim or top store: sets acked. */
inline ack() {
	acked = 0;
#ifdef RESCUE
	if
	:: rescue ->
		held == 0;
		atomic { osplit = split; rescue = 0 };
		acked = 1
	:: else -> skip
	fi
#endif
}

/* xs_deque_reclaim(): sets ok. */
inline reclaim(i) {
	atomic {
#ifdef MUT_RECLAIM_BLIND
		ok = 1;
#else
		ok = (head <= i);
#endif
		if
		:: ok -> split = i; osplit = i
		:: else -> skip
		fi
	}
}

/* xs_deque_publish_to(): @to == 0 publishes half of the private frames;
 * frames [osplit, @from) are claimed ones the owner ran (a join's). */
inline publish(to, from) {
	ack();
	if
	:: top <= osplit -> skip
	:: else ->
		splitreq = 0;
		fr = from;
		if
		:: fr < osplit -> fr = osplit
		:: else -> skip
		fi;
		ns = to;
		if
		:: ns == 0 -> ns = fr + (top - fr + 1) / 2
		:: else -> skip
		fi;
		if
		:: ns > osplit ->
#ifdef MUT_STORE_TS
			h = head;
			atomic { head = h; split = ns; check_inv() };
			osplit = ns
#else
			atomic {
				ok = (split == osplit);
				if
				:: ok ->
					/* nothing public: head jumps over
					 * the claimed frames too */
					if
					:: head == split -> nh = fr
					:: else -> nh = head
					fi;
					head = nh;
					split = ns;
					check_inv()
				:: else -> skip
				fi
			};
			if
			:: ok ->
#ifndef MUT_SKIP_NO_MARK
				/* their done = OWN, for the pop-down */
				j = osplit;
				do
				:: j < nh -> done[j] = RAN; j++
				:: else -> break
				od;
#endif
				osplit = ns
			:: else -> ack()          /* a rescuer's split */
			fi
#endif
		:: else -> skip
		fi
	fi
}

/* The owner claimed frame i (fn[i] = 0): the check, and whether it still
 * runs it (sets mine). */
inline claim_check(i) {
	ack();
	mine = 1;
	if
	:: acked && i < osplit ->
		reclaim(i);
		if
		:: ok -> skip
		:: else ->
			done[i] != 0;
			mine = (done[i] == BACK)
		fi
	:: else -> skip
	fi
}

active proctype owner()
{
	byte i, ns, h, own, k, j, fr, nh;
	bit ok, mine, acked, slow, gone;

	/* spawn: xs_spawn() */
	i = 0;
	do
	:: i < N ->
		fn[i] = 1;
		top++;
		if
		:: splitreq || rescue -> publish(0, 0)
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
#ifdef TYPED
	/* typed joins (xsched/task_typed.h), newest first */
	i = N;
	do
	:: i == 0 -> break
	:: i > 0 ->
		i--;
		gone = 0;
		/* xs_typed_pop(): private by the owner's copy, pop, check */
		if
		:: i < osplit -> slow = 1
		:: else ->
			top = i;
#ifdef MUT_TYPED_NO_CHECK
			slow = 0
#else
			if
			:: splitreq || rescue -> top = i + 1; slow = 1
			:: else -> slow = 0
			fi
#endif
		fi;
		if
		:: slow ->
			/* xs_task_join_newest(), entered with top == i + 1 */
			if
			:: rescue -> ack()
			:: else -> skip
			fi;
			if
			:: splitreq && osplit < i -> publish(osplit + (i - osplit + 1) / 2, 0)
			:: else -> skip
			fi;
			do
			:: i >= osplit ->
				top = i;
				ack();
				if
				:: acked && osplit > i -> top = i + 1
				:: else -> break
				fi
			:: i < osplit ->
				reclaim(i);
				if
				:: ok ->
					top = i;
					ack();
					if
					:: acked && osplit > i -> top = i + 1
					:: else -> break
					fi
				:: else ->
					/* xs_deque_wait_stolen() */
					done[i] != 0;
					if
					:: done[i] == RAN -> gone = 1
					:: else -> skip
					fi;
					fn[i] = 0;
					done[i] = 0;
					atomic { head = i; split = i };
					osplit = i
				fi
			od
		:: else -> skip
		fi;
		/* the direct call, unless a thief ran it (its result is in
		 * the frame) */
		if
		:: !gone -> exec_frame(i)
		:: else -> skip
		fi
	od;
#else
	/* join: xs_sync() / xs_deque_join_from(), first loop */
	i = 0;
	do
	:: i < N ->
		if
		:: rescue -> ack()
		:: else -> skip
		fi;
		if
		:: splitreq && osplit < N -> publish(N, i)
		:: else -> skip
		fi;
		mine = 1;
		if
		:: i < own ->
			/* xs_deque_run_own(): taken with an older frame */
			mine = 0;
			fn[i] = 0; exec_frame(i); done[i] = RAN
		:: i >= own && i < osplit ->
			/* xs_deque_take_own(): a share of the public frames,
			 * any size from 1 to split - i (the code's rule picks
			 * one; the model tries them all) */
			atomic {
				if
				:: head > i -> mine = 0; ok = 0
				:: head < i -> ok = 1        /* reclaim below */
				:: head == i ->
					k = 1;
					do
#ifdef MUT_TAKE_PAST_SPLIT
					:: k < top - i -> k++
#else
					:: k < split - i -> k++
#endif
					:: true -> break
					od;
					head = head + k; own = i + k;
					mine = 0; ok = 1;
					check_inv()
				fi
			};
			if
			:: !mine && ok ->                /* taken as a thief does */
				fn[i] = 0; exec_frame(i); done[i] = RAN
			:: !mine && !ok -> skip           /* stolen */
			:: mine ->
				reclaim(i);
				mine = ok
			fi
		:: else -> skip
		fi;
		if
		:: mine ->
#ifdef MUT_CHECK_FIRST
			claim_check(i);
			fn[i] = 0;
#else
			fn[i] = 0;
			claim_check(i);
#endif
			if
			:: mine -> exec_frame(i)
			:: else -> skip
			fi
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	/* pop-down: newest first; each top store is checked */
	i = N;
	do
	:: i == 0 ->
		top = 0;
		ack();
		if
#ifndef MUT_NO_BACKUP
		:: acked && osplit > 0 -> i = osplit
#endif
		:: else -> break
		fi
	:: i > 0 ->
		i--;
		top = i + 1;
		ack();
		if
#ifndef MUT_NO_BACKUP
		:: acked && osplit > i + 1 -> i = osplit
#endif
		:: else ->
			if
			:: i >= osplit -> skip
			:: else ->
				reclaim(i);
				if
				:: ok -> skip
				:: else ->
					/* xs_deque_wait_stolen_run(): head ==
					 * split == top == i + 1, and every frame
					 * below is taken: wait for each, then one
					 * store lowers ts to the task's base */
					assert(head == i + 1 && split == i + 1);
					j = i + 1;
					do
					:: j > 0 ->
						j--;
#ifdef MUT_BATCH_WAIT_ONE
						if
						:: j == i -> done[j] != 0
						:: else -> skip
						fi;
#else
						done[j] != 0;
#endif
						fn[j] = 0;
						done[j] = 0
					:: else -> break
					od;
					atomic { head = 0; split = 0 };
					osplit = 0;
					i = 0
				fi
			fi
		fi
	od;
#endif
	/* no lost frame, none joined before it finished, nothing public */
	i = 0;
	do
	:: i < N -> assert(ran[i] == 1 && done[i] == 0); i++
	:: else -> break
	od;
	assert(split == 0 && head == 0);
	owner_done = 1
}

active [NTHIEVES] proctype thief()
{
	byte h, s, t, tries = 0;
	bit won, f;

	do
	:: tries == TRIES || owner_done -> break
	:: else ->
		tries++;
		if
		:: true ->
			atomic { h = head; s = split };
			if
			:: h < s ->
				atomic {
					won = (head == h && split == s);
					if
					:: won -> head = h + 1
					:: else -> skip
					fi
				};
				if
				:: won ->
					f = fn[h];
					if
					:: f -> exec_frame(h)
					:: else -> skip
					fi;
					if
					:: f -> done[h] = RAN
					:: else -> done[h] = BACK
					fi
				:: else -> skip
				fi
			:: else -> splitreq = 1
			fi
#ifdef RESCUE
		:: true ->
			/* xs_deque_rescue() */
			atomic {
				won = !rescue;
				if
				:: won -> rescue = 1; held = 1
				:: else -> skip
				fi
			};
			if
			:: won ->
				s = split;
				t = top;
				atomic {
					if
					:: split == s && t > s -> split = t; check_inv()
					:: else -> skip
					fi
				};
				held = 0
			:: else -> skip
			fi
#endif
		fi
	od
}
