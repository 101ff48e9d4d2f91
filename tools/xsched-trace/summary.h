/* SPDX-License-Identifier: MIT */
/*
 * summary.h - `xsched-trace summary`: a summarized trace as a table or as
 * JSON (one thread per line, then the totals).
 */
#ifndef XSCHED_TRACE_SUMMARY_H
#define XSCHED_TRACE_SUMMARY_H

#include <stdio.h>

#include "trace.h"

void summary_text(const struct trace *t, FILE *out);
void summary_json(const struct trace *t, FILE *out);

#endif /* XSCHED_TRACE_SUMMARY_H */
