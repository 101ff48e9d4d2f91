// SPDX-License-Identifier: MIT
/*
 * XSCHED_PROFILE=<path> writes Chrome trace-event JSON at destroy: valid
 * JSON, a named track per worker, TASK / TASK_CREATE / TASKWAIT / BARRIER /
 * THREAD intervals, and the counters. When python3 is there it also checks
 * that the JSON parses and that TASK events match the tasks executed
 * (XSCHED_PROFILE_MIN_NS=0: every event), and that events shorter than
 * XSCHED_PROFILE_MIN_NS are left out and counted as events_short; that the
 * trace follows the trace-event format's rules with the process's real pid
 * and the workers' kernel tids, names in metadata and moved tasks as paired
 * flows; and that %p and a second runtime give files of their own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
		snprintf(want, sizeof want, " (worker %d)\"}}", w);
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

static void spin_leaf(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (int i = 0; i < 20000; i++)
		x += (unsigned long)i;
}

static void spin_root(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		xs_task_spawn(spin_leaf, &i, sizeof i);
	xs_task_wait();
}

/*
 * The trace-event format's rules (Perfetto's JSON importer): one pid, the
 * process's; process_name metadata for it; a thread_name for every tid
 * that has events, and each worker's tid in "xsched" the same as its
 * track's; complete events ("X") with a non-negative dur that nest or are
 * disjoint on each thread; every flow id begun once ("s") and finished once
 * ("f") at the same time on another thread. Round-robin pushes
 * (XSCHED_PUSH=rr) send tasks to worker 1, so there are flows into it.
 */
TEST(trace_follows_the_event_format)
{
	char path[] = "/tmp/xsched-profile-XXXXXX", cmd[4096];
	struct xs_runtime *rt;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	if (system("command -v python3 >/dev/null 2>&1"))
		SKIP(unlink(path); return, "python3 is not installed");
	setenv("XSCHED_PROFILE", path, 1);
	setenv("XSCHED_PROFILE_MIN_NS", "0", 1);
	setenv("XSCHED_PUSH", "rr", 1);
	rt = xs_runtime_create(2);
	unsetenv("XSCHED_PROFILE_MIN_NS");
	unsetenv("XSCHED_PUSH");
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, spin_root, NULL));
	xs_runtime_destroy(rt);
	snprintf(cmd, sizeof cmd,
		 "python3 - %s %d <<'PY'\n"
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1])); pid = int(sys.argv[2])\n"
		 "ev = d['traceEvents']\n"
		 "assert all(e['pid'] == pid for e in ev), 'a pid that is not the process'\n"
		 "assert any(e['ph'] == 'M' and e['name'] == 'process_name' and e['args']['name'] for e in ev)\n"
		 "names = {e['tid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}\n"
		 "workers = d['xsched']['workers']\n"
		 "tids = [w['tid'] for w in workers]\n"
		 "assert tids[0] == pid, ('worker 0 is the main thread', tids)\n"
		 "assert len(set(tids)) == len(tids) and all(t > 0 for t in tids), tids\n"
		 "assert set(tids) == set(names), (tids, names)\n"
		 "for i, t in enumerate(tids): assert names[t].endswith('(worker %%d)' %% i), names[t]\n"
		 "by = {}\n"
		 "for e in ev:\n"
		 "    if e['ph'] == 'X':\n"
		 "        assert e['dur'] >= 0 and e['tid'] in names, e\n"
		 "        by.setdefault(e['tid'], []).append((e['ts'], -e['dur'], e['ts'] + e['dur']))\n"
		 "for t, xs in by.items():\n"
		 "    xs.sort(); stack = []\n"
		 "    for s, _, end in xs:\n"
		 "        while stack and stack[-1] <= s + 1e-3: stack.pop()\n"
		 "        assert not stack or end <= stack[-1] + 1e-3, ('overlap', t, s, end, stack[-1])\n"
		 "        stack.append(end)\n"
		 "flows = {}\n"
		 "for e in ev:\n"
		 "    if e['ph'] in 'sf': flows.setdefault(e['id'], []).append(e)\n"
		 "for i, f in flows.items():\n"
		 "    assert sorted(x['ph'] for x in f) == ['f', 's'], f\n"
		 "    s = [x for x in f if x['ph'] == 's'][0]; g = [x for x in f if x['ph'] == 'f'][0]\n"
		 "    assert s['ts'] == g['ts'] and s['tid'] != g['tid'] and g.get('bp') == 'e', f\n"
		 "    assert s['tid'] in names and g['tid'] in names, f\n"
		 "into1 = sum(1 for f in flows.values() for x in f if x['ph'] == 'f' and x['tid'] == tids[1])\n"
		 "print(len(ev), 'events,', len(flows), 'flows,', into1, 'into worker 1')\n"
		 "assert into1 > 0, 'no flow into worker 1 under round-robin pushes'\n"
		 "PY",
		 path, (int)getpid());
	EXPECT_EQ(0, system(cmd));
	unlink(path);
}

/* %p is the pid; a second runtime of the process writes PATH.r2.EXT. */
TEST(pid_in_path_and_one_file_per_runtime)
{
	char dir[] = "/tmp/xsched-profile-XXXXXX", pattern[128], first[160], second[160];
	struct xs_runtime *rt;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(pattern, sizeof pattern, "%s/trace-%%p.json", dir);
	snprintf(first, sizeof first, "%s/trace-%d.json", dir, (int)getpid());
	snprintf(second, sizeof second, "%s/trace-%d.r2.json", dir, (int)getpid());
	setenv("XSCHED_PROFILE", pattern, 1);
	for (int i = 0; i < 2; i++) {
		rt = xs_runtime_create(1);
		ASSERT_NE(NULL, rt);
		ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
		xs_runtime_destroy(rt);
	}
	EXPECT_EQ(0, access(first, R_OK)) TH_LOG("%s", first);
	EXPECT_EQ(0, access(second, R_OK)) TH_LOG("%s", second);
	unlink(first);
	unlink(second);
	rmdir(dir);
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
