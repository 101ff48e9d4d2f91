// SPDX-License-Identifier: MIT
/*
 * trace-json.c - fuzz xsched-trace's reader of XSCHED_PROFILE files.
 *
 * Input: a profile (Chrome trace JSON with xsched's own sections). The
 * target does what `xsched-trace summary` does before printing:
 * trace_load() (tools/common/json.c, tools/xsched-trace/trace.c) and
 * trace_summarize(). Promises: a refused file gets a one-line error that
 * names it; an accepted one has its threads sorted by tid.
 */
#include "fuzz.h"
#include "../../tools/xsched-trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[4200];
	char err[512];
	struct trace t;

	if (!path[0])
		snprintf(path, sizeof(path), "%s/trace.json", fuzz_tmpdir());
	fuzz_write_file(path, data, size);
	err[0] = '\0';
	if (trace_load(&t, path, err, sizeof(err))) {
		FUZZ_CHECK(!strncmp(err, path, strlen(path)));
		FUZZ_CHECK(!strchr(err, '\n'));
		return 0;
	}
	for (size_t i = 1; i < t.nthr; i++)
		FUZZ_CHECK(t.thr[i - 1].tid <= t.thr[i].tid);
	err[0] = '\0';
	if (trace_summarize(&t, err, sizeof(err)))
		FUZZ_CHECK(err[0]);
	trace_free(&t);
	return 0;
}
