/*
 * barrier.pml - the tree barrier's termination detection (libxsched/core/barrier.c).
 *
 * Three workers in the code's binary tree (0 is the root, 1 and 2 its
 * children) enter one barrier episode. Before arriving, worker 0's
 * implicit task spawns one task of depth DEPTH (default 1; -DDEPTH=2 is
 * exhaustive too but takes far longer) into some worker's queue; a task
 * of depth d > 0 spawns FAN tasks of depth d - 1, each into a queue with
 * room (where every queue is full, the code runs the child at once, inside
 * its parent, uncounted; here it is not spawned). Waiting workers run what
 * arrives in their queues, as xs_worker_wait_until() does.
 *
 * Property: no premature release. `out` counts the tasks created and not
 * yet finished, in real time (a ghost, never read by the workers). When
 * the root decides to release, and when any worker leaves the barrier,
 * out == 0 and every queue is empty (asserted). And every run ends with
 * all three workers released (end states).
 *
 * Map to the code, line by line (libxsched/core/barrier.c):
 *
 *   C[], F[]           struct xs_barrier_counts (core/barrier.h): the
 *                      barrier's own created / finished, owner-written
 *                      (rejoined, Y, is added to both and not modelled:
 *                      frames are not)
 *   spawn()            worker.c spawn: C incremented before the push
 *                      (xs_barrier_count_created()), then queued
 *   run_task()         worker.c: body, then F after it
 *                      (xs_barrier_count_finished())
 *   worker():
 *     B1  seq++                      uint64_t seq = ++w->bar.seq
 *     B2  drain                      xs_worker_drain(w)
 *     B3  wait report_seq[c] >= seq  xs_barrier_gather: xs_worker_wait_until(
 *                                        w, xs_report_arrived, &rw) (runs tasks)
 *     B4  sum children's reports     *created += cn->report_created; ...
 *     B5  own counts last            *created += bcnt.created + rejoined;
 *                                    *finished += bcnt.finished + rejoined
 *     B6  root: decide()             xs_barrier_decide(): wave 1: created ==
 *                                    released_total; later: prev_finished == created
 *     B7  child: report              report_created/finished = ...;
 *                                    xs_store_release(&report_seq, seq)
 *     B8  child: wait down >= seq    xs_barrier_wait_word(w, xs_down_arrived)
 *     B9  root: down = (seq, release) xs_store_release(&rt->barrier_down, ...):
 *                                    one word every other worker waits on
 *
 * Mutation (must make spin report an error, tests/models/check.sh):
 *   -DMUT_TWO_COUNTER  release as soon as one wave's sums agree
 *                      (finished == created): the hopeful two-counter rule.
 *                      A wave reads its workers at different times; a task
 *                      created after its creator reported and finished
 *                      before its runner reported is counted in F only,
 *                      hiding one still queued.
 *   -DMUT_STALE_DOWN   a waiter takes the previous wave's decision in
 *                      rt->barrier_down for its own: it leaves without
 *                      the root's verdict on the wave it reported.
 */

#ifndef DEPTH
#define DEPTH 1
#endif
#define FAN 2
#define N 3
#ifndef QCAP
#define QCAP 1
#endif

chan q[N] = [QCAP] of { byte };
byte C[N], F[N];               /* per-worker counters, owner-written */
byte out;                      /* ghost: created, not finished */
byte report_seq[N], rep_C[N], rep_F[N];
byte down_seq;                 /* rt->barrier_down, root-written */
bit down_rel;
/* the root's xs_barrier_state */
byte wave_in_episode, prev_created, prev_finished, released_total;

inline spawn(me, d) {
	if
	:: atomic { nfull(q[0]) -> C[me]++; out++; q[0]!d }
	:: atomic { nfull(q[1]) -> C[me]++; out++; q[1]!d }
	:: atomic { nfull(q[2]) -> C[me]++; out++; q[2]!d }
	:: atomic { full(q[0]) && full(q[1]) && full(q[2]) } /* runs inline */
	fi
}

inline run_task(me) {
	atomic { q[me]?d; k = 0 };
	do
	:: d > 0 && k < FAN -> spawn(me, d - 1); k++
	:: d == 0 || k == FAN -> break
	od;
	atomic { F[me]++; out-- }
}

inline all_quiet() {
	assert(out == 0 && empty(q[0]) && empty(q[1]) && empty(q[2]))
}

proctype worker(byte me) {
	byte seq, created, finished, c, d, k;
	bit release;

	if
	:: me == 0 -> spawn(me, DEPTH)  /* the implicit task's work */
	:: else
	fi;
	do
	:: atomic { seq++; created = 0; finished = 0 }      /* B1 */
		do                                          /* B2 */
		:: nempty(q[me]) -> run_task(me)
		:: empty(q[me]) -> break
		od;
		for (c : 2 * me + 1 .. 2 * me + 2) {
			if
			:: c < N ->
				do                          /* B3, B4 */
				:: atomic { report_seq[c] >= seq ->
					created = created + rep_C[c];
					finished = finished + rep_F[c] }; break
				:: nempty(q[me]) -> run_task(me)
				od
			:: else
			fi
		};
		atomic { created = created + C[me];         /* B5: only we */
			 finished = finished + F[me] };     /* write them */
		if
		:: me == 0 ->                               /* B6 */
			atomic {
#ifdef MUT_TWO_COUNTER
				release = (finished == created);
#else
				if
				:: wave_in_episode == 0 -> release = (created == released_total)
				:: else -> release = (prev_finished == created)
				fi;
#endif
				wave_in_episode++;
				prev_finished = finished;
				prev_created = created;
				if
				:: release -> released_total = created; wave_in_episode = 0;
					all_quiet()
				:: else
				fi
			}
		:: else ->
			atomic { rep_C[me] = created;       /* B7: read by */
				 rep_F[me] = finished;      /* the parent only */
				 report_seq[me] = seq };    /* after this */
			do                                  /* B8 */
#ifdef MUT_STALE_DOWN
			:: atomic { down_seq + 1 >= seq -> release = down_rel }; break
#else
			:: atomic { down_seq >= seq -> release = down_rel }; break
#endif
			:: nempty(q[me]) -> run_task(me)
			od
		fi;
		if                                          /* B9 */
		:: me == 0 -> atomic { down_rel = release; down_seq = seq }
		:: else
		fi;
		if
		:: release -> break
		:: else
		fi
	od;
	all_quiet()
}

init {
	atomic { run worker(0); run worker(1); run worker(2) }
}
