// SPDX-License-Identifier: MIT
/*
 * trace.c - read an XSCHED_PROFILE file (trace.h) and summarize it.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json.h"
#include "trace.h"

const char *const trace_kind_names[TK_NCOLUMNS] = {
	[TK_THREAD] = "THREAD",	    [TK_TASK] = "TASK",	      [TK_TASK_CREATE] = "TASK_CREATE",
	[TK_TASKWAIT] = "TASKWAIT", [TK_BARRIER] = "BARRIER", [TK_STALL] = "STALL",
	[TK_OUTSIDE] = "OUTSIDE",
};

/* Bounds on what a profile can hold: more is a corrupt file. */
#define TRACE_MAX_THREADS 4096
#define TRACE_MAX_TID 0x7fffffff
#define TRACE_MAX_US 1e12 /* about 11.6 days */

static struct trace_thread *trace_thread_get(struct trace *t, struct json *j, size_t at,
					     double tid)
{
	size_t last = t->last_thr;

	if (tid < 0 || tid > TRACE_MAX_TID || tid != floor(tid)) {
		json_fail_at(j, at, "\"tid\" %g is not an integer in [0, %d]", tid, TRACE_MAX_TID);
		return NULL;
	}
	if (last < t->nthr && t->thr[last].tid == (int64_t)tid)
		return &t->thr[last];
	for (size_t i = 0; i < t->nthr; i++)
		if (t->thr[i].tid == (int64_t)tid)
			return &t->thr[t->last_thr = i];
	if (t->nthr == TRACE_MAX_THREADS) {
		json_fail_at(j, at, "more than %d threads", TRACE_MAX_THREADS);
		return NULL;
	}
	if (!(t->nthr & (t->nthr - 1))) {
		size_t cap = t->nthr ? 2 * t->nthr : 8;
		struct trace_thread *n = realloc(t->thr, cap * sizeof(*n));

		if (!n) {
			json_fail_at(j, at, "out of memory");
			return NULL;
		}
		t->thr = n;
	}
	last = t->last_thr = t->nthr++;
	memset(&t->thr[last], 0, sizeof(t->thr[last]));
	t->thr[last].tid = (int64_t)tid;
	snprintf(t->thr[last].name, sizeof(t->thr[last].name), "tid %lld", (long long)tid);
	return &t->thr[last];
}

/* Microseconds with three decimals to integer nanoseconds. */
static int trace_us(struct json *j, size_t at, const char *key, double us, int64_t *ns)
{
	if (us < 0 || us > TRACE_MAX_US)
		return json_fail_at(j, at, "\"%s\" %g is outside [0, %g] microseconds", key, us,
				    TRACE_MAX_US);
	*ns = llround(us * 1e3);
	return 0;
}

/* Append @ev to the array *@v of *@n (capacity *@cap). */
static int trace_push(struct trace_event **v, size_t *n, size_t *cap, struct trace_event ev)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct trace_event *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -1;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = ev;
	return 0;
}

/* An "E" event: ends the innermost open "B" of its thread. */
static int trace_end_event(struct trace *t, struct json *j, size_t at, double tid, double ts,
			   const char *name)
{
	struct trace_thread *thr = trace_thread_get(t, j, at, tid);
	struct trace_event ev;

	if (!thr)
		return -1;
	if (!thr->nopen)
		return json_fail_at(j, at, "\"E\" event on tid %lld with no open \"B\" event",
				    (long long)thr->tid);
	ev = thr->open[thr->nopen - 1];
	if (name && *name && strcmp(name, trace_kind_names[ev.kind]))
		return json_fail_at(j, at, "\"E\" event \"%s\" ends the open \"B\" event \"%s\"",
				    name, trace_kind_names[ev.kind]);
	if (trace_us(j, at, "ts", ts, &ev.end))
		return -1;
	if (ev.end < ev.start)
		return json_fail_at(j, at, "\"E\" event at %g us before its \"B\"", ts);
	thr->nopen--;
	if (trace_push(&thr->ev, &thr->n, &thr->cap, ev))
		return json_fail_at(j, at, "out of memory after %llu events",
				    (unsigned long long)t->nevents);
	t->nevents++;
	return 0;
}

