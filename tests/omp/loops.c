/* SPDX-License-Identifier: MIT */
/*
 * loops.c - worksharing loops under every schedule: static (with and
 * without chunk), dynamic, guided, runtime (under every kind set by
 * omp_set_schedule), auto, monotonic: and nonmonotonic: modifiers; int, long
 * and unsigned long long loops (GOMP_loop_ull_*), odd bounds, negative
 * steps, empty loops, collapse(2), nowait, lastprivate, reductions and the
 * combined "parallel for". Every iteration must run exactly once.
 */
#include <omp.h>
#include <string.h>

#include "omp-check.h"

#define PRAGMA(x) _Pragma(#x)

enum { SPAN = 4096, SHAPES = 7 };
static int count[SHAPES][SPAN];
static int want[SHAPES][SPAN];

static const unsigned long long B = 0x8000000000000000ULL + 777;

static void hit(int shape, long slot)
{
#pragma omp atomic
	count[shape][slot]++;
}

/* The iterations of every shape, run serially. */
static void expected(void)
{
	memset(want, 0, sizeof want);
	for (int i = -17; i < 2003; i += 3)
		want[0][i + 17]++;
	for (long i = 1999; i > -7; i -= 4)
		want[1][i + 7]++;
	for (unsigned long long i = B; i < B + 1500; i += 5)
		want[2][i - B]++;
	for (unsigned long long i = B + 1500; i > B; i -= 7)
		want[3][i - B]++;
	/* shape 4 is the empty loop */
	for (int i = 0; i < 31; i++)
		for (int j = -3; j < 50; j += 4)
			want[5][i * 64 + j + 3]++;
	for (int i = 2500; i >= 0; i -= 9)
		want[6][i]++;
}

static void check(const char *sched, long long sum, int last, unsigned long long mx,
		  long long sum_down)
{
	char name[128];
	static const char *const shape[SHAPES] = {
		"int-odd-bounds", "long-negative-step", "ull", "ull-negative-step",
		"empty", "collapse(2)", "parallel-for",
	};

	for (int s = 0; s < SHAPES; s++) {
		snprintf(name, sizeof name, "loops.%s.%s.each-iteration-once", sched, shape[s]);
		for (int k = 0; k < SPAN; k++)
			CHECK(name, count[s][k] == want[s][k]);
	}
	long long want_sum = 0, want_down = 0;

	for (int i = -17; i < 2003; i += 3)
		want_sum += i;
	for (int i = 2500; i >= 0; i -= 9)
		want_down += i;
	snprintf(name, sizeof name, "loops.%s.reduction", sched);
	CHECK(name, sum == want_sum && sum_down == want_down);
	snprintf(name, sizeof name, "loops.%s.lastprivate", sched);
	CHECK(name, last == 2002);
	snprintf(name, sizeof name, "loops.%s.reduction-max-ull", sched);
	CHECK(name, mx == B + 1495);
	memset(count, 0, sizeof count);
	snprintf(name, sizeof name, "loops.%s", sched);
	OK(name);
}

/* Defines loops_NAME(): every shape under schedule(__VA_ARGS__). */
#define SCHEDULED(NAME, ...)                                                            \
	static void loops_##NAME(const char *sched)                                     \
	{                                                                               \
		long long sum = 0, sum_down = 0;                                        \
		unsigned long long mx = 0;                                              \
		int last = -1;                                                          \
		volatile int vlo = 10, vhi = 5;                                         \
		int lo = vlo, hi = vhi;                                                 \
                                                                                        \
		PRAGMA(omp parallel)                                                    \
		{                                                                       \
			PRAGMA(omp for schedule(__VA_ARGS__) reduction(+ : sum) lastprivate(last)) \
			for (int i = -17; i < 2003; i += 3) {                           \
				hit(0, i + 17);                                         \
				sum += i;                                               \
				last = i;                                               \
			}                                                               \
			PRAGMA(omp for schedule(__VA_ARGS__) nowait)                    \
			for (long i = 1999; i > -7; i -= 4)                             \
				hit(1, i + 7);                                          \
			PRAGMA(omp for schedule(__VA_ARGS__) reduction(max : mx))       \
			for (unsigned long long i = B; i < B + 1500; i += 5) {          \
				hit(2, (long)(i - B));                                  \
				if (i > mx)                                             \
					mx = i;                                         \
			}                                                               \
			PRAGMA(omp for schedule(__VA_ARGS__) nowait)                    \
			for (unsigned long long i = B + 1500; i > B; i -= 7)            \
				hit(3, (long)(i - B));                                  \
			PRAGMA(omp for schedule(__VA_ARGS__))                           \
			for (int i = lo; i < hi; i++)                                   \
				hit(4, i);                                              \
			PRAGMA(omp for collapse(2) schedule(__VA_ARGS__) nowait)        \
			for (int i = 0; i < 31; i++)                                    \
				for (int j = -3; j < 50; j += 4)                        \
					hit(5, i * 64 + j + 3);                         \
		}                                                                       \
		/* no reduction clause: gcc combines it into GOMP_parallel_loop_* */   \
		PRAGMA(omp parallel for schedule(__VA_ARGS__))                          \
		for (int i = 2500; i >= 0; i -= 9) {                                    \
			hit(6, i);                                                      \
			PRAGMA(omp atomic)                                              \
			sum_down += i;                                                  \
		}                                                                       \
		check(sched, sum, last, mx, sum_down);                                  \
	}

