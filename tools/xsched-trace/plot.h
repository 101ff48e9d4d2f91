/* SPDX-License-Identifier: MIT */
/*
 * plot.h - `xsched-trace plot`: the picture of a summarized trace.
 *
 * Top panel: one horizontal bar per thread, its span split into the
 * exclusive times of the states, stacked left to right in the order of
 * plot_order[] (time on x, in the unit the axis names). Bottom panel: two
 * bars per thread, tasks created (upper) and executed (lower).
 */
#ifndef XSCHED_TRACE_PLOT_H
#define XSCHED_TRACE_PLOT_H

#include <stdio.h>

#include "trace.h"

#define PLOT_MIN_W 240
#define PLOT_MIN_H 160
#define PLOT_MAX_W 8192
#define PLOT_MAX_H 8192

#define PLOT_BACKGROUND 0xffffff
#define PLOT_CREATED 0x1f77b4
#define PLOT_EXECUTED 0x2ca02c

/* Colour of each column of the summary (TK_OUTSIDE included). */
extern const unsigned int plot_color[TK_NCOLUMNS];
extern const char *const plot_color_name[TK_NCOLUMNS];

/*
 * Draw @t (summarized) into a @w x @h PNG at @out. With @layout non-NULL,
 * print there, per thread, "thread TID state-bar X0 X1 Y0 Y1" and
 * "thread TID count-bars X0 X1 Y0 Y1": the pixel boxes (inclusive) its
 * bars may occupy.
 * Returns 0, or -1 after writing a message to @err.
 */
int plot_write(const struct trace *t, const char *out, int w, int h, FILE *layout, char *err,
	       size_t errlen);

#endif /* XSCHED_TRACE_PLOT_H */