/* One element of "traceEvents". */
static int trace_read_event(struct trace *t, struct json *j)
{
	char key[32], ph[8] = "", name[32] = "", arg_name[64] = "";
	double tid = -1, ts = -1, dur = -1, num;
	int has_tid = 0, has_ts = 0, has_dur = 0, has_name = 0, more;
	size_t at;
	struct trace_thread *thr;
	int kind = -1;

	if (json_object_begin(j, "an event", "event without \"ph\"", &at))
		return -1;
	do {
		if (json_key(j, key, sizeof(key)))
			return -1;
		if (!strcmp(key, "ph")) {
			if (json_string(j, ph, sizeof(ph)))
				return -1;
		} else if (!strcmp(key, "name")) {
			if (json_peek(j) != '"')
				return json_fail_at(j, j->pos, "\"name\" is not a string");
			if (json_string(j, name, sizeof(name)))
				return -1;
			has_name = 1;
		} else if (!strcmp(key, "tid") || !strcmp(key, "ts") || !strcmp(key, "dur") ||
			   !strcmp(key, "pid")) {
			if (json_number(j, &num))
				return -1;
			if (key[0] == 't' && key[1] == 'i')
				tid = num, has_tid = 1;
			else if (key[0] == 't')
				ts = num, has_ts = 1;
			else if (key[0] == 'd')
				dur = num, has_dur = 1;
		} else if (!strcmp(key, "args") && json_peek(j) == '{') {
			j->pos++;
			if (json_peek(j) == '}') {
				j->pos++;
			} else {
				do {
					if (json_key(j, key, sizeof(key)))
						return -1;
					if (!strcmp(key, "name") && json_peek(j) == '"') {
						if (json_string(j, arg_name, sizeof(arg_name)))
							return -1;
					} else if (json_skip(j)) {
						return -1;
					}
				} while ((more = json_next(j, '}')) == 1);
				if (more < 0)
					return -1;
			}
		} else if (json_skip(j)) {
			return -1;
		}
	} while ((more = json_next(j, '}')) == 1);
	if (more < 0)
		return -1;

	if (!strcmp(ph, "M")) {
		/* Metadata: thread_name names the track, the rest is ignored. */
		if (has_tid && !strcmp(name, "thread_name") && arg_name[0]) {
			if (!(thr = trace_thread_get(t, j, at, tid)))
				return -1;
			snprintf(thr->name, sizeof(thr->name), "%s", arg_name);
		}
		return 0;
	}
	/* Flows (a steal from one track to another) and instants are
	 * drawn by Perfetto; the summary and the plot count time only. */
	if (!strcmp(ph, "s") || !strcmp(ph, "t") || !strcmp(ph, "f") || !strcmp(ph, "i") ||
	    !strcmp(ph, "I"))
		return 0;
	if (strcmp(ph, "X") && strcmp(ph, "B") && strcmp(ph, "E"))
		return json_fail_at(j, at,
				    "event with \"ph\" \"%s\": only \"X\", \"B\", \"E\", \"M\" and "
				    "the flows and instants (\"s\", \"t\", \"f\", \"i\", \"I\") are "
				    "accepted",
				    ph);
	if (!strcmp(ph, "E")) {
		if (!has_tid || !has_ts)
			return json_fail_at(j, at, "\"E\" event without \"%s\"",
					    !has_tid ? "tid" : "ts");
		return trace_end_event(t, j, at, tid, ts, has_name ? name : NULL);
	}
	if (!has_name || !has_tid || !has_ts || (ph[0] == 'X' && !has_dur))
		return json_fail_at(j, at, "\"%s\" event without \"%s\"", ph,
				    !has_name ? "name" : !has_tid ? "tid" : !has_ts ? "ts" : "dur");
	for (int k = 0; k < TK_NKINDS; k++)
		if (!strcmp(name, trace_kind_names[k]))
			kind = k;
	if (kind < 0)
		return json_fail_at(j, at,
				    "unknown event name \"%s\" (expected THREAD, TASK, TASK_CREATE, "
				    "TASKWAIT, BARRIER or STALL)",
				    name);
	if (!(thr = trace_thread_get(t, j, at, tid)))
		return -1;

	struct trace_event ev = { .kind = (uint32_t)kind };
	int64_t d = 0;

	if (trace_us(j, at, "ts", ts, &ev.start) ||
	    (ph[0] == 'X' && trace_us(j, at, "dur", dur, &d)))
		return -1;
	ev.end = ev.start + d;
	if (ph[0] == 'B')
		return trace_push(&thr->open, &thr->nopen, &thr->capopen, ev) ?
			       json_fail_at(j, at, "out of memory") : 0;
	if (trace_push(&thr->ev, &thr->n, &thr->cap, ev))
		return json_fail_at(j, at, "out of memory after %llu events",
				    (unsigned long long)t->nevents);
	t->nevents++;
	return 0;
}