SCHEDULED(static, static)
SCHEDULED(static_7, static, 7)
SCHEDULED(static_1, static, 1)
SCHEDULED(monotonic_static_3, monotonic : static, 3)
SCHEDULED(dynamic, dynamic)
SCHEDULED(dynamic_5, dynamic, 5)
SCHEDULED(monotonic_dynamic_4, monotonic : dynamic, 4)
SCHEDULED(nonmonotonic_dynamic_4, nonmonotonic : dynamic, 4)
SCHEDULED(guided, guided)
SCHEDULED(guided_3, guided, 3)
SCHEDULED(monotonic_guided, monotonic : guided)
SCHEDULED(nonmonotonic_guided_2, nonmonotonic : guided, 2)
SCHEDULED(auto, auto)
SCHEDULED(runtime, runtime)
SCHEDULED(monotonic_runtime, monotonic : runtime)
SCHEDULED(nonmonotonic_runtime, nonmonotonic : runtime)

static void runtime_kinds(void)
{
	static const struct {
		omp_sched_t kind;
		int chunk;
		const char *name;
	} kinds[] = {
		{ omp_sched_static, 0, "runtime=static" },
		{ omp_sched_static, 5, "runtime=static,5" },
		{ omp_sched_dynamic, 1, "runtime=dynamic" },
		{ omp_sched_dynamic, 3, "runtime=dynamic,3" },
		{ omp_sched_guided, 1, "runtime=guided" },
		{ omp_sched_guided, 7, "runtime=guided,7" },
		{ omp_sched_auto, 0, "runtime=auto" },
		{ omp_sched_dynamic | omp_sched_monotonic, 2, "runtime=monotonic:dynamic,2" },
		{ omp_sched_guided | omp_sched_monotonic, 4, "runtime=monotonic:guided,4" },
	};
	omp_sched_t saved_kind;
	int saved_chunk;

	omp_get_schedule(&saved_kind, &saved_chunk);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		omp_set_schedule(kinds[k].kind, kinds[k].chunk);
		loops_runtime(kinds[k].name);
	}
	omp_set_schedule(omp_sched_dynamic, 2);
	loops_monotonic_runtime("monotonic:runtime=dynamic,2");
	omp_set_schedule(omp_sched_guided, 3);
	loops_nonmonotonic_runtime("nonmonotonic:runtime=guided,3");
	omp_set_schedule(saved_kind, saved_chunk);
}

/* Loops in a team that also runs a nowait loop first, over one array. */
static void nowait_then_dependent(void)
{
	enum { N = 3001 };
	static long a[N], b[N];

#pragma omp parallel
	{
#pragma omp for schedule(dynamic, 8) nowait
		for (int i = 0; i < N; i++)
			a[i] = (long)i * 3;
#pragma omp barrier
#pragma omp for schedule(guided)
		for (int i = 0; i < N; i++)
			b[i] = a[N - 1 - i] + 1;
	}
	for (int i = 0; i < N; i++)
		CHECK("loops.nowait-barrier", b[i] == (long)(N - 1 - i) * 3 + 1);
	OK("loops.nowait-barrier");
}

/* Loops with one iteration and with a step larger than the range. */
static void tiny(void)
{
	int runs = 0;
	long lp = -1;

#pragma omp parallel for schedule(dynamic) reduction(+ : runs)
	for (int i = 0; i < 1; i++)
		runs++;
#pragma omp parallel for schedule(guided, 5) reduction(+ : runs) lastprivate(lp)
	for (long i = 3; i < 10; i += 100) {
		runs++;
		lp = i;
	}
#pragma omp parallel for schedule(static, 3) reduction(+ : runs)
	for (unsigned long long i = B; i > B - 2; i--)
		runs++;
	CHECK("loops.tiny", runs == 4 && lp == 3);
	OK("loops.tiny");
}

int main(void)
{
	omp_set_dynamic(0);
	expected();
	loops_static("static");
	loops_static_7("static,7");
	loops_static_1("static,1");
	loops_monotonic_static_3("monotonic:static,3");
	loops_dynamic("dynamic");
	loops_dynamic_5("dynamic,5");
	loops_monotonic_dynamic_4("monotonic:dynamic,4");
	loops_nonmonotonic_dynamic_4("nonmonotonic:dynamic,4");
	loops_guided("guided");
	loops_guided_3("guided,3");
	loops_monotonic_guided("monotonic:guided");
	loops_nonmonotonic_guided_2("nonmonotonic:guided,2");
	loops_auto("auto");
	runtime_kinds();
	nowait_then_dependent();
	tiny();
	return 0;
}
