// SPDX-License-Identifier: MIT
/*
 * plot.c - `xsched-trace plot` (plot.h): layout, axes, bars, legend.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "canvas.h"
#include "plot.h"
#include "png.h"

const unsigned int plot_color[TK_NCOLUMNS] = {
	[TK_THREAD] = 0x7f7f7f,	     [TK_TASK] = 0x2ca02c,  [TK_TASK_CREATE] = 0x1f77b4,
	[TK_TASKWAIT] = 0xff7f0e,    [TK_BARRIER] = 0x9467bd, [TK_STALL] = 0xd62728,
	[TK_OUTSIDE] = 0xd9d9d9,
};

const char *const plot_color_name[TK_NCOLUMNS] = {
	[TK_THREAD] = "grey",	   [TK_TASK] = "green", [TK_TASK_CREATE] = "blue",
	[TK_TASKWAIT] = "orange", [TK_BARRIER] = "purple", [TK_STALL] = "red",
	[TK_OUTSIDE] = "light grey",
};

/* Stacking order of the state bars, left to right. */
static const int plot_order[TK_NCOLUMNS] = {
	TK_TASK, TK_TASK_CREATE, TK_TASKWAIT, TK_STALL, TK_BARRIER, TK_THREAD, TK_OUTSIDE,
};

#define INK 0x000000
#define GRID 0xeeeeee

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

static void plot_number(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e9)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

/*
 * An x axis under a panel: line, ticks, grid lines up through the panel
 * and labels, for values 0..@max drawn over pixels @x0..@x0+@pw.
 */
static void plot_axis(struct canvas *c, int x0, int pw, int ytop, int yaxis, int s, double max,
		      double unit)
{
	char label[32];
	int nticks = pw / (FONT_CELL_W(s) * 8);
	double step = plot_step(max / unit, nticks < 2 ? 2 : nticks);

	canvas_fill(c, x0, yaxis, pw + 1, 1, INK);
	for (int i = 0;; i++) {
		double v = i * step;
		int x = x0 + (int)lround(v * unit / max * pw);

		if (v * unit > max * (1 + 1e-9))
			break;
		if (i)
			canvas_fill(c, x, ytop, 1, yaxis - ytop, GRID);
		canvas_fill(c, x, yaxis, 1, 3 * s, INK);
		plot_number(label, sizeof(label), v);
		canvas_text(c, x - canvas_text_width(s, label) / 2, yaxis + 4 * s, s, label, INK);
	}
}

