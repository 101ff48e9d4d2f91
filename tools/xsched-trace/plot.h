/* SPDX-License-Identifier: MIT */
/*
 * plot.h - `xsched-trace plot`: a timeline of a summarized trace, drawn
 * with cairo into a PNG, an SVG or a PDF (the output's extension says which).
 *
 * Time runs on x, from the trace's first event to its last, in the unit
 * the axis names (ns, us, ms or s since the first event). Each thread
 * (worker) has a lane; its events are drawn where they happened, parents
 * first and nested events over them, so what shows at an instant is the
 * innermost event (trace.h): TASK green, TASK_CREATE blue, TASKWAIT
 * orange, BARRIER purple, STALL red (idle: looking for work to steal),
 * THREAD grey (the scheduler between those), white outside any event. An
 * event shorter than a pixel still gets one pixel. A lane's label gives the
 * worker, the tasks it ran and the tasks thieves stole from it (from the
 * counters, when the file has them). A title, a legend and axis labels
 * with units are drawn above and around.
 */
#ifndef XSCHED_TRACE_PLOT_H
#define XSCHED_TRACE_PLOT_H

#include <stdio.h>

#include "trace.h"

#define PLOT_MIN_W 240
#define PLOT_MIN_H 160
#define PLOT_MAX_W 8192
#define PLOT_MAX_H 8192

/* Colour (0xRRGGBB) and name of each event kind; TK_OUTSIDE: background. */
extern const unsigned int plot_color[TK_NCOLUMNS];
extern const char *const plot_color_name[TK_NCOLUMNS];

enum plot_format { PLOT_UNKNOWN, PLOT_PNG, PLOT_SVG, PLOT_PDF };

#define PLOT_FORMATS "the format comes from the extension: .png, .svg or .pdf"

/* The format of an output path, by its extension (any case). */
enum plot_format plot_format(const char *out);

/*
 * Draw @t (summarized) into a @w x @h picture at @out (pixels for a PNG,
 * points for SVG and PDF). With @layout non-NULL,
 * print there "plot X0 X1 T0_NS T1_NS" (the pixel columns of the time
 * axis and the times at its ends) and per thread "thread TID lane X0 X1
 * Y0 Y1": the pixel box (inclusive) its lane occupies.
 * Returns 0, or -1 after writing a message to @err.
 */
int plot_write(const struct trace *t, const char *out, int w, int h, FILE *layout, char *err,
	       size_t errlen);

#endif /* XSCHED_TRACE_PLOT_H */