/* One element of "xsched"."workers": the counters of one worker. */
static int trace_read_counters(struct trace *t, struct json *j)
{
	char key[64];
	double v, worker = -1, tid = -1;
	uint64_t executed = 0, dropped = 0, stolen = 0, shorts = 0;
	int more;
	size_t at;
	struct trace_thread *thr;

	if (json_object_begin(j, "a worker's counters",
			      "counters without \"worker\"", &at))
		return -1;
	do {
		if (json_key(j, key, sizeof(key)))
			return -1;
		if (json_peek(j) != '-' && (json_peek(j) < '0' || json_peek(j) > '9'))
			return json_fail_at(j, j->pos, "counter \"%s\" is not a number", key);
		if (json_number(j, &v))
			return -1;
		if (v < 0 || v > 1.8e19)
			return json_fail_at(j, j->pos, "counter \"%s\" %g is out of range", key, v);
		if (!strcmp(key, "worker"))
			worker = v;
		else if (!strcmp(key, "tid"))
			tid = v;
		else if (!strcmp(key, "events_dropped"))
			dropped = (uint64_t)v;
		else if (!strcmp(key, "events_short"))
			shorts = (uint64_t)v;
		else if (!strcmp(key, "stolen_local") || !strcmp(key, "stolen_remote"))
			stolen += (uint64_t)v;
		else if (!strcmp(key, "tasks_self") || !strcmp(key, "tasks_local") ||
			 !strcmp(key, "tasks_remote") || !strcmp(key, "immediate"))
			executed += (uint64_t)v;
	} while ((more = json_next(j, '}')) == 1);
	if (more < 0)
		return -1;
	if (worker < 0)
		return json_fail_at(j, at, "counters without \"worker\"");
	/* The track is the worker's thread (profiles that name no tid
	 * numbered the tracks by worker). */
	if (!(thr = trace_thread_get(t, j, at, tid >= 0 ? tid : worker)))
		return -1;
	thr->has_counters = 1;
	thr->counter_executed = executed;
	thr->events_dropped = dropped;
	thr->counter_stolen = stolen;
	thr->events_short = shorts;
	return 0;
}

static int trace_read_array(struct trace *t, struct json *j,
			    int (*elem)(struct trace *, struct json *), const char *what)
{
	int more;

	if (json_peek(j) != '[')
		return json_fail_at(j, j->pos, "\"%s\" is not an array", what);
	j->pos++;
	if (json_peek(j) == ']') {
		j->pos++;
		return 0;
	}
	do {
		if (elem(t, j))
			return -1;
	} while ((more = json_next(j, ']')) == 1);
	return more;
}

static int trace_read_xsched(struct trace *t, struct json *j)
{
	char key[32];
	int more;

	if (json_peek(j) != '{')
		return json_fail_at(j, j->pos, "\"xsched\" is not an object");
	j->pos++;
	if (json_peek(j) == '}') {
		j->pos++;
		return 0;
	}
	do {
		if (json_key(j, key, sizeof(key)))
			return -1;
		if (!strcmp(key, "tsc_per_us")) {
			if (json_number(j, &t->tsc_per_us))
				return -1;
		} else if (!strcmp(key, "workers")) {
			if (trace_read_array(t, j, trace_read_counters, "workers"))
				return -1;
		} else if (json_skip(j)) {
			return -1;
		}
	} while ((more = json_next(j, '}')) == 1);
	return more;
}

static int trace_read(struct trace *t, struct json *j)
{
	char key[32];
	int more, has_events = 0;

	if (!json_peek(j) && !j->failed)
		return json_fail_at(j, j->pos, "empty file, expected a JSON object");
	if (json_peek(j) == '[') /* the Chrome array form: the events alone */
		return trace_read_array(t, j, trace_read_event, "the trace") || json_end(j) ? -1 : 0;
	if (json_expect(j, '{'))
		return -1;
	if (json_peek(j) == '}') {
		j->pos++;
		return json_fail_at(j, j->pos, "no \"traceEvents\" array");
	}
	do {
		if (json_key(j, key, sizeof(key)))
			return -1;
		if (!strcmp(key, "traceEvents")) {
			if (trace_read_array(t, j, trace_read_event, "traceEvents"))
				return -1;
			has_events = 1;
		} else if (!strcmp(key, "xsched")) {
			if (trace_read_xsched(t, j))
				return -1;
		} else if (json_skip(j)) {
			return -1;
		}
	} while ((more = json_next(j, '}')) == 1);
	if (more < 0 || json_end(j))
		return -1;
	if (!has_events)
		return json_fail_at(j, j->pos, "no \"traceEvents\" array");
	return 0;
}

