// SPDX-License-Identifier: MIT
/*
 * xsched-trace on files that are not a profile: empty, not JSON,
 * truncated anywhere, wrong types, unknown events, absurd values, deep
 * nesting, a directory, a missing file. Each gets exit status 1 and one
 * message naming the file and the position; random corruptions of a real
 * profile (a seeded fuzz) never crash the tool or hang it.
 */
#include <sys/stat.h>

#include "xsched-trace-test.h"
#include "xs_test.h"

struct bad {
	const char *content;
	const char *message; /* expected in stderr, after "FILE:" */
};

static const struct bad bad[] = {
	{ "", "1:1: byte 0: empty file, expected a JSON object" },
	{ "   \n", "2:1: byte 4: empty file" },
	{ "hello", "1:1: byte 0: expected '{', found 'h'" },
	{ "[1,2]", "1:2: byte 1: expected an event object" }, /* the array form */
	{ "{\"traceEvents\":[", "1:17: byte 16: expected an event object" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,", "end of file" },
	{ "{\"traceEvents\":[{\"ph\":\"X\"", "expected ',' or '}', found end of file" },
	{ "{\"traceEvents\":[]", "expected ',' or '}', found end of file" },
	{ "{\"traceEvents\":[]} x", "1:20: byte 19: trailing data after the JSON document: 'x'" },
	{ "{}", "no \"traceEvents\" array" },
	{ "{\"traceEvents\":{}}", "\"traceEvents\" is not an array" },
	{ "{\"traceEvents\":[1]}", "expected an event object" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"FOO\",\"ts\":1,\"dur\":1}]}",
	  "unknown event name \"FOO\" (expected THREAD, TASK, TASK_CREATE, TASKWAIT, BARRIER "
	  "or STALL)" },
	/* a name with an escaped newline and ESC: quoted as one printable line
	 * (found by tests/fuzz/trace-json) */
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"A\\nB\\u001b[2J\",\"ts\":1,\"dur\":1}]}",
	  "unknown event name \"A?B?[2J\" (expected THREAD" },
	{ "{\"traceEvents\":[{\"ph\":\"C\",\"tid\":0,\"name\":\"TASK\",\"ts\":1}]}",
	  "event with \"ph\" \"C\": only \"X\", \"B\", \"E\", \"M\" and the flows" },
	{ "{\"traceEvents\":[{\"ph\":\"B\",\"tid\":0,\"name\":\"TASK\",\"ts\":1}]}",
	  "tid 0: 1 \"B\" events never ended" },
	{ "[{\"ph\":\"E\",\"tid\":3,\"ts\":1}]",
	  "\"E\" event on tid 3 with no open \"B\" event" },
	{ "[{\"ph\":\"B\",\"tid\":0,\"name\":\"TASK\",\"ts\":1},"
	  "{\"ph\":\"E\",\"tid\":0,\"name\":\"STALL\",\"ts\":2}]",
	  "\"E\" event \"STALL\" ends the open \"B\" event \"TASK\"" },
	{ "[{\"ph\":\"B\",\"tid\":0,\"name\":\"TASK\",\"ts\":5},"
	  "{\"ph\":\"E\",\"tid\":0,\"ts\":2}]",
	  "\"E\" event at 2 us before its \"B\"" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TASK\",\"ts\":1}]}",
	  "\"X\" event without \"dur\"" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TASK\",\"ts\":\"1\",\"dur\":1}]}",
	  "expected a number, found '\"'" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TASK\",\"ts\":1,\"dur\":-1}]}",
	  "\"dur\" -1 is outside [0, 1e+12] microseconds" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":1.5,\"name\":\"TASK\",\"ts\":1,\"dur\":1}]}",
	  "\"tid\" 1.5 is not an integer" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TASK\",\"ts\":1e999,\"dur\":1}]}",
	  "number 1e999 out of range" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TASK\",\"ts\":01,\"dur\":1}]}",
	  "expected ',' or '}', found '1'" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TA\\qSK\",\"ts\":1,\"dur\":1}]}",
	  "bad escape '\\q'" },
	{ "{\"traceEvents\":[{\"ph\":\"X\",\"tid\":0,\"name\":\"TA\nSK\",\"ts\":1,\"dur\":1}]}",
	  "control character 0x0a in a string" },
	{ "{\"traceEvents\":[],\"x\":[1,]}", "expected a value, found ']'" },
	{ "{\"traceEvents\":[],\"x\":tru}", "expected a value" },
	{ "{\"traceEvents\":[],\"xsched\":{\"workers\":[{\"worker\":0,\"tasks_self\":\"3\"}]}}",
	  "counter \"tasks_self\" is not a number" },
	{ "{\"traceEvents\":[],\"xsched\":{\"workers\":[{\"tasks_self\":3}]}}",
	  "counters without \"worker\"" },
};

