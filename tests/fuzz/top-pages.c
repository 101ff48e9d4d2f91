// SPDX-License-Identifier: MIT
/*
 * top-pages.c - fuzz what xsched-top reads: statistics pages and the state.
 *
 * Input: one mode byte, then a file. Mode & 3 says what the file is:
 *   0  a statistics page, named after the pid and runtime number it holds
 *   1  the same, with pid, pid_start and uid made this process's, so that
 *      a page that passes the layout checks is copied, not cleaned up
 *   2  xschedd's state file (<runtime dir>/state)
 *   3  both at once: the same bytes as page (as 1) and as state
 * The target then does what one xsched-top refresh does (tools/xsched-top:
 * top_snap_take() twice, for rates, and the text and JSON output).
 * Promises: no read outside a file; every process shown has workers and
 * every string it prints is printable (the full command name, read from
 * /proc, printable ASCII).
 */
#include <stddef.h>

#include "fuzz.h"
#include "../../tools/xsched-top/top.h"

static struct top_opts opts;
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(opts.runtime_dir, sizeof(opts.runtime_dir), "%s", fuzz_tmpdir());
	snprintf(opts.shm_dir, sizeof(opts.shm_dir), "%s", fuzz_tmpdir());
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct top_snap a, b;
	char page[8192], state[8192];
	uint8_t *buf;
	unsigned int mode;
	uint32_t pid = 1, id = 0;

	if (!sink)
		LLVMFuzzerInitialize(NULL, NULL);
	if (size < 1)
		return 0;
	mode = data[0] & 3;
	buf = malloc(size);
	if (!buf)
		abort();
	memcpy(buf, data + 1, --size);
	if (size >= sizeof(struct xs_stats_header)) {
		struct xs_stats_header h;

		memcpy(&h, buf, sizeof(h));
		if (mode & 1) {
			h.pid = (uint32_t)getpid();
			h.pid_start = 0;
			h.uid = (uint32_t)getuid();
			memcpy(buf, &h, sizeof(h));
		}
		pid = h.pid;
		id = h.runtime_id;
	}
	snprintf(page, sizeof(page), "%s/" XS_STATS_PREFIX "%u.%u", fuzz_tmpdir(), pid, id);
	snprintf(state, sizeof(state), "%s/" XS_ABI_STATE_FILE, fuzz_tmpdir());
	if (mode != 2)
		fuzz_write_file(page, buf, size);
	if (mode >= 2)
		fuzz_write_file(state, buf, size);

	top_snap_take(&a, &opts, NULL);
	top_snap_take(&b, &opts, &a);
	for (size_t i = 0; i < b.nprocs; i++) {
		FUZZ_CHECK(b.procs[i].h.nworkers >= 1);
		for (const char *c = b.procs[i].comm; *c; c++)
			FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != '"' && *c != '\\');
		/* the full name comes from /proc/<pid>: printable ASCII only */
		for (const char *c = b.procs[i].cmd; *c; c++)
			FUZZ_CHECK((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f && *c != '"' &&
				   *c != '\\');
	}
	top_print_text(sink, &b, &opts);
	top_print_json(sink, &b);
	top_snap_free(&a);
	top_snap_free(&b);
	unlink(page);
	unlink(state);
	free(buf);
	return 0;
}
