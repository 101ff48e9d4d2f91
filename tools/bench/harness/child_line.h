/* SPDX-License-Identifier: MIT */
/*
 * child_line.h - one line a child of xsched-bench writes (xsched-bench-omp,
 * a --corun copy): a flat JSON object, read with the tools' one JSON reader
 * (tools/common/json.h), never by searching the text for a key.
 *
 * Members the bench reads are kept with a bit in `has`; other members are
 * validated and skipped. A line that is not one flat object of these types
 * is refused: the bench then reports it as unreadable output.
 */
#ifndef XSCHED_BENCH_CHILD_LINE_H
#define XSCHED_BENCH_CHILD_LINE_H

#include <stdint.h>

enum child_member {
	CHILD_LIB = 1u << 0,      /* "lib": the library that served the calls */
	CHILD_STRAY = 1u << 1,    /* "stray": an import bound elsewhere */
	CHILD_TIME = 1u << 2,     /* "time_s" */
	CHILD_CHECKSUM = 1u << 3, /* "checksum": 16 hex digits */
	CHILD_NODES = 1u << 4,    /* "nodes": nodes explored */
	CHILD_WARMUP = 1u << 5,   /* "warmup": a warm-up run's number */
	CHILD_ITERS = 1u << 6,    /* "iters": a micro-benchmark's iterations */
	CHILD_START = 1u << 7,    /* "start_s", "end_s": a --corun copy's run */
	CHILD_END = 1u << 8,
	CHILD_READY = 1u << 9,    /* "ready": a --corun copy waits to start */
};

struct child_line {
	unsigned int has;
	char lib[256], stray[512];
	double time_s, nodes, warmup, iters, start_s, end_s;
	uint64_t checksum;
};

/* Read @line into @out. Returns 0, or -1 when it is not such an object. */
int child_line_parse(const char *line, struct child_line *out);

#endif /* XSCHED_BENCH_CHILD_LINE_H */
