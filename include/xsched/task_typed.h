/* SPDX-License-Identifier: MIT */
/*
 * xsched/task_typed.h - typed tasks: xs_spawn()/xs_sync() specialised per
 * task function, as Lace's task macros (included by xsched.h).
 *
 *     XS_TASK_1(long, fib, int, n)
 *     {
 *             if (n < 2)
 *                     return n;
 *             fib_spawn(n - 1);
 *             fib_spawn(n - 2);
 *             long y = fib_join();    // fib(n - 2), the newest child
 *             long x = fib_join();    // fib(n - 1)
 *             return x + y;
 *     }
 *
 * XS_TASK_<k>(RTYPE, NAME, T1, A1, ..., Tk, Ak) (k = 0..4) defines the
 * static function RTYPE NAME(T1 A1, ...) with the body that follows it
 * (an ordinary function: call it directly to run it serially), and
 *
 *   NAME_spawn(A1, ...)  a child task: one frame on the caller's deque,
 *                        the arguments stored typed into its argument
 *                        block (they and the result share its 48 bytes);
 *   NAME_join()          joins the running task's newest unjoined child,
 *                        which must be a NAME_spawn() child, and returns
 *                        its result. Nobody took it: it is popped and
 *                        NAME is called directly (the compiler can inline
 *                        and specialise it). A thief took it: waits for
 *                        it (running other tasks meanwhile) and returns
 *                        the result the thief stored in the frame.
 *
 * XS_VOID_TASK_<k>(NAME, ...) is the same for a task without result.
 *
 * Lace's shape. Inside the body of a typed task, the same operations can
 * take the deque and its top from the body itself instead of looking up
 * the worker each time and reloading top after every call:
 *
 *     XS_TASK_1(long, fib, int, n)
 *     {
 *             if (n < 2)
 *                     return n;
 *             XS_SPAWN(fib, n - 1);
 *             long y = XS_CALL(fib, n - 2);  // fib(n - 2), called
 *             long x = XS_JOIN(fib);         // fib(n - 1)
 *             return x + y;
 *     }
 *
 *   XS_SPAWN(NAME, args)  NAME_spawn(args);
 *   XS_JOIN(NAME)         NAME_join();
 *   XS_CALL(NAME, args)   NAME(args), the body called directly.
 *
 * Every body receives the deque (xs_dq) and the worker's top (xs_top) as
 * two hidden parameters; XS_SPAWN() and XS_JOIN() update xs_top as they
 * move the deque's top, which they still store at every spawn and pop
 * (the rescue reads it, deque_rescue.c), so every other path sees the
 * same deque. A child joined by a direct call gets the top it was popped
 * at. On fib in Lace's shape that is 1.15-1.39 ns a spawn against
 * 1.66-2.08 with NAME_spawn()/NAME_join() (docs/perf/core.md).
 * One more rule, since xs_top is the body's copy: a body that uses them
 * uses neither NAME_spawn()/NAME_join() nor xs_spawn()/xs_sync() (which
 * move top behind xs_top's back; a function it calls may, as long as its
 * typed spawns and joins nest). Debug builds (XS_DEBUG) check xs_top.
 *
 * Same deque, same protocol as xs_spawn()/xs_sync() (task_inline.h; the
 * proofs are in libxsched/queue/deque.c and deque_rescue.c): a typed frame is
 * an ordinary frame whose fn is the thief's entry NAME_xs_thief(), which
 * unpacks the arguments and stores the result in the frame before the
 * thief releases it (a thief runs it as any stolen frame, as a task of
 * its own). Only the join differs: it takes the newest frame, top - 1,
 * where xs_sync() runs [base, top) oldest first. Popping it privately is
 * a store of top and the rescue check (deque_rescue.c, O1-O3), as when
 * xs_sync() retires frames; a public, stolen or rescued frame, or a
 * thief's request, goes to xs_task_join_newest() (deque.c).
 *
 * What a typed join saves: no argument copy (typed stores and loads), no
 * call through a pointer and no task context per call. The direct call is
 * a function call: the child runs as part of the task that joins it (it
 * gets no base or descriptor context of its own, as in Lace).
 *
 * Counting. Every typed child is counted once, when it is spawned, in
 * its spawner's deque count (xs_deque.pushed, which the statistics and
 * the stats page read as frames pushed and run: each runs once, joined by
 * a direct call or by a thief): a relaxed store on the owner's own line,
 * beside the top the spawn has just stored; no read-modify-write, no
 * shared line, no branch. Counted at the spawn rather than at the join,
 * it cost fib nothing measurable where the join's count cost fib in
 * Lace's shape 5-10% (docs/perf/count-tasks.md).
 *
 * Order. A typed join runs the newest child, so children that nobody
 * steals start in reverse spawn order (Lace's order; thieves still take
 * the oldest). xs_sync() keeps the serial order for generic children: a
 * search that must prune as the serial program does uses xs_spawn().
 *
 * Rules. Typed spawns and joins nest like parentheses: each join takes
 * the newest unjoined child, which must be a NAME_spawn() child. Join
 * every typed child before the enclosing generic task calls xs_sync() or
 * returns (either would run the typed frame through NAME_xs_thief() and
 * drop its result). Since a typed task joined directly is a function
 * call of the enclosing generic task, xs_spawn()/xs_sync() inside it act
 * on that task's children: call them there only with no typed child
 * unjoined below (better: spawn generic work from generic tasks). Typed
 * spawns need a worker (a task body) and a free frame, at most 2^22
 * unjoined frames per worker: outside a task or past that, NAME_spawn()
 * prints why and aborts. Under XSCHED_DLB=slb or rp, and with
 * XSCHED_PROFILE, typed children are still frames (the out-of-line
 * spawn pushes them), never descriptors. Debug builds (XS_DEBUG) check
 * that a join meets a NAME_spawn() child.
 */