static void expect_error(struct __test_metadata *_metadata, const char *path, const char *err,
			 const char *message, int status)
{
	char *text = xt_slurp(err, NULL), want[512];

	EXPECT_EQ(1, status) TH_LOG("%s: exit status %d, stderr: %s", path, status, text);
	ASSERT_NE(NULL, text);
	snprintf(want, sizeof(want), "xsched-trace: %s:%s", path, message);
	EXPECT_NE(NULL, strstr(text, message)) TH_LOG("want '%s', got '%s'", message, text);
	EXPECT_EQ(0, strncmp(text, want, strlen("xsched-trace: ") + strlen(path) + 1))
		TH_LOG("the message does not start with the file: %s", text);
	/* One line. */
	EXPECT_EQ(text + strlen(text) - 1, strchr(text, '\n')) TH_LOG("%s", text);
	free(text);
}

/* Each case runs the tool; under ASan on a loaded machine a run can take a
 * second, so the harness's 30 s would be a timing assertion. A hang is
 * still caught: 140 s each, within run-tests.sh's 300 s for the program.
 * For that, ASan builds make 40 mutants instead of 150 (tests/fuzz's
 * trace-json target gives the same reader millions). */
#ifdef XS_TEST_LSAN
#define MUTANTS 40
#else
#define MUTANTS 150
#endif
FIXTURE(runs) {};
FIXTURE_SETUP(runs) {}
FIXTURE_TEARDOWN(runs) {}

