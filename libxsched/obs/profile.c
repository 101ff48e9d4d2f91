// SPDX-License-Identifier: MIT
/*
 * profile.c - event logs and their Chrome trace-event JSON form.
 *
 * The JSON is an object {"traceEvents": [...], "displayTimeUnit": "ns",
 * "xsched": {...}}: one complete event ("ph":"X") per interval, with the
 * process's pid and each worker thread's kernel tid, timestamps in
 * microseconds since the first event; process_name and thread_name
 * metadata (the program's comm, each worker's thread name and id); a steal
 * (a frame) or a move (a descriptor run away from its creator) as a flow
 * from the track it came from to the one that ran it ("ph":"s" then "f",
 * one id each, bound to the enclosing slices); and the counters per worker
 * under "xsched". Perfetto and chrome://tracing open it as is.
 *
 * Events shorter than XSCHED_PROFILE_MIN_NS (default 1 us) are left out:
 * a fine-grained run logs millions of sub-microsecond tasks and spawns (a
 * 22 ms fib(25) wrote 23 MB), which no timeline can show apart (a pixel of
 * a 1000-pixel plot of it is 22 us) and which the counters already count.
 * An event is never shorter than one it encloses, so what is left still
 * nests; the time of the events left out counts for the enclosing event.
 * Each worker's "events_short" says how many were left out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "base/tid.h"
#include "core/runtime.h"

const char *const xs_event_names[XS_EV_NTYPES] = {
	[XS_EV_THREAD] = "THREAD",	     [XS_EV_TASK] = "TASK",
	[XS_EV_TASK_CREATE] = "TASK_CREATE", [XS_EV_TASKWAIT] = "TASKWAIT",
	[XS_EV_BARRIER] = "BARRIER",	     [XS_EV_STALL] = "STALL",
	[XS_EV_STEAL] = "steal",	     [XS_EV_MOVE] = "moved",
};

void xs_profile_thread(struct xs_profile_log *log)
{
	if (!log)
		return;
	log->tid = xs_tid();
	if (prctl(PR_GET_NAME, log->name) != 0)
		log->name[0] = 0;
	log->name[sizeof(log->name) - 1] = 0;
}

struct xs_profile_log *xs_profile_log_create(uint64_t cap)
{
	struct xs_profile_log *log = calloc(1, sizeof(*log));

	if (!log)
		return NULL;
	log->ev = malloc(cap * sizeof(*log->ev));
	if (!log->ev) {
		free(log);
		return NULL;
	}
	log->cap = cap;
	return log;
}

void xs_profile_log_destroy(struct xs_profile_log *log)
{
	if (!log)
		return;
	free(log->ev);
	free(log);
}

/* TSC ticks per microsecond, measured against CLOCK_MONOTONIC. */
static double xs_tsc_per_us(void)
{
	struct timespec a, b, nap = { 0, 20 * 1000 * 1000 };
	uint64_t t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = xs_tsc();
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	t1 = xs_tsc();
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	return ns > 0 ? (double)(t1 - t0) / (ns / 1e3) : 1e3;
}

/* The n-th profile this process writes (1, 2, ...). */
static _Atomic uint32_t xs_profile_written;

/*
 * @path with %p (pid), %r (@nth) and %% expanded into @out; without %r and
 * for nth > 1, ".r<nth>" goes before the extension. -ENAMETOOLONG if it
 * does not fit.
 */
static int xs_profile_path(const char *path, uint32_t nth, char *out, size_t size)
{
	size_t len = 0;
	bool has_r = false;
	int n;

	for (const char *c = path; *c; c++) {
		if (c[0] == '%' && (c[1] == 'p' || c[1] == 'r' || c[1] == '%')) {
			c++;
			if (*c == 'p')
				n = snprintf(out + len, size - len, "%d", (int)getpid());
			else if (*c == 'r')
				n = snprintf(out + len, size - len, "%u", nth), has_r = true;
			else
				n = snprintf(out + len, size - len, "%%");
		} else {
			n = snprintf(out + len, size - len, "%c", *c);
		}
		if (n < 0 || (size_t)n >= size - len)
			return -ENAMETOOLONG;
		len += (size_t)n;
	}
	if (!has_r && nth > 1) {
		char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
		char ext[64] = "";

		if (dot && (!slash || dot > slash + 1) && strlen(dot) < sizeof(ext)) {
			strcpy(ext, dot);
			*dot = 0;
			len = (size_t)(dot - out);
		}
		n = snprintf(out + len, size - len, ".r%u%s", nth, ext);
		if (n < 0 || (size_t)n >= size - len)
			return -ENAMETOOLONG;
	}
	return 0;
}