#ifndef XSCHED_TASK_TYPED_H
#define XSCHED_TASK_TYPED_H

#include "xsched/task_inline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Out-of-line halves (libxsched/queue/deque.c). */
struct xs_frame *xs_task_typed_frame(void);
int xs_task_join_newest(void);
void xs_task_typed_misuse(const char *name) __attribute__((noreturn));

/* The frame a typed spawn fills: frame @top of the caller's deque, where
 * @top is d->top (the caller's copy of it: XS_SPAWN() keeps it in a
 * register). The out-of-line path aborts outside a worker and past the
 * reservation; it never moves top. */
static inline struct xs_frame *xs_typed_frame(struct xs_deque *d, uint32_t top)
{
	if (__builtin_expect(!d || top >= d->limit, 0))
		return xs_task_typed_frame();
	return &d->frames[top];
}

/* Push the frame @top just filled: exactly xs_spawn()'s push, and the
 * child counted (see Counting). */
static inline void xs_typed_push(struct xs_deque *d, uint32_t top)
{
	/* Release: the frame to a rescuer's acquire of top (deque_rescue.c);
	 * its check is the splitreq load below. */
	__atomic_store_n(&d->top, top + 1, __ATOMIC_RELEASE);
	/* Relaxed: owner-written; readers sum snapshots (obs/stats.c). */
	__atomic_store_n(&d->pushed, d->pushed + 1, __ATOMIC_RELAXED);
	/* Relaxed: a hint from a thief, as in xs_spawn(). */
	if (__builtin_expect(__atomic_load_n(&d->splitreq, __ATOMIC_RELAXED) != 0, 0))
		xs_task_publish();
}

/*
 * Pop the newest frame, @i = top - 1, for a typed join. True: it was private
 * and is popped; the caller runs its task by a direct call. False: it ran
 * elsewhere (a thief, or the out-of-line path) and is popped; its result
 * is in the frame.
 *
 * The pop lowers top and then looks at splitreq, as every store of top
 * that retires a frame (deque_rescue.c, O1-O3): either a rescuer read the
 * new top and leaves the frame alone, or the check sees its claim. No
 * claim store (fn = NULL) is needed: a frame at or above top is never
 * published by the owner, and the rescue case is the out-of-line path's.
 */
