/*
 * single.pml - who runs a plain single: xg_single() in
 * libxsched/gomp/ws.c, in Spin.
 *
 * T threads of a team meet the same S singles in order, every one of them
 * nowait (the most freedom: a thread may run any number of singles ahead
 * of the others; a closing barrier only removes interleavings). Each
 * thread counts the singles it met (`k`, the implicit task's `singles`);
 * single k is run by the thread whose CAS moves the team's `count`
 * (struct xg_team's `singles`) from k to k + 1.
 *
 * Checked: no single runs twice (assert at each run) and, once every
 * thread is done, every single ran once (none skipped). The CAS is one
 * atomic step, as the hardware's; relaxed order is enough, since the
 * count orders nothing but itself (RMW atomicity).
 *
 * Mutations that must fail (tests/models/check.sh):
 *   -DMUT_FETCH_ADD   every thread adds 1 and the one that saw k runs it:
 *                     a thread behind pushes the count past a single
 *                     nobody has taken, which is then never run
 *   -DMUT_LOAD_STORE  look, then store k + 1 (no CAS): two threads that
 *                     both saw k both run single k
 */
#ifndef T
#define T 3
#endif
#ifndef S
#define S 4
#endif

byte count = 0;
byte runs[S];
byte finished = 0;

active [T] proctype thread()
{
	byte k = 0;
	bit first;

	do
	:: k < S ->
#if defined(MUT_FETCH_ADD)
		atomic { first = (count == k); count++ };
#elif defined(MUT_LOAD_STORE)
		first = (count == k);
		if
		:: first -> count = k + 1
		:: else -> skip
		fi;
#else
		atomic {
			if
			:: count == k -> count = k + 1; first = 1
			:: else -> first = 0
			fi
		};
#endif
		if
		:: first -> runs[k]++; assert(runs[k] == 1)
		:: else -> skip
		fi;
		k++
	:: else -> break
	od;
	finished++
}

active proctype check()
{
	byte k = 0;

	finished == T;
	do
	:: k < S -> assert(runs[k] == 1); k++
	:: else -> break
	od
}