/* @s as a JSON string's contents: quotes, backslashes, control bytes. */
static void xs_profile_json_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
}

static void xs_profile_comm(char *comm, size_t size)
{
	FILE *f = fopen("/proc/self/comm", "r");

	comm[0] = 0;
	if (f) {
		if (fgets(comm, (int)size, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (!comm[0])
		snprintf(comm, size, "pid %d", (int)getpid());
}

int xs_profile_write(struct xs_runtime *rt, const char *path, char *written, size_t size)
{
	double per_us = xs_tsc_per_us();
	uint64_t min_ticks = (uint64_t)((double)rt->opt.profile_min_ns * per_us / 1e3);
	uint64_t *shorts = calloc(rt->nworkers, sizeof(*shorts));
	uint64_t origin = UINT64_MAX, flows = 0;
	/* Relaxed: only a number for the name; runtimes writing at once
	 * each get their own. */
	uint32_t nth = xs_fetch_add_relaxed(&xs_profile_written, 1) + 1;
	int pid = (int)getpid();
	char comm[64];
	FILE *f;
	int ret;

	if (!shorts)
		return -ENOMEM;
	ret = xs_profile_path(path, nth, written, size);
	if (ret < 0) {
		free(shorts);
		return ret;
	}
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_profile_log *log = rt->workers[i]->log;

		for (uint64_t e = 0; e < log->n; e++)
			if (log->ev[e].start < origin)
				origin = log->ev[e].start;
	}
	f = fopen(written, "w");
	if (!f) {
		ret = -errno;
		free(shorts);
		return ret;
	}
	xs_profile_comm(comm, sizeof(comm));
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
		   "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"process_name\","
		   "\"args\":{\"name\":\"",
		pid, pid);
	xs_profile_json_str(f, comm);
	fprintf(f, "\"}}");
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_profile_log *log = rt->workers[i]->log;

		fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_name\","
			   "\"args\":{\"name\":\"",
			pid, log->tid);
		xs_profile_json_str(f, log->name[0] ? log->name : "worker");
		fprintf(f, " (worker %u)\"}}", i);
		for (uint64_t e = 0; e < log->n; e++) {
			const struct xs_event *ev = &log->ev[e];
			double ts = (double)(ev->start - origin) / per_us;

			if (ev->type == XS_EV_STEAL || ev->type == XS_EV_MOVE) {
				const char *name = xs_event_names[ev->type];

				if (ev->arg >= rt->nworkers)
					continue;
				flows++;
				fprintf(f, ",\n{\"ph\":\"s\",\"pid\":%d,\"tid\":%u,\"name\":\"%s\","
					   "\"cat\":\"%s\",\"id\":%llu,\"ts\":%.3f}"
					   ",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":%d,\"tid\":%u,"
					   "\"name\":\"%s\",\"cat\":\"%s\",\"id\":%llu,\"ts\":%.3f}",
					pid, rt->workers[ev->arg]->log->tid, name, name,
					(unsigned long long)flows, ts, pid, log->tid, name, name,
					(unsigned long long)flows, ts);
				continue;
			}
			if (ev->end - ev->start < min_ticks) {
				shorts[i]++;
				continue;
			}
			fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"name\":\"%s\","
				   "\"ts\":%.3f,\"dur\":%.3f}",
				pid, log->tid, xs_event_names[ev->type], ts,
				(double)(ev->end - ev->start) / per_us);
		}
	}
	fprintf(f, "\n],\"xsched\":{\"pid\":%d,\"tsc_per_us\":%.3f,\"workers\":[", pid,
		per_us);
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_counters snap;
		const struct xs_counters *c = &snap;

		/* Some counters are derived from the barrier's counts. */
		xs_worker_counters(rt->workers[i], &snap);

		fprintf(f, "%s{\"worker\":%u,\"tid\":%u,\"events_dropped\":%llu,"
			   "\"events_short\":%llu",
			i ? "," : "", i, rt->workers[i]->log->tid,
			(unsigned long long)rt->workers[i]->log->dropped,
			(unsigned long long)shorts[i]);
#define XS_COUNTER_JSON(name, doc)                                                     \
	fprintf(f, ",\"%s\":%llu", #name, (unsigned long long)xs_load_relaxed(&c->name));
		XS_COUNTERS(XS_COUNTER_JSON)
#undef XS_COUNTER_JSON
		fputc('}', f);
	}
	fprintf(f, "]}}\n");
	free(shorts);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}