static inline int xs_typed_pop(struct xs_deque *d, uint32_t i)
{
	/* The one compare against the split is the "not stolen" test: a
	 * frame at or above the split was never public. */
	if (__builtin_expect(i < d->split, 0))
		return xs_task_join_newest();
	/* Relaxed, then the rescue check: deque_rescue.c. */
	__atomic_store_n(&d->top, i, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&d->splitreq, __ATOMIC_RELAXED) != 0, 0)) {
		/* Put it back (the frame is intact); the out-of-line path
		 * serves the request or the rescue from top == i + 1. */
		__atomic_store_n(&d->top, i + 1, __ATOMIC_RELAXED);
		return xs_task_join_newest();
	}
	return 1;
}

/* The generated code also compiles as C++. */
#ifdef __cplusplus
#define XS_TYPED_ASSERT_(e, m) static_assert(e, m)
#define XS_TYPED_ALIGNOF_(t) alignof(t)
#else
#define XS_TYPED_ASSERT_(e, m) _Static_assert(e, m)
#define XS_TYPED_ALIGNOF_(t) _Alignof(t)
#endif

#ifdef XS_DEBUG
#define XS_TYPED_CHECK_(D, TOP, THIEF, NAME)						\
	do {										\
		if ((D)->top != (TOP) || (TOP) <= (D)->base ||				\
		    (D)->frames[(TOP) - 1].fn != (THIEF))				\
			xs_task_typed_misuse(NAME);					\
	} while (0)
#define XS_TYPED_CHECK_TOP_(D, TOP, NAME)						\
	do {										\
		if ((D) && (D)->top != (TOP))						\
			xs_task_typed_misuse(NAME);					\
	} while (0)
#else
#define XS_TYPED_CHECK_(D, TOP, THIEF, NAME) ((void)0)
#define XS_TYPED_CHECK_TOP_(D, TOP, NAME) ((void)0)
#endif

/*
 * The generator. PARAMS: the parenthesised parameter list; TDECL, TCALL and
 * TJOIN: what follows the deque and top in the parameter list of the body
 * and of NAME_xs_spawn(), in NAME()'s and NAME_spawn()'s calls of them and
 * in the join's direct call, parenthesised: NAME itself first (the tag
 * that lets XS_SPAWN() and XS_CALL() name the task and its arguments in
 * one list, which strict C11 and C++17 cannot leave empty), then the
 * parameters, their names, or the arguments read back from block xs_b;
 * FIELDS: the argument struct's members; STORE: statements that store the
 * parameters into block xs_b; ARGS: the parenthesised arguments read back
 * from block xs_b. The body is NAME_xs_body(xs_dq, xs_top, tag, ...): the
 * deque and its top passed along, for XS_SPAWN(), XS_JOIN() and
 * XS_CALL(). Its locals start with xs_ so that they cannot hide a
 * parameter.
 */