static int trace_by_tid(const void *a, const void *b)
{
	const struct trace_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

int trace_parse(struct trace *t, const char *path, const char *buf, size_t len, char *err,
		size_t errlen)
{
	struct json j;

	memset(t, 0, sizeof(*t));
	t->path = path;
	json_init(&j, buf, len);
	if (trace_read(t, &j) == 0) {
		for (size_t i = 0; i < t->nthr && !j.failed; i++)
			if (t->thr[i].nopen)
				json_fail_at(&j, len, "tid %lld: %zu \"B\" events never ended",
					     (long long)t->thr[i].tid, t->thr[i].nopen);
	}
	if (j.failed) {
		size_t line, col;

		json_line_col(&j, j.err_pos, &line, &col);
		snprintf(err, errlen, "%s:%zu:%zu: byte %zu: %s", path, line, col, j.err_pos,
			 j.err);
		trace_free(t);
		return -1;
	}
	if (t->nthr) /* thr is NULL then, which qsort() must not get */
		qsort(t->thr, t->nthr, sizeof(*t->thr), trace_by_tid);
	return 0;
}

int trace_load(struct trace *t, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, ret = -1;

	memset(t, 0, sizeof(*t));
	t->path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "%s: cannot read %lld bytes: out of memory", path,
			 (long long)st.st_size);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break; /* shrank under us: parse what is there */
		got += (size_t)n;
	}
	close(fd);
	fd = -1;
	ret = trace_parse(t, path, buf, got, err, errlen);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (ret)
		trace_free(t);
	return ret;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->nthr; i++) {
		free(t->thr[i].ev);
		free(t->thr[i].open);
	}
	free(t->thr);
	t->thr = NULL;
	t->nthr = 0;
}

/* Parents first: earlier start, then the longer event. */
static int trace_by_start(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	if (x->end != y->end)
		return (x->end < y->end) - (x->end > y->end);
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/*
 * Innermost event wins (trace.h). After sorting, a stack holds the chain
 * of open events; an event that starts before the top ends is its child
 * and is cut at its end. Each event's exclusive time is its (cut) length
 * minus its children's; children of one parent never overlap (a second
 * child starting inside the first becomes the first's child), so the sum
 * over all events is exactly the time covered by the top-level ones.
 */
static int trace_summarize_thread(struct trace_thread *thr)
{
	struct trace_event *ev = thr->ev;
	size_t *stack = NULL, depth = 0, cap = 0;
	int64_t covered = 0, *kids = NULL; /* kids[d]: children's time of stack[d] */

	memset(thr->excl, 0, sizeof(thr->excl));
	thr->executed = thr->created = 0;
	thr->first = thr->last = 0;
	if (!thr->n)
		return 0;
	qsort(ev, thr->n, sizeof(*ev), trace_by_start);
	thr->first = ev[0].start;
	thr->last = ev[0].end;
	for (size_t i = 0; i <= thr->n; i++) {
		/* Close the events that end before ev[i] starts (all at the end). */
		while (depth) {
			struct trace_event *top = &ev[stack[depth - 1]];

			if (i < thr->n && ev[i].start < top->end)
				break;
			thr->excl[top->kind] += (top->end - top->start) - kids[depth - 1];
			depth--;
			if (depth)
				kids[depth - 1] += top->end - top->start;
			else
				covered += top->end - top->start;
		}
		if (i == thr->n)
			break;
		if (depth && ev[i].end > ev[stack[depth - 1]].end)
			ev[i].end = ev[stack[depth - 1]].end;
		if (depth == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			size_t *s = realloc(stack, ncap * sizeof(*s));
			int64_t *k;

			if (!s)
				goto oom;
			stack = s;
			k = realloc(kids, ncap * sizeof(*k));
			if (!k)
				goto oom;
			kids = k;
			cap = ncap;
		}
		stack[depth] = i;
		kids[depth++] = 0;
		if (ev[i].end > thr->last)
			thr->last = ev[i].end;
		if (ev[i].kind == TK_TASK)
			thr->executed++;
		else if (ev[i].kind == TK_TASK_CREATE)
			thr->created++;
	}
	thr->excl[TK_OUTSIDE] = (thr->last - thr->first) - covered;
	free(stack);
	free(kids);
	return 0;
oom:
	free(stack);
	free(kids);
	return -1;
}

int trace_summarize(struct trace *t, char *err, size_t errlen)
{
	for (size_t i = 0; i < t->nthr; i++) {
		if (trace_summarize_thread(&t->thr[i])) {
			snprintf(err, errlen, "%s: out of memory while summarizing", t->path);
			return -1;
		}
	}
	return 0;
}

void trace_extent(const struct trace *t, int64_t *first, int64_t *last)
{
	int64_t f = INT64_MAX, l = 0;

	for (size_t i = 0; i < t->nthr; i++) {
		if (!t->thr[i].n)
			continue;
		if (t->thr[i].first < f)
			f = t->thr[i].first;
		if (t->thr[i].last > l)
			l = t->thr[i].last;
	}
	*first = f == INT64_MAX ? 0 : f;
	*last = l < f ? f : l;
	if (f == INT64_MAX)
		*last = 0;
}
