// SPDX-License-Identifier: MIT
/*
 * xsched-trace summary: on the profile of fib run by 2 and 4 workers, each
 * thread's exclusive state times add up to its span, the span and the
 * TASK / TASK_CREATE counts match the raw events, the executed tasks add
 * up to xs_runtime_stats()'s tasks_executed and to the tasks fib spawns.
 * On a hand-made trace, nested events are attributed to the innermost one
 * exactly as documented (trace.h).
 */
#include "xsched-trace-test.h"
#include "xs_test.h"

static const char *const kinds[] = { "THREAD",	"TASK",	 "TASK_CREATE", "TASKWAIT",
				     "BARRIER", "STALL", "OUTSIDE" };
#define NKINDS 7

/* Per tid from the raw trace (one event per line, as profile.c writes):
 * first start, last end (ns, rounded), TASK and TASK_CREATE events. The
 * tids are the worker threads' kernel tids. */
struct raw {
	long long tid;
	double first, last;
	long task, create;
};

/* The entry of @tid in @raw, a new one if there is room, else NULL. */
static struct raw *raw_find(struct raw *raw, int nraw, long long tid)
{
	for (int i = 0; i < nraw; i++) {
		if (raw[i].tid == tid)
			return &raw[i];
		if (raw[i].tid < 0) {
			raw[i].tid = tid;
			return &raw[i];
		}
	}
	return NULL;
}

static int raw_scan(const char *json, struct raw *raw, int nraw)
{
	const char *p = json;
	unsigned int tid;
	int pid;
	char name[32];
	double ts, dur;
	struct raw *r;

	for (int i = 0; i < nraw; i++)
		raw[i] = (struct raw){ -1, 1e300, -1, 0, 0 };
	while ((p = strstr(p, "{\"ph\":\"X\""))) {
		if (sscanf(p, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"name\":\"%31[A-Z_]\",\"ts\":%lf,"
			      "\"dur\":%lf}",
			   &pid, &tid, name, &ts, &dur) != 5 ||
		    pid != (int)getpid() || !(r = raw_find(raw, nraw, tid)))
			return -1;
		if (ts < r->first)
			r->first = ts;
		if (ts + dur > r->last)
			r->last = ts + dur;
		r->task += !strcmp(name, "TASK");
		r->create += !strcmp(name, "TASK_CREATE");
		p++;
	}
	return 0;
}

static void check_workers(struct __test_metadata *_metadata, unsigned int nworkers)
{
	char trace[64], out[64], err[64];
	const int n = 16;
	struct xs_stats st;
	struct raw raw[8], *r;
	char *json, *sum, *line;
	long long executed = 0, created = 0;
	unsigned int rows = 0;

	ASSERT_EQ(0, xt_tmp(trace, sizeof(trace), ".json"));
	ASSERT_EQ(0, xt_tmp(out, sizeof(out), ".out"));
	ASSERT_EQ(0, xt_tmp(err, sizeof(err), ".err"));
	ASSERT_EQ(987, xt_make_trace(trace, nworkers, n, &st));
	ASSERT_EQ((uint64_t)xt_fib_spawns(n), st.tasks_executed);

	json = xt_slurp(trace, NULL);
	ASSERT_NE(NULL, json);
	ASSERT_EQ(0, raw_scan(json, raw, 8));
	ASSERT_EQ(0, xt_run(out, err, "summary --json %s", trace)) {
		char *e = xt_slurp(err, NULL);

		TH_LOG("stderr: %s", e ? e : "?");
		free(e);
	}
	sum = xt_slurp(out, NULL);
	ASSERT_NE(NULL, sum);

	for (line = strstr(sum, "\n{\"tid\":"); line; line = strstr(line + 1, "\n{\"tid\":")) {
		char *eol = strchr(line + 1, '\n');
		long long tid, span, total = 0;

		ASSERT_NE(NULL, eol);
		*eol = '\0';
		tid = xt_field(line, "tid", -1);
		r = raw_find(raw, 8, tid);
		ASSERT_NE(NULL, r) TH_LOG("%s", line);
		ASSERT_LT(0, r->first < 1e300) TH_LOG("tid %lld has no events: %s", tid, line);
		span = xt_field(line, "span_ns", -1);
		ASSERT_LT(0, span) TH_LOG("%s", line);
		for (int k = 0; k < NKINDS; k++) {
			long long v = xt_field(line, kinds[k], -1);

			ASSERT_LE(0, v) TH_LOG("%s: no %s", line, kinds[k]);
			total += v;
		}
		/* Integer nanoseconds: the states tile the span exactly. */
		EXPECT_EQ(span, total) TH_LOG("%s", line);
		/* The span matches the raw events' extent to the rounding of
		 * the three-decimal microseconds. */
		EXPECT_LE(llabs(span - xt_round((r->last - r->first) * 1e3)), 2)
			TH_LOG("tid %lld: span %lld ns, raw %.3f..%.3f us", tid, span,
			       r->first, r->last);
		EXPECT_EQ(r->task, xt_field(line, "executed", -1));
		EXPECT_EQ(r->create, xt_field(line, "created", -1));
		/* The events agree with the worker's own counters. */
		EXPECT_EQ(xt_field(line, "counters_executed", -2), xt_field(line, "executed", -1));
		EXPECT_EQ(0, xt_field(line, "events_dropped", -1));
		executed += xt_field(line, "executed", 0);
		created += xt_field(line, "created", 0);
		rows++;
		*eol = '\n';
		line = eol - 1;
	}
	EXPECT_EQ(nworkers, rows);
	EXPECT_EQ((long long)st.tasks_executed, executed);
	EXPECT_EQ(xt_fib_spawns(n), created);
	EXPECT_EQ(executed, xt_field(strstr(sum, "\"total\":") ?: "", "executed", -1));

	/* The table: a row per worker, a total row, every column named. */
	ASSERT_EQ(0, xt_run(out, err, "summary %s", trace));
	free(sum);
	sum = xt_slurp(out, NULL);
	ASSERT_NE(NULL, sum);
	for (int k = 0; k < NKINDS; k++)
		EXPECT_NE(NULL, strstr(sum, kinds[k]));
	EXPECT_NE(NULL, strstr(sum, "\ntotal "));
	for (unsigned int w = 0; w < nworkers; w++) {
		char want[32];

		snprintf(want, sizeof(want), "\n%-10lld ", raw[w].tid);
		EXPECT_NE(NULL, strstr(sum, want)) TH_LOG("no row for worker %u:\n%s", w, sum);
	}
	free(sum);
	free(json);
	unlink(trace);
	unlink(out);
	unlink(err);
}