int plot_write(const struct trace *t, const char *out, int w, int h, FILE *layout, char *err,
	       size_t errlen)
{
	const int n = (int)t->nthr;
	struct canvas c;
	char label[64];
	int s, cw, ch, pad, left, right, y, x, pw, rows_h, h1, h2, pitch1, pitch2, legend_rows;
	double max_span = 0, max_count = 0, unit;
	const char *unit_name;
	int ret = -1;

	if (!n) {
		snprintf(err, errlen, "%s: no events to plot", t->path);
		return -1;
	}
	s = w >= 800 && h >= 480 ? 2 : 1;
	cw = FONT_CELL_W(s);
	ch = FONT_CELL_H(s);
	pad = 4 * s;

	/* Left margin: the longest thread label. */
	left = 0;
	for (int i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "W%" PRId64, t->thr[i].tid);
		if (canvas_text_width(s, label) > left)
			left = canvas_text_width(s, label);
	}
	left += 2 * pad;
	right = 3 * cw; /* room for the last tick label */
	pw = w - left - right;

	/* Legend rows: how many lines the seven entries need at this width. */
	legend_rows = 1;
	x = pad;
	for (int k = 0; k < TK_NCOLUMNS; k++) {
		int iw = ch + canvas_text_width(s, trace_kind_names[plot_order[k]]) + 2 * cw;

		if (x + iw > w - pad && x > pad) {
			legend_rows++;
			x = pad;
		}
		x += iw;
	}

	/* Fixed heights: legend, two titles, two axes with labels, padding. */
	rows_h = h - (pad + legend_rows * ch + pad) - 2 * (ch + pad) - 2 * (ch + 6 * s) - 2 * pad;
	h1 = rows_h * 55 / 100;
	h2 = rows_h - h1;
	pitch1 = h1 / n;
	pitch2 = h2 / n;
	if (pw < 40 || pitch1 < 3 || pitch2 < 4) {
		snprintf(err, errlen,
			 "%s: a %dx%d picture is too small for the %d threads of %s (each needs "
			 "3 + 4 rows of pixels, and the labels around them)",
			 out, w, h, n, t->path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct trace_thread *thr = &t->thr[i];

		if (thr->last - thr->first > max_span)
			max_span = (double)(thr->last - thr->first);
		if (thr->created > max_count)
			max_count = (double)thr->created;
		if (thr->executed > max_count)
			max_count = (double)thr->executed;
	}
	if (max_span <= 0)
		max_span = 1;
	if (max_count <= 0)
		max_count = 1;
	if (max_span >= 1e9)
		unit = 1e9, unit_name = "SECONDS";
	else if (max_span >= 1e6)
		unit = 1e6, unit_name = "MILLISECONDS";
	else
		unit = 1e3, unit_name = "MICROSECONDS";

	if (canvas_init(&c, w, h, PLOT_BACKGROUND)) {
		snprintf(err, errlen, "%s: out of memory for a %dx%d picture", out, w, h);
		return -1;
	}

	/* Legend. */
	y = pad;
	x = pad;
	for (int k = 0; k < TK_NCOLUMNS; k++) {
		int kind = plot_order[k];
		int iw = ch + canvas_text_width(s, trace_kind_names[kind]) + 2 * cw;

		if (x + iw > w - pad && x > pad) {
			y += ch;
			x = pad;
		}
		canvas_fill(&c, x, y, 7 * s, 7 * s, plot_color[kind]);
		canvas_text(&c, x + 7 * s + cw / 2, y, s, trace_kind_names[kind], INK);
		x += iw;
	}
	y += ch + pad;

	/* Panel 1: exclusive time per state, stacked. */
	snprintf(label, sizeof(label), "TIME PER THREAD (%s)", unit_name);
	canvas_text(&c, left, y, s, label, INK);
	y += ch + pad;
	{
		int ytop = y, yaxis = y + pitch1 * n;

		plot_axis(&c, left, pw, ytop, yaxis, s, max_span, unit);
		canvas_fill(&c, left - 1, ytop, 1, yaxis - ytop, INK);
		for (int i = 0; i < n; i++) {
			const struct trace_thread *thr = &t->thr[i];
			int by = ytop + i * pitch1 + pitch1 / 6, bh = pitch1 - 2 * (pitch1 / 6);
			int64_t cum = 0;
			int prev = 0;

			snprintf(label, sizeof(label), "W%" PRId64, thr->tid);
			canvas_text(&c, left - pad - canvas_text_width(s, label),
				    by + (bh - 7 * s) / 2, s, label, INK);
			for (int k = 0; k < TK_NCOLUMNS; k++) {
				int kind = plot_order[k], xk;

				/* Cumulative rounding: segments tile the bar. */
				cum += thr->excl[kind];
				xk = (int)lround((double)cum / max_span * pw);
				if (xk == 0 && thr->excl[kind] > 0)
					xk = 1; /* a span too short for a pixel still shows */
				canvas_fill(&c, left + prev, by, xk - prev, bh, plot_color[kind]);
				if (xk > prev)
					prev = xk;
			}
			if (layout)
				fprintf(layout, "thread %" PRId64 " state-bar %d %d %d %d\n",
					thr->tid, left, left + pw - 1, by, by + bh - 1);
		}
		y = yaxis + ch + 6 * s + pad;
	}

	/* Panel 2: tasks created and executed. */
	x = left;
	x += canvas_text(&c, x, y, s, "TASKS ", INK);
	canvas_fill(&c, x, y, 7 * s, 7 * s, PLOT_CREATED);
	x += 7 * s + cw / 2;
	x += canvas_text(&c, x, y, s, "CREATED ", INK);
	canvas_fill(&c, x, y, 7 * s, 7 * s, PLOT_EXECUTED);
	x += 7 * s + cw / 2;
	canvas_text(&c, x, y, s, "EXECUTED PER THREAD", INK);
	y += ch + pad;
	{
		int ytop = y, yaxis = y + pitch2 * n;

		plot_axis(&c, left, pw, ytop, yaxis, s, max_count, 1);
		canvas_fill(&c, left - 1, ytop, 1, yaxis - ytop, INK);
		for (int i = 0; i < n; i++) {
			const struct trace_thread *thr = &t->thr[i];
			int gap = pitch2 / 8, bh = (pitch2 - 2 * gap) / 2;
			int by = ytop + i * pitch2 + gap;
			int xc = (int)lround((double)thr->created / max_count * pw);
			int xe = (int)lround((double)thr->executed / max_count * pw);

			if (thr->created && !xc)
				xc = 1;
			if (thr->executed && !xe)
				xe = 1;
			snprintf(label, sizeof(label), "W%" PRId64, thr->tid);
			canvas_text(&c, left - pad - canvas_text_width(s, label),
				    by + (2 * bh - 7 * s) / 2, s, label, INK);
			canvas_fill(&c, left, by, xc, bh, PLOT_CREATED);
			canvas_fill(&c, left, by + bh, xe, bh, PLOT_EXECUTED);
			if (layout)
				fprintf(layout, "thread %" PRId64 " count-bars %d %d %d %d\n",
					thr->tid, left, left + pw - 1, by, by + 2 * bh - 1);
		}
	}

	int err_png = png_write(out, c.rgb, (uint32_t)w, (uint32_t)h);

	if (err_png)
		snprintf(err, errlen, "%s: cannot write: %s", out, strerror(-err_png));
	else
		ret = 0;
	canvas_free(&c);
	return ret;
}
