// SPDX-License-Identifier: MIT
/*
 * plot.c - `xsched-trace plot` (plot.h): the timeline, with cairo.
 */
#include <cairo/cairo.h> /* no -I needed: its own includes are quoted */
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "plot.h"

const unsigned int plot_color[TK_NCOLUMNS] = {
	[TK_THREAD] = 0x7f7f7f,	  [TK_TASK] = 0x2ca02c,    [TK_TASK_CREATE] = 0x1f77b4,
	[TK_TASKWAIT] = 0xff7f0e, [TK_BARRIER] = 0x9467bd, [TK_STALL] = 0xd62728,
	[TK_OUTSIDE] = 0xffffff,
};

const char *const plot_color_name[TK_NCOLUMNS] = {
	[TK_THREAD] = "grey",	  [TK_TASK] = "green",	    [TK_TASK_CREATE] = "blue",
	[TK_TASKWAIT] = "orange", [TK_BARRIER] = "purple", [TK_STALL] = "red",
	[TK_OUTSIDE] = "white",
};

/* What the legend calls each kind, in its order. */
static const struct {
	int kind;
	const char *label;
} plot_legend[] = {
	{ TK_TASK, "task" },		{ TK_TASK_CREATE, "spawn" },
	{ TK_TASKWAIT, "taskwait" },	{ TK_BARRIER, "barrier" },
	{ TK_STALL, "idle / stealing" }, { TK_THREAD, "scheduler" },
};

static void plot_rgb(cairo_t *cr, unsigned int c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
			     (c & 255) / 255.0);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about @n ticks. */
static double plot_step(double max, int n)
{
	double raw = max / (n > 1 ? n : 1), p = pow(10, floor(log10(raw)));

	if (raw <= p)
		return p;
	if (raw <= 2 * p)
		return 2 * p;
	if (raw <= 5 * p)
		return 5 * p;
	return 10 * p;
}

/* The unit for a span of @ns nanoseconds, and nanoseconds per unit. */
static const char *plot_unit(double ns, double *per)
{
	if (ns >= 2e9)
		return *per = 1e9, "s";
	if (ns >= 2e6)
		return *per = 1e6, "ms";
	if (ns >= 2e3)
		return *per = 1e3, "us";
	return *per = 1, "ns";
}

static void plot_text(cairo_t *cr, double x, double y, double align, const char *s)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - align * e.x_advance, y);
	cairo_show_text(cr, s);
}

static void plot_head(cairo_t *cr, const struct trace *t, int w, double span_ns)
{
	const char *base = strrchr(t->path, '/');
	double per, x = 10;
	char title[320];
	const char *unit = plot_unit(span_ns, &per);

	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, 14);
	plot_rgb(cr, 0);
	snprintf(title, sizeof(title), "xsched timeline: %.200s, %zu threads, %.3g %s",
		 base ? base + 1 : t->path, t->nthr, span_ns / per, unit);
	plot_text(cr, w / 2.0, 20, 0.5, title);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	for (size_t i = 0; i < sizeof(plot_legend) / sizeof(plot_legend[0]); i++) {
		cairo_text_extents_t e;

		plot_rgb(cr, plot_color[plot_legend[i].kind]);
		cairo_rectangle(cr, x, 30, 10, 10);
		cairo_fill(cr);
		plot_rgb(cr, 0);
		cairo_text_extents(cr, plot_legend[i].label, &e);
		cairo_move_to(cr, x + 14, 39);
		cairo_show_text(cr, plot_legend[i].label);
		x += 14 + e.x_advance + 14;
	}
}

/* Ticks, grid and labels of the time axis under lanes [y0, y1]. */
static void plot_axis(cairo_t *cr, double x0, double x1, double y0, double y1, double span_ns)
{
	double per, step, scale = (x1 - x0) / span_ns;
	const char *unit = plot_unit(span_ns, &per);
	char label[64];

	step = plot_step(span_ns / per, (int)((x1 - x0) / 90)) * per;
	cairo_set_line_width(cr, 1);
	for (double v = 0; v <= span_ns * (1 + 1e-9); v += step) {
		double x = floor(x0 + v * scale) + 0.5;

		plot_rgb(cr, 0xdddddd);
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, y1);
		cairo_stroke(cr);
		plot_rgb(cr, 0);
		cairo_move_to(cr, x, y1);
		cairo_line_to(cr, x, y1 + 4);
		cairo_stroke(cr);
		snprintf(label, sizeof(label), "%.4g", v / per);
		plot_text(cr, x, y1 + 15, 0.5, label);
	}
	cairo_move_to(cr, x0, floor(y1) + 0.5);
	cairo_line_to(cr, x1, floor(y1) + 0.5);
	cairo_stroke(cr);
	snprintf(label, sizeof(label), "time since the first event (%s)", unit);
	plot_text(cr, (x0 + x1) / 2, y1 + 30, 0.5, label);
}

