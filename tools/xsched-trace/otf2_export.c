// SPDX-License-Identifier: MIT
/*
 * otf2_export.c - `xsched-trace otf2`: a loaded trace as an OTF2 archive, through
 * libotf2, for Vampir, Score-P's tools and otf2-print.
 *
 * The archive is OUT.otf2 (the anchor), OUT.def (the global definitions)
 * and the directory OUT/ (a location's events and definitions). One location
 * group (the process) holds a location (a CPU thread) per track, named as
 * the track is; each event kind is a region (THREAD, TASK, TASK_CREATE,
 * TASKWAIT, BARRIER, STALL), entered and left at the event's times, in
 * nanoseconds since the trace's first event. OTF2 needs regions to nest
 * strictly on a location: an event that outlasts the one enclosing it
 * (the summary cuts it the same way) is left at its parent's end.
 */
#include <errno.h>
#include <libgen.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "otf2_export.h"

static OTF2_FlushType otf2_pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
				     void *caller, bool final)
{
	(void)user, (void)type, (void)loc, (void)caller, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp otf2_post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
	(void)user, (void)type, (void)loc;
	return 0;
}

static const OTF2_FlushCallbacks otf2_flush = {
	.otf2_pre_flush = otf2_pre_flush,
	.otf2_post_flush = otf2_post_flush,
};

/* Parents first: earlier start, then the longer of two that start together. */
static int otf2_by_start(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end);
}

/* Enter and Leave records of one track; *count gets how many. */
static OTF2_ErrorCode otf2_track(OTF2_EvtWriter *w, const struct trace_thread *thr,
				 int64_t origin, uint64_t *count)
{
	struct trace_event *ev = malloc((thr->n ? thr->n : 1) * sizeof(*ev));
	struct trace_event *stack = malloc((thr->n ? thr->n : 1) * sizeof(*stack));
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	size_t depth = 0;

	*count = 0;
	if (!ev || !stack) {
		free(ev);
		free(stack);
		return OTF2_ERROR_MEM_ALLOC_FAILED;
	}
	memcpy(ev, thr->ev, thr->n * sizeof(*ev));
	qsort(ev, thr->n, sizeof(*ev), otf2_by_start);
	for (size_t i = 0; i <= thr->n && rc == OTF2_SUCCESS; i++) {
		/* Leave what ends before this event starts (or everything). */
		while (depth && rc == OTF2_SUCCESS &&
		       (i == thr->n || stack[depth - 1].end <= ev[i].start)) {
			depth--;
			rc = OTF2_EvtWriter_Leave(w, NULL, (uint64_t)(stack[depth].end - origin),
						  stack[depth].kind);
			++*count;
		}
		if (i == thr->n || rc != OTF2_SUCCESS)
			break;
		if (depth && ev[i].end > stack[depth - 1].end)
			ev[i].end = stack[depth - 1].end;
		rc = OTF2_EvtWriter_Enter(w, NULL, (uint64_t)(ev[i].start - origin), ev[i].kind);
		++*count;
		stack[depth++] = ev[i];
	}
	free(ev);
	free(stack);
	return rc;
}

int otf2_write(const struct trace *t, const char *out, char *err, size_t errlen)
{
	char *dup_dir = strdup(out), *dup_base = strdup(out), anchor[4096], defs[4096];
	const char *dir, *name;
	uint64_t *counts = calloc(t->nthr ? t->nthr : 1, sizeof(*counts));
	OTF2_Archive *a = NULL;
	OTF2_GlobalDefWriter *g;
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	int64_t first, last;
	struct stat st;
	int ret = -1;

	if (!dup_dir || !dup_base || !counts) {
		snprintf(err, errlen, "%s: out of memory", out);
		goto out;
	}
	dir = dirname(dup_dir);
	name = basename(dup_base);
	snprintf(anchor, sizeof(anchor), "%s.otf2", out);
	snprintf(defs, sizeof(defs), "%s.def", out);
	if (!stat(anchor, &st) || !stat(defs, &st) || !stat(out, &st)) {
		snprintf(err, errlen, "%s: an archive (%s, %s or %s/) is there already", out,
			 anchor, defs, out);
		goto out;
	}
	a = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
			      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!a) {
		snprintf(err, errlen, "%s: cannot create the archive", out);
		goto out;
	}
	rc = OTF2_Archive_SetFlushCallbacks(a, &otf2_flush, NULL);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_SetSerialCollectiveCallbacks(a);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_OpenEvtFiles(a);
	trace_extent(t, &first, &last);
	for (size_t i = 0; i < t->nthr && rc == OTF2_SUCCESS; i++) {
		OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, i);

		if (!w) {
			rc = OTF2_ERROR_INVALID;
			break;
		}
		rc = otf2_track(w, &t->thr[i], first, &counts[i]);
		if (rc == OTF2_SUCCESS)
			rc = OTF2_Archive_CloseEvtWriter(a, w);
	}
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_CloseEvtFiles(a);
	/* Every location has a (here empty) local definition file. */
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_OpenDefFiles(a);
	for (size_t i = 0; i < t->nthr && rc == OTF2_SUCCESS; i++) {
		OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(a, i);

		rc = d ? OTF2_Archive_CloseDefWriter(a, d) : OTF2_ERROR_INVALID;
	}
	if (rc == OTF2_SUCCESS)
		rc = OTF2_Archive_CloseDefFiles(a);
	g = rc == OTF2_SUCCESS ? OTF2_Archive_GetGlobalDefWriter(a) : NULL;
	if (rc == OTF2_SUCCESS && !g)
		rc = OTF2_ERROR_INVALID;
	/* Strings: 0 "", 1 the process, 2 "node", 3.. the kinds, then threads. */
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteClockProperties(
			g, 1000000000, 0, (uint64_t)(last > first ? last - first : 0),
			OTF2_UNDEFINED_TIMESTAMP);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteString(g, 0, "");
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteString(g, 1, t->path);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteString(g, 2, "node");
	for (uint32_t k = 0; k < TK_NKINDS && rc == OTF2_SUCCESS; k++) {
		rc = OTF2_GlobalDefWriter_WriteString(g, 3 + k, trace_kind_names[k]);
		if (rc == OTF2_SUCCESS)
			rc = OTF2_GlobalDefWriter_WriteRegion(
				g, k, 3 + k, 3 + k, 0, OTF2_REGION_ROLE_FUNCTION,
				OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
	}
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 2, 2,
							      OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 1,
							     OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
							     OTF2_UNDEFINED_LOCATION_GROUP);
	for (size_t i = 0; i < t->nthr && rc == OTF2_SUCCESS; i++) {
		uint32_t s = 3 + TK_NKINDS + (uint32_t)i;

		rc = OTF2_GlobalDefWriter_WriteString(g, s, t->thr[i].name);
		if (rc == OTF2_SUCCESS)
			rc = OTF2_GlobalDefWriter_WriteLocation(
				g, i, s, OTF2_LOCATION_TYPE_CPU_THREAD, counts[i], 0);
	}
	if (rc != OTF2_SUCCESS) {
		snprintf(err, errlen, "%s: cannot write the archive: %s", out,
			 OTF2_Error_GetDescription(rc));
		goto out;
	}
	ret = 0;
out:
	if (a && OTF2_Archive_Close(a) != OTF2_SUCCESS && !ret) {
		snprintf(err, errlen, "%s: cannot close the archive", out);
		ret = -1;
	}
	free(dup_dir);
	free(dup_base);
	free(counts);
	return ret;
}