TEST_F_TIMEOUT(runs, bad_files_named_with_position, 140)
{
	char trace[64], out[64], err[64];

	ASSERT_EQ(0, xt_tmp(trace, sizeof(trace), ".json"));
	ASSERT_EQ(0, xt_tmp(out, sizeof(out), ".out"));
	ASSERT_EQ(0, xt_tmp(err, sizeof(err), ".err"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(0, xt_write(trace, bad[i].content, strlen(bad[i].content)));
		expect_error(_metadata, trace, err, bad[i].message,
			     xt_run(out, err, "summary %s", trace));
		expect_error(_metadata, trace, err, bad[i].message,
			     xt_run(out, err, "plot %s -o %s.png", trace, out));
	}

	/* Nested far deeper than anything the profile holds. */
	{
		static const char head[] = "{\"traceEvents\":[],\"x\":";
		size_t n = 100000;
		char *deep = malloc(sizeof(head) + n);

		ASSERT_NE(NULL, deep);
		memcpy(deep, head, sizeof(head) - 1);
		memset(deep + sizeof(head) - 1, '[', n);
		deep[sizeof(head) - 1 + n] = '\0';
		ASSERT_EQ(0, xt_write(trace, deep, strlen(deep)));
		free(deep);
		expect_error(_metadata, trace, err, "nested deeper than 64 levels",
			     xt_run(out, err, "summary %s", trace));
	}

	/* Not a file, no file. */
	expect_error(_metadata, "/tmp", err, " not a regular file", xt_run(out, err, "summary /tmp"));
	expect_error(_metadata, "/nonexistent/x.json", err, " cannot open: No such file",
		     xt_run(out, err, "summary /nonexistent/x.json"));
	unlink(trace);
	unlink(out);
	unlink(err);
}

TEST_F_TIMEOUT(runs, truncated_and_fuzzed_profiles, 140)
{
	char trace[64], bad_path[64], out[64], err[64], png[64];
	struct xs_stats st;
	size_t len, last_brace;
	char *good, *buf;
	unsigned int seed = 6;
	int crashes = 0, accepted = 0, rejected = 0;

	ASSERT_EQ(0, xt_tmp(trace, sizeof(trace), ".json"));
	ASSERT_EQ(0, xt_tmp(bad_path, sizeof(bad_path), ".json"));
	ASSERT_EQ(0, xt_tmp(out, sizeof(out), ".out"));
	ASSERT_EQ(0, xt_tmp(err, sizeof(err), ".err"));
	ASSERT_EQ(0, xt_tmp(png, sizeof(png), ".png"));
	ASSERT_EQ(55, xt_make_trace(trace, 2, 10, &st));
	good = xt_slurp(trace, &len);
	ASSERT_NE(NULL, good);
	ASSERT_EQ(0, xt_run(out, err, "summary %s", trace));
	last_brace = (size_t)(strrchr(good, '}') - good);
	buf = malloc(len + 1);
	ASSERT_NE(NULL, buf);

	/* Cut anywhere before the final '}': always an error with a position. */
	for (int i = 0; i < 40; i++) {
		size_t cut = (size_t)i * last_brace / 40 + (size_t)(rand_r(&seed) % 7);

		if (cut >= last_brace)
			cut = last_brace - 1;
		ASSERT_EQ(0, xt_write(bad_path, good, cut));
		expect_error(_metadata, bad_path, err, ": byte ", xt_run(out, err, "summary %s", bad_path));
	}
	/* Random byte changes, deletions and duplications: exit 0 or 1, never
	 * a signal (the harness's timeout catches a hang). */
	for (int i = 0; i < MUTANTS; i++) {
		size_t n = len;
		int st_run;

		memcpy(buf, good, len);
		for (int m = 0; m < 1 + i % 4; m++) {
			size_t at = (size_t)rand_r(&seed) % n;

			switch (rand_r(&seed) % 3) {
			case 0:
				buf[at] = (char)(rand_r(&seed) & 0xff);
				break;
			case 1: {
				size_t k = (size_t)rand_r(&seed) % 16;

				if (k > n - at)
					k = n - at;
				memmove(buf + at, buf + at + k, n - at - k);
				n -= k;
				break;
			}
			default:
				buf[at] = "{}[],:\"\\-0e."[rand_r(&seed) % 12];
				break;
			}
		}
		ASSERT_EQ(0, xt_write(bad_path, buf, n));
		if (i % 2)
			st_run = xt_run(out, err, "summary %s", bad_path);
		else
			st_run = xt_run(out, err, "plot --width 240 --height 160 %s -o %s", bad_path,
					png);
		if (st_run == 0) {
			accepted++;
		} else if (st_run == 1) {
			char *text = xt_slurp(err, NULL);

			rejected++;
			ASSERT_NE(NULL, text);
			EXPECT_EQ(0, strncmp(text, "xsched-trace: ", 14)) TH_LOG("%s", text);
			EXPECT_NE(NULL, strstr(text, bad_path)) TH_LOG("%s", text);
			free(text);
		} else {
			crashes++;
			xt_write("/tmp/xsched-trace-crash.json", buf, n);
			TH_LOG("exit status %d on a mutant, kept in /tmp/xsched-trace-crash.json",
			       st_run);
		}
	}
	EXPECT_EQ(0, crashes);
	EXPECT_LT(0, rejected);
	TH_LOG("fuzz: %d accepted, %d rejected", accepted, rejected);
	unlink(png);
	free(buf);
	free(good);
	unlink(trace);
	unlink(bad_path);
	unlink(out);
	unlink(err);
}

TEST_HARNESS_MAIN