static void plot_lane(cairo_t *cr, const struct trace_thread *thr, int64_t origin, double scale,
		      int x0, int x1, int y0, int y1)
{
	char label[96];

	/* Parents first (trace_summarize() sorted them): nested events are
	 * painted over their parents. At least a pixel each. */
	for (size_t i = 0; i < thr->n; i++) {
		const struct trace_event *ev = &thr->ev[i];
		double a = floor(x0 + (double)(ev->start - origin) * scale);
		double b = floor(x0 + (double)(ev->end - origin) * scale);

		if (b <= a)
			b = a + 1;
		if (b > x1 + 1)
			b = x1 + 1;
		plot_rgb(cr, plot_color[ev->kind]);
		cairo_rectangle(cr, a, y0, b - a, y1 - y0 + 1);
		cairo_fill(cr);
	}
	plot_rgb(cr, 0);
	cairo_set_font_size(cr, 11);
	snprintf(label, sizeof(label), "%.40s", thr->name);
	plot_text(cr, x0 - 6, (y0 + y1) / 2.0 - 1, 1, label);
	cairo_set_font_size(cr, 9);
	if (thr->has_counters)
		snprintf(label, sizeof(label), "ran %llu, stolen %llu",
			 (unsigned long long)thr->counter_executed,
			 (unsigned long long)thr->counter_stolen);
	else
		snprintf(label, sizeof(label), "ran %llu", (unsigned long long)thr->executed);
	plot_text(cr, x0 - 6, (y0 + y1) / 2.0 + 10, 1, label);
}

enum plot_format plot_format(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (!dot || strchr(dot, '/'))
		return PLOT_UNKNOWN;
	if (!strcasecmp(dot, ".png"))
		return PLOT_PNG;
	if (!strcasecmp(dot, ".svg"))
		return PLOT_SVG;
	if (!strcasecmp(dot, ".pdf"))
		return PLOT_PDF;
	return PLOT_UNKNOWN;
}

int plot_write(const struct trace *t, const char *out, int w, int h, FILE *layout, char *err,
	       size_t errlen)
{
	const int left = 130, right = 16, top = 50, bottom = 44;
	cairo_surface_t *s;
	cairo_status_t st;
	int64_t first, last;
	double span, scale, lane_h;
	cairo_t *cr;
	int x0 = left, x1 = w - right - 1, ret = 0;

	trace_extent(t, &first, &last);
	span = last > first ? (double)(last - first) : 1;
	scale = (x1 - x0 + 1) / span;
	switch (plot_format(out)) {
	case PLOT_SVG:
		s = cairo_svg_surface_create(out, w, h);
		break;
	case PLOT_PDF:
		s = cairo_pdf_surface_create(out, w, h);
		break;
	case PLOT_PNG:
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
		break;
	default:
		snprintf(err, errlen, "%s: %s", out, PLOT_FORMATS);
		return -1;
	}
	cr = cairo_create(s);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
	plot_rgb(cr, 0xffffff);
	cairo_paint(cr);
	plot_head(cr, t, w, span);
	/* The grid first: lanes paint over it, the gaps between them show it. */
	cairo_set_font_size(cr, 10);
	plot_axis(cr, x0, x1 + 1, top - 2, h - bottom + 1, span);
	lane_h = t->nthr ? (double)(h - top - bottom) / (double)t->nthr : 0;
	if (layout)
		fprintf(layout, "plot %d %d %lld %lld\n", x0, x1, (long long)first,
			(long long)last);
	for (size_t i = 0; i < t->nthr; i++) {
		int y0 = top + (int)floor(lane_h * (double)i);
		int y1 = top + (int)floor(lane_h * (double)(i + 1)) - 1 - (lane_h >= 6 ? 2 : 0);

		if (y1 < y0)
			y1 = y0;
		plot_lane(cr, &t->thr[i], first, scale, x0, x1, y0, y1);
		if (layout)
			fprintf(layout, "thread %lld lane %d %d %d %d\n", (long long)t->thr[i].tid,
				x0, x1, y0, y1);
	}
	cairo_save(cr);
	cairo_translate(cr, 12, top + (h - top - bottom) / 2.0);
	cairo_rotate(cr, -M_PI / 2);
	cairo_set_font_size(cr, 11);
	plot_text(cr, 0, 0, 0.5, "worker (thread)");
	cairo_restore(cr);
	cairo_destroy(cr);
	st = cairo_surface_status(s);
	if (st == CAIRO_STATUS_SUCCESS && plot_format(out) == PLOT_PNG)
		st = cairo_surface_write_to_png(s, out);
	/* A vector surface writes the rest of its file as it finishes. */
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s: cannot write: %s", out,
			 st == CAIRO_STATUS_WRITE_ERROR ? strerror(errno ? errno : EIO)
							: cairo_status_to_string(st));
		ret = -1;
	}
	cairo_surface_destroy(s);
	return ret;
}