TEST(fib_two_workers)
{
	check_workers(_metadata, 2);
}

TEST(fib_four_workers)
{
	check_workers(_metadata, 4);
}

/*
 * Thread 0 (microseconds): THREAD 0-100 holding TASK 10-50 (holding
 * TASKWAIT 20-40 holding TASK 25-35), TASK_CREATE 60-70 holding TASK
 * 62-68, STALL 80-90, BARRIER 90-99 holding a TASK 95-99.5 that sticks
 * out and is cut at 99; then STALL 120-130 between jobs. Listed in end
 * order, as the runtime logs them. Thread 3: THREAD 0-5.
 */
static const char nested[] =
	"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
	"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"worker 0\"}},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"TASK\",\"ts\":25.000,\"dur\":10.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"TASKWAIT\",\"ts\":20.000,\"dur\":20.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"TASK\",\"ts\":10.000,\"dur\":40.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"TASK\",\"ts\":62.000,\"dur\":6.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"TASK_CREATE\",\"ts\":60.000,\"dur\":10.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"STALL\",\"ts\":80.000,\"dur\":10.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"TASK\",\"ts\":95.000,\"dur\":4.500},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"BARRIER\",\"ts\":90.000,\"dur\":9.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"THREAD\",\"ts\":0.000,\"dur\":100.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"name\":\"STALL\",\"ts\":120.000,\"dur\":10.000},\n"
	"{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"name\":\"THREAD\",\"ts\":0.000,\"dur\":5.000}\n"
	"],\"xsched\":{\"tsc_per_us\":1000.0,\"workers\":[{\"worker\":0,\"events_dropped\":0,"
	"\"tasks_self\":3,\"tasks_local\":0,\"tasks_remote\":0,\"immediate\":1}]}}\n";

TEST(nested_events_count_for_the_innermost)
{
	/* THREAD, TASK, TASK_CREATE, TASKWAIT, BARRIER, STALL, OUTSIDE in ns */
	static const long long want0[NKINDS] = { 31000, 40000, 4000, 10000, 5000, 20000, 20000 };
	char trace[64], out[64], err[64];
	char *sum, *row0, *row3, *end;

	ASSERT_EQ(0, xt_tmp(trace, sizeof(trace), ".json"));
	ASSERT_EQ(0, xt_tmp(out, sizeof(out), ".out"));
	ASSERT_EQ(0, xt_tmp(err, sizeof(err), ".err"));
	ASSERT_EQ(0, xt_write(trace, nested, sizeof(nested) - 1));
	ASSERT_EQ(0, xt_run(out, err, "summary --json %s", trace));
	sum = xt_slurp(out, NULL);
	ASSERT_NE(NULL, sum);
	row0 = strstr(sum, "{\"tid\":0,");
	row3 = strstr(sum, "{\"tid\":3,");
	ASSERT_NE(NULL, row0);
	ASSERT_NE(NULL, row3);
	end = strchr(row0, '\n');
	ASSERT_NE(NULL, end);
	*end = '\0';
	EXPECT_NE(NULL, strstr(row0, "\"name\":\"worker 0\"")) TH_LOG("%s", row0);
	EXPECT_EQ(130000, xt_field(row0, "span_ns", -1)) TH_LOG("%s", row0);
	for (int k = 0; k < NKINDS; k++) {
		EXPECT_EQ(want0[k], xt_field(row0, kinds[k], -1)) TH_LOG("%s in %s", kinds[k], row0);
	}
	EXPECT_EQ(4, xt_field(row0, "executed", -1));
	EXPECT_EQ(1, xt_field(row0, "created", -1));
	EXPECT_EQ(4, xt_field(row0, "counters_executed", -1));
	EXPECT_EQ(5000, xt_field(row3, "span_ns", -1));
	EXPECT_EQ(5000, xt_field(row3, "THREAD", -1));
	EXPECT_EQ(0, xt_field(row3, "TASK", -1));
	free(sum);
	unlink(trace);
	unlink(out);
	unlink(err);
}

TEST_HARNESS_MAIN
