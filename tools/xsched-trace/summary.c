// SPDX-License-Identifier: MIT
/*
 * summary.c - `xsched-trace summary` (summary.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "summary.h"
#include "../common/json_write.h"

/* The "total" row: sums over threads; its span is the trace's extent. */
static void summary_total(const struct trace *t, struct trace_thread *tot)
{
	memset(tot, 0, sizeof(*tot));
	tot->tid = -1;
	snprintf(tot->name, sizeof(tot->name), "total");
	for (size_t i = 0; i < t->nthr; i++) {
		const struct trace_thread *thr = &t->thr[i];

		for (int k = 0; k < TK_NCOLUMNS; k++)
			tot->excl[k] += thr->excl[k];
		tot->created += thr->created;
		tot->executed += thr->executed;
		tot->counter_executed += thr->counter_executed;
		tot->events_dropped += thr->events_dropped;
		tot->events_short += thr->events_short;
		tot->has_counters |= thr->has_counters;
	}
}

static void summary_row(FILE *out, const char *name, const struct trace_thread *thr,
			int64_t span)
{
	fprintf(out, "%-10s", name);
	for (int k = 0; k < TK_NCOLUMNS; k++)
		fprintf(out, " %*.3f", k == TK_TASK_CREATE ? 11 : 10, (double)thr->excl[k] / 1e6);
	fprintf(out, " %10.3f %9" PRIu64 " %9" PRIu64 "\n", (double)span / 1e6, thr->created,
		thr->executed);
}

void summary_text(const struct trace *t, FILE *out)
{
	struct trace_thread tot;
	char name[32];
	int64_t first, last, sum_span = 0;

	trace_extent(t, &first, &last);
	summary_total(t, &tot);
	fprintf(out, "%s: %zu threads, %" PRIu64 " events, %.3f ms from the first event to the last\n",
		t->path, t->nthr, t->nevents, (double)(last - first) / 1e6);
	fprintf(out, "exclusive time in ms: each instant counts for the innermost event open on "
		     "its thread;\nOUTSIDE is time in the thread's span in no event (between jobs); "
		     "a row sums to its span\n\n");
	fprintf(out, "%-10s", "thread");
	for (int k = 0; k < TK_NCOLUMNS; k++)
		fprintf(out, " %*s", k == TK_TASK_CREATE ? 11 : 10, trace_kind_names[k]);
	fprintf(out, " %10s %9s %9s\n", "span", "created", "executed");
	for (size_t i = 0; i < t->nthr; i++) {
		const struct trace_thread *thr = &t->thr[i];

		snprintf(name, sizeof(name), "%" PRId64, thr->tid);
		summary_row(out, name, thr, thr->last - thr->first);
		sum_span += thr->last - thr->first;
	}
	summary_row(out, "total", &tot, sum_span);
	if (tot.events_dropped)
		fprintf(out, "\nwarning: %" PRIu64 " events were dropped (the log was full: raise "
			     "XSCHED_PROFILE_EVENTS); times and counts are incomplete\n",
			tot.events_dropped);
	else if (tot.has_counters && tot.counter_executed != tot.executed)
		fprintf(out, "\nnote: the workers' counters say %" PRIu64
			     " tasks executed, the events %" PRIu64 "%s\n",
			tot.counter_executed, tot.executed,
			tot.events_short ? ": events shorter than XSCHED_PROFILE_MIN_NS were left "
					   "out (their time counts for the enclosing event)" : "");
}

static void summary_json_row(FILE *out, const struct trace_thread *thr, int64_t first,
			     int64_t span)
{
	if (thr->tid >= 0)
		fprintf(out, "{\"tid\":%" PRId64 ",\"name\":", thr->tid);
	else
		fprintf(out, "{\"name\":");
	json_put_string(out, thr->name);
	fprintf(out, ",\"first_ns\":%" PRId64 ",\"span_ns\":%" PRId64 ",\"exclusive_ns\":{", first,
		span);
	for (int k = 0; k < TK_NCOLUMNS; k++)
		fprintf(out, "%s\"%s\":%" PRId64, k ? "," : "", trace_kind_names[k], thr->excl[k]);
	fprintf(out, "},\"created\":%" PRIu64 ",\"executed\":%" PRIu64, thr->created,
		thr->executed);
	if (thr->has_counters)
		fprintf(out, ",\"counters_executed\":%" PRIu64 ",\"events_dropped\":%" PRIu64,
			thr->counter_executed, thr->events_dropped);
	fputc('}', out);
}

void summary_json(const struct trace *t, FILE *out)
{
	struct trace_thread tot;
	int64_t first, last, sum_span = 0;

	trace_extent(t, &first, &last);
	summary_total(t, &tot);
	fprintf(out, "{\"file\":");
	json_put_string(out, t->path);
	fprintf(out, ",\"events\":%" PRIu64 ",\"unit\":\"ns\",\"extent_ns\":%" PRId64
		     ",\"threads\":[\n",
		t->nevents, last - first);
	for (size_t i = 0; i < t->nthr; i++) {
		const struct trace_thread *thr = &t->thr[i];

		summary_json_row(out, thr, thr->first, thr->last - thr->first);
		fprintf(out, "%s\n", i + 1 < t->nthr ? "," : "");
		sum_span += thr->last - thr->first;
	}
	fprintf(out, "],\n\"total\":");
	summary_json_row(out, &tot, first, sum_span);
	fprintf(out, "}\n");
}
