// SPDX-License-Identifier: MIT
/*
 * XSCHED_PROFILE=<path> writes Chrome trace-event JSON at destroy: valid
 * JSON, a named track per worker, TASK / TASK_CREATE / TASKWAIT / BARRIER /
 * THREAD intervals, and the counters. When python3 is there it also checks
 * that the JSON parses and that TASK events match the tasks executed
 * (XSCHED_PROFILE_MIN_NS=0: every event), and that events shorter than
 * XSCHED_PROFILE_MIN_NS are left out and counted as events_short.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"
#include "capture-stderr.h"

static void leaf(void *arg)
{
	(void)arg;
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		xs_task_spawn(leaf, &i, sizeof i);
	xs_task_wait();
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

TEST(profile_is_chrome_trace_json)
{
	char path[] = "/tmp/xsched-profile-XXXXXX", cmd[512], want[64];
	struct xs_runtime *rt;
	char *json;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	setenv("XSCHED_PROFILE", path, 1);
	setenv("XSCHED_PROFILE_MIN_NS", "0", 1);
	rt = xs_runtime_create(2);
	unsetenv("XSCHED_PROFILE_MIN_NS");
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	xs_runtime_destroy(rt);

	json = slurp(path);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(0, strncmp(json, "{\"displayTimeUnit\"", 18));
	EXPECT_NE(NULL, strstr(json, "\"traceEvents\":["));
	for (int w = 0; w < 2; w++) {
		snprintf(want, sizeof want, "\"args\":{\"name\":\"worker %d\"}", w);
		EXPECT_NE(NULL, strstr(json, want));
	}
	EXPECT_NE(NULL, strstr(json, "\"name\":\"TASK\""));
	EXPECT_NE(NULL, strstr(json, "\"name\":\"TASK_CREATE\""));
	EXPECT_NE(NULL, strstr(json, "\"name\":\"BARRIER\""));
	EXPECT_NE(NULL, strstr(json, "\"name\":\"THREAD\""));
	EXPECT_NE(NULL, strstr(json, "\"static_pushes\":"));
	free(json);

	if (system("command -v python3 >/dev/null 2>&1") == 0) {
		/* The 100 leaves are TASK events; the root is part of THREAD. */
		snprintf(cmd, sizeof cmd,
			 "python3 -c 'import json,sys; d=json.load(open(\"%s\")); "
			 "n=sum(1 for e in d[\"traceEvents\"] if e.get(\"name\")==\"TASK\"); "
			 "print(n); sys.exit(0 if n==100 else 1)'",
			 path);
		EXPECT_EQ(0, system(cmd));
	}
	unlink(path);
}

/* Every event of this short run is under 1 s: none is written, each is
 * counted in its worker's events_short. */
TEST(short_events_left_out_and_counted)
{
	char path[] = "/tmp/xsched-profile-XXXXXX", cmd[640];
	struct xs_runtime *rt;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	if (system("command -v python3 >/dev/null 2>&1"))
		SKIP(unlink(path); return, "python3 is not installed");
	setenv("XSCHED_PROFILE", path, 1);
	setenv("XSCHED_PROFILE_MIN_NS", "1000000000", 1);
	rt = xs_runtime_create(2);
	unsetenv("XSCHED_PROFILE_MIN_NS");
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	xs_runtime_destroy(rt);
	snprintf(cmd, sizeof cmd,
		 "python3 -c 'import json,sys; d=json.load(open(\"%s\")); "
		 "x=sum(1 for e in d[\"traceEvents\"] if e[\"ph\"]==\"X\"); "
		 "s=sum(w[\"events_short\"] for w in d[\"xsched\"][\"workers\"]); "
		 "print(x, s); sys.exit(0 if x==0 and s>=200 else 1)'",
		 path);
	EXPECT_EQ(0, system(cmd));
	unlink(path);
}

/* Named when the runtime is created, not after the run: creation fails. */
TEST(unwritable_profile_path_is_reported)
{
	struct xs_runtime *rt;
	struct capture c;
	char out[1024];

	setenv("XSCHED_PROFILE", "/nonexistent-dir/x.json", 1);
	ASSERT_EQ(0, capture_begin(&c));
	rt = xs_runtime_create(1);
	capture_end(&c, out, sizeof out);
	EXPECT_EQ(NULL, rt);
	EXPECT_EQ(EINVAL, errno);
	if (rt)
		xs_runtime_destroy(rt);
	EXPECT_NE(NULL, strstr(out, "XSCHED_PROFILE=/nonexistent-dir/x.json")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "No such file or directory")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