#define XS_UNPAREN_(...) __VA_ARGS__
#define XS_TASK_GEN_(RTYPE, NAME, PARAMS, TDECL, TCALL, TJOIN, FIELDS, STORE, ARGS)	\
	union NAME##_xs_block {								\
		struct { FIELDS } a;							\
		RTYPE r;								\
	};										\
	XS_TYPED_ASSERT_(sizeof(union NAME##_xs_block) <= 48,				\
		       #NAME ": arguments and result must fit in 48 bytes");		\
	XS_TYPED_ASSERT_(XS_TYPED_ALIGNOF_(union NAME##_xs_block) <= 16,		\
		       #NAME ": arguments aligned to at most 16 bytes");		\
	static inline RTYPE NAME PARAMS;						\
	static RTYPE NAME##_xs_body(struct xs_deque *xs_dq, uint32_t xs_top,		\
				    XS_UNPAREN_ TDECL);					\
	static inline __attribute__((unused)) RTYPE NAME PARAMS				\
	{										\
		struct xs_deque *xs_d = xs_deque_self();				\
		return NAME##_xs_body(xs_d, xs_d ? xs_d->top : 0, XS_UNPAREN_ TCALL);	\
	}										\
	static void NAME##_xs_thief(void *xs_p)						\
	{										\
		union NAME##_xs_block *xs_b = (union NAME##_xs_block *)xs_p;		\
		xs_b->r = NAME ARGS;							\
	}										\
	XS_TYPED_SPAWN_(NAME, PARAMS, TDECL, TCALL, STORE)				\
	/* Join with the newest frame, xs_i = top - 1 (the new top). */		\
	static inline __attribute__((unused)) RTYPE					\
	NAME##_xs_join(struct xs_deque *xs_d, uint32_t xs_i)				\
	{										\
		union NAME##_xs_block *xs_b =						\
			(union NAME##_xs_block *)(void *)xs_d->frames[xs_i].arg;	\
		XS_TYPED_CHECK_(xs_d, xs_i + 1, NAME##_xs_thief, #NAME);		\
		if (__builtin_expect(xs_typed_pop(xs_d, xs_i), 1))			\
			return NAME##_xs_body(xs_d, xs_i, XS_UNPAREN_ TJOIN);		\
		return xs_b->r;								\
	}										\
	static inline __attribute__((unused)) RTYPE NAME##_join(void)			\
	{										\
		struct xs_deque *xs_d = xs_deque_self();				\
		return NAME##_xs_join(xs_d, xs_d->top - 1);				\
	}										\
	static RTYPE NAME##_xs_body(struct xs_deque *xs_dq __attribute__((unused)),	\
				    uint32_t xs_top __attribute__((unused)),		\
				    XS_UNPAREN_ TDECL)

#define XS_VOID_TASK_GEN_(NAME, PARAMS, TDECL, TCALL, TJOIN, FIELDS, STORE, ARGS)	\
	union NAME##_xs_block {								\
		struct { FIELDS } a;							\
	};										\
	XS_TYPED_ASSERT_(sizeof(union NAME##_xs_block) <= 48,				\
		       #NAME ": arguments must fit in 48 bytes");			\
	XS_TYPED_ASSERT_(XS_TYPED_ALIGNOF_(union NAME##_xs_block) <= 16,		\
		       #NAME ": arguments aligned to at most 16 bytes");		\
	static inline void NAME PARAMS;							\
	static void NAME##_xs_body(struct xs_deque *xs_dq, uint32_t xs_top,		\
				   XS_UNPAREN_ TDECL);					\
	static inline __attribute__((unused)) void NAME PARAMS				\
	{										\
		struct xs_deque *xs_d = xs_deque_self();				\
		NAME##_xs_body(xs_d, xs_d ? xs_d->top : 0, XS_UNPAREN_ TCALL);		\
	}										\
	static void NAME##_xs_thief(void *xs_p)						\
	{										\
		union NAME##_xs_block *xs_b = (union NAME##_xs_block *)xs_p;		\
		(void)xs_b;								\
		NAME ARGS;								\
	}										\
	XS_TYPED_SPAWN_(NAME, PARAMS, TDECL, TCALL, STORE)				\
	static inline __attribute__((unused)) void					\
	NAME##_xs_join(struct xs_deque *xs_d, uint32_t xs_i)				\
	{										\
		union NAME##_xs_block *xs_b =						\
			(union NAME##_xs_block *)(void *)xs_d->frames[xs_i].arg;	\
		(void)xs_b;								\
		XS_TYPED_CHECK_(xs_d, xs_i + 1, NAME##_xs_thief, #NAME);		\
		if (__builtin_expect(xs_typed_pop(xs_d, xs_i), 1))			\
			NAME##_xs_body(xs_d, xs_i, XS_UNPAREN_ TJOIN);			\
	}										\
	static inline __attribute__((unused)) void NAME##_join(void)			\
	{										\
		struct xs_deque *xs_d = xs_deque_self();				\
		NAME##_xs_join(xs_d, xs_d->top - 1);					\
	}										\
	static void NAME##_xs_body(struct xs_deque *xs_dq __attribute__((unused)),	\
				   uint32_t xs_top __attribute__((unused)),		\
				   XS_UNPAREN_ TDECL)

/* NAME_xs_spawn(d, top, tag, args): fill frame @top's block through STORE,
 * push it; the new top. NAME_spawn(args): the same at the worker's top. */
#define XS_TYPED_SPAWN_(NAME, PARAMS, TDECL, TCALL, STORE)				\
	static inline __attribute__((unused)) uint32_t					\
	NAME##_xs_spawn(struct xs_deque *xs_d, uint32_t xs_t, XS_UNPAREN_ TDECL)	\
	{										\
		struct xs_frame *xs_f = xs_typed_frame(xs_d, xs_t);			\
		union NAME##_xs_block *xs_b = (union NAME##_xs_block *)(void *)xs_f->arg; \
		(void)xs_b;								\
		XS_TYPED_CHECK_TOP_(xs_d, xs_t, #NAME);					\
		xs_f->fn = NAME##_xs_thief;						\
		STORE									\
		xs_typed_push(xs_d, xs_t);						\
		return xs_t + 1;							\
	}										\
	static inline __attribute__((unused)) void NAME##_spawn PARAMS			\
	{										\
		struct xs_deque *xs_d = xs_deque_self();				\
		NAME##_xs_spawn(xs_d, xs_d ? xs_d->top : 0, XS_UNPAREN_ TCALL);		\
	}

/*
 * Inside the body of a typed task: the spawn, join and call of typed task
 * NAME with the deque and top passed along (Lace's shape) instead of
 * looked up from the worker and reloaded after every call. XS_CALL() runs
 * NAME serially, as NAME(...) does, without the lookup. NAME itself is
 * passed as the first argument after the deque and top (a tag the
 * compiler drops), so that a task without arguments needs no empty list.
 */
#define XS_HEAD_(x, ...) x
#define XS_CAT2_(a, b) a##b
#define XS_CAT_(a, b) XS_CAT2_(a, b)
#define XS_SPAWN(...)									\
	((void)(xs_top = XS_CAT_(XS_HEAD_(__VA_ARGS__, ~), _xs_spawn)(xs_dq, xs_top, __VA_ARGS__)))
#define XS_JOIN(NAME) NAME##_xs_join(xs_dq, --xs_top)
#define XS_CALL(...) XS_CAT_(XS_HEAD_(__VA_ARGS__, ~), _xs_body)(xs_dq, xs_top, __VA_ARGS__)

/* Arities 0..4. */
#define XS_TASK_0(R, NAME) \
	XS_TASK_GEN_(R, NAME, (void), (__attribute__((unused)) R (*xs_tag)(void)), (NAME), (NAME), \
		char xs_none;, , ())
#define XS_TASK_1(R, NAME, T1, A1) \
	XS_TASK_GEN_(R, NAME, (T1 A1), (__attribute__((unused)) R (*xs_tag)(T1 A1), T1 A1), (NAME, A1), \
		(NAME, xs_b->a.A1), T1 A1;, xs_b->a.A1 = A1;, (xs_b->a.A1))
#define XS_TASK_2(R, NAME, T1, A1, T2, A2) \
	XS_TASK_GEN_(R, NAME, (T1 A1, T2 A2), \
		(__attribute__((unused)) R (*xs_tag)(T1 A1, T2 A2), T1 A1, T2 A2), (NAME, A1, A2), \
		(NAME, xs_b->a.A1, xs_b->a.A2), T1 A1; T2 A2;, \
		xs_b->a.A1 = A1; xs_b->a.A2 = A2;, (xs_b->a.A1, xs_b->a.A2))
#define XS_TASK_3(R, NAME, T1, A1, T2, A2, T3, A3) \
	XS_TASK_GEN_(R, NAME, (T1 A1, T2 A2, T3 A3), \
		(__attribute__((unused)) R (*xs_tag)(T1 A1, T2 A2, T3 A3), T1 A1, T2 A2, T3 A3), \
		(NAME, A1, A2, A3), (NAME, xs_b->a.A1, xs_b->a.A2, xs_b->a.A3), \
		T1 A1; T2 A2; T3 A3;, \
		xs_b->a.A1 = A1; xs_b->a.A2 = A2; xs_b->a.A3 = A3;, \
		(xs_b->a.A1, xs_b->a.A2, xs_b->a.A3))
#define XS_TASK_4(R, NAME, T1, A1, T2, A2, T3, A3, T4, A4) \
	XS_TASK_GEN_(R, NAME, (T1 A1, T2 A2, T3 A3, T4 A4), \
		(__attribute__((unused)) R (*xs_tag)(T1 A1, T2 A2, T3 A3, T4 A4), T1 A1, T2 A2, T3 A3, T4 A4), \
		(NAME, A1, A2, A3, A4), \
		(NAME, xs_b->a.A1, xs_b->a.A2, xs_b->a.A3, xs_b->a.A4), \
		T1 A1; T2 A2; T3 A3; T4 A4;, \
		xs_b->a.A1 = A1; xs_b->a.A2 = A2; xs_b->a.A3 = A3; xs_b->a.A4 = A4;, \
		(xs_b->a.A1, xs_b->a.A2, xs_b->a.A3, xs_b->a.A4))

#define XS_VOID_TASK_0(NAME) \
	XS_VOID_TASK_GEN_(NAME, (void), (__attribute__((unused)) void (*xs_tag)(void)), (NAME), (NAME), \
		char xs_none;, , ())
#define XS_VOID_TASK_1(NAME, T1, A1) \
	XS_VOID_TASK_GEN_(NAME, (T1 A1), (__attribute__((unused)) void (*xs_tag)(T1 A1), T1 A1), (NAME, A1), \
		(NAME, xs_b->a.A1), T1 A1;, xs_b->a.A1 = A1;, (xs_b->a.A1))
#define XS_VOID_TASK_2(NAME, T1, A1, T2, A2) \
	XS_VOID_TASK_GEN_(NAME, (T1 A1, T2 A2), \
		(__attribute__((unused)) void (*xs_tag)(T1 A1, T2 A2), T1 A1, T2 A2), (NAME, A1, A2), \
		(NAME, xs_b->a.A1, xs_b->a.A2), T1 A1; T2 A2;, \
		xs_b->a.A1 = A1; xs_b->a.A2 = A2;, (xs_b->a.A1, xs_b->a.A2))
#define XS_VOID_TASK_3(NAME, T1, A1, T2, A2, T3, A3) \
	XS_VOID_TASK_GEN_(NAME, (T1 A1, T2 A2, T3 A3), \
		(__attribute__((unused)) void (*xs_tag)(T1 A1, T2 A2, T3 A3), T1 A1, T2 A2, T3 A3), \
		(NAME, A1, A2, A3), (NAME, xs_b->a.A1, xs_b->a.A2, xs_b->a.A3), \
		T1 A1; T2 A2; T3 A3;, \
		xs_b->a.A1 = A1; xs_b->a.A2 = A2; xs_b->a.A3 = A3;, \
		(xs_b->a.A1, xs_b->a.A2, xs_b->a.A3))
#define XS_VOID_TASK_4(NAME, T1, A1, T2, A2, T3, A3, T4, A4) \
	XS_VOID_TASK_GEN_(NAME, (T1 A1, T2 A2, T3 A3, T4 A4), \
		(__attribute__((unused)) void (*xs_tag)(T1 A1, T2 A2, T3 A3, T4 A4), T1 A1, T2 A2, T3 A3, T4 A4), \
		(NAME, A1, A2, A3, A4), \
		(NAME, xs_b->a.A1, xs_b->a.A2, xs_b->a.A3, xs_b->a.A4), \
		T1 A1; T2 A2; T3 A3; T4 A4;, \
		xs_b->a.A1 = A1; xs_b->a.A2 = A2; xs_b->a.A3 = A3; xs_b->a.A4 = A4;, \
		(xs_b->a.A1, xs_b->a.A2, xs_b->a.A3, xs_b->a.A4))

#ifdef __cplusplus
}
#endif
#endif /* XSCHED_TASK_TYPED_H */
