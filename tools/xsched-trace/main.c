// SPDX-License-Identifier: MIT
/*
 * xsched-trace - summaries and pictures of an XSCHED_PROFILE trace.
 *
 *   xsched-trace summary [--json] FILE
 *   xsched-trace plot FILE -o OUT [--width W] [--height H] [--layout]
 *   xsched-trace otf2 FILE -o OUT
 *
 * FILE is the Chrome trace-event JSON that XSCHED_PROFILE=FILE makes
 * libxsched write (trace.h says what is accepted and how nested events are
 * counted). Exit status: 0, 1 when the file cannot be read or is not such
 * a trace, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_export.h"
#include "plot.h"
#include "summary.h"
#include "trace.h"
#include "../common/number.h"
#include "../version.h"

static void usage(FILE *out, int full)
{
	fprintf(out, "usage: xsched-trace summary [--json] FILE\n"
		     "       xsched-trace plot FILE -o OUT [--width W] [--height H] [--layout]\n"
		     "       xsched-trace otf2 FILE -o OUT\n"
		     "       xsched-trace --help | --version\n");
	if (!full)
		return;
	fprintf(out,
		"\n"
		"FILE is what XSCHED_PROFILE=FILE writes (Chrome trace-event JSON).\n"
		"\n"
		"summary  per thread: exclusive time in THREAD, TASK, TASK_CREATE, TASKWAIT,\n"
		"         BARRIER and STALL, time in no event (OUTSIDE), the span, and the\n"
		"         TASK_CREATE and TASK events (tasks created, executed). Events nest\n"
		"         (a TASK inside a TASKWAIT or a TASK_CREATE, STALL inside TASKWAIT,\n"
		"         everything inside THREAD): each instant counts for the innermost\n"
		"         event open on its thread, so a row adds up to its span. THREAD's\n"
		"         own time is the scheduler looking for work outside the others.\n"
		"         --json: one JSON object, times in integer nanoseconds.\n"
		"plot     a timeline of W x H (default 1000 x 600; W %d..%d, H %d..%d),\n"
		"         a PNG, an SVG or a PDF as OUT's extension says (.png, .svg,\n"
		"         .pdf), drawn with cairo: time since the first event on x,\n"
		"         one lane per thread (W<tid>) with its events where they happened,\n"
		"         nested ones over their parents; each lane says the tasks the\n"
		"         worker ran and the tasks thieves stole from it. --layout prints\n"
		"         the time axis's pixel columns and each lane's pixel box.\n"
		"         -o, --output OUT; -W, --width W; -H, --height H.\n"
		"otf2     an OTF2 archive, OUT.otf2, OUT.def and the directory OUT/ (Vampir,\n"
		"         otf2-print): a location per thread, a region per event kind.\n"
		"\n"
		"colours: TASK green #2ca02c, TASK_CREATE (spawn) blue #1f77b4, TASKWAIT\n"
		"         orange #ff7f0e, BARRIER purple #9467bd, STALL (idle, stealing)\n"
		"         red #d62728, THREAD (scheduler) grey #7f7f7f; no event: white.\n"
		"\n"
		"FILE may also be a Chrome trace-event array ([...]) and may use B/E\n"
		"(begin/end) events instead of X events.\n",
		PLOT_MIN_W, PLOT_MAX_W, PLOT_MIN_H, PLOT_MAX_H);
}

int main(int argc, char **argv)
{
	enum { OPT_LAYOUT = 256, OPT_JSON };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, 'W' },
		{ "height", required_argument, NULL, 'H' },
		{ "layout", no_argument, NULL, OPT_LAYOUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *file = NULL, *out = NULL, *wrong = "", *wrong_for = "";
	char prog[32];
	int json = 0, layout = 0, w = 1000, h = 600, ret = 1, plot, otf2, c;
	struct trace t;
	char err[512];

	if (argc < 2) {
		usage(stderr, 0);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout, 1);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		tool_version("xsched-trace");
		return 0;
	}
	if (strcmp(cmd, "summary") && strcmp(cmd, "plot") && strcmp(cmd, "otf2")) {
		fprintf(stderr, "xsched-trace: unknown command '%s' (summary, plot, otf2, --help)\n",
			cmd);
		return 2;
	}
	plot = !strcmp(cmd, "plot");
	otf2 = !strcmp(cmd, "otf2");
	/* The options after the command, in any order with FILE; getopt's
	 * messages name "xsched-trace plot" (argv[1] is its argv[0]). */
	snprintf(prog, sizeof(prog), "xsched-trace %s", cmd);
	argv[1] = prog;
	optind = 1;
	while ((c = getopt_long(argc - 1, argv + 1, "o:W:H:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout, 1);
			return 0;
		case 'V':
			tool_version("xsched-trace");
			return 0;
		case OPT_JSON:
			wrong = "--json", wrong_for = "summary";
			if (plot || otf2)
				goto only_for;
			json = 1;
			break;
		case OPT_LAYOUT:
			wrong = "--layout", wrong_for = "plot";
			if (!plot)
				goto only_for;
			layout = 1;
			break;
		case 'o':
			wrong = "-o/--output", wrong_for = "plot and otf2";
			if (!plot && !otf2)
				goto only_for;
			out = optarg;
			break;
		case 'W':
			wrong = "-W/--width", wrong_for = "plot";
			if (!plot)
				goto only_for;
			if (tool_parse_int("xsched-trace", "--width", optarg, PLOT_MIN_W,
					   PLOT_MAX_W, &w))
				return 2;
			break;
		case 'H':
			wrong = "-H/--height", wrong_for = "plot";
			if (!plot)
				goto only_for;
			if (tool_parse_int("xsched-trace", "--height", optarg, PLOT_MIN_H,
					   PLOT_MAX_H, &h))
				return 2;
			break;
		default:
			usage(stderr, 0);
			return 2;
		}
	}
	for (int i = optind + 1; i < argc; i++) {
		if (file) {
			fprintf(stderr, "xsched-trace %s: one FILE only ('%s', '%s')\n", cmd, file,
				argv[i]);
			return 2;
		}
		file = argv[i];
	}
	if (!file || ((plot || otf2) && !out)) {
		fprintf(stderr, "xsched-trace %s: %s\n", cmd,
			!file ? "no FILE given" : "no output given (-o OUT)");
		usage(stderr, 0);
		return 2;
	}

	if (plot && plot_format(out) == PLOT_UNKNOWN) {
		fprintf(stderr, "xsched-trace plot: -o %s: " PLOT_FORMATS "\n", out);
		return 2;
	}
	if (trace_load(&t, file, err, sizeof(err))) {
		fprintf(stderr, "xsched-trace: %s\n", err);
		return 1;
	}
	if (trace_summarize(&t, err, sizeof(err)))
		goto fail;
	if (!strcmp(cmd, "summary")) {
		if (json)
			summary_json(&t, stdout);
		else
			summary_text(&t, stdout);
	} else if (otf2) {
		if (otf2_write(&t, out, err, sizeof(err)))
			goto fail;
		printf("xsched-trace: wrote %s.otf2, %s.def and %s/ (%zu threads)\n", out, out, out,
		       t.nthr);
	} else {
		if (plot_write(&t, out, w, h, layout ? stdout : NULL, err, sizeof(err)))
			goto fail;
		if (!layout)
			printf("xsched-trace: wrote %s (%dx%d, %zu threads)\n", out, w, h, t.nthr);
	}
	if (fflush(stdout) || ferror(stdout)) {
		snprintf(err, sizeof(err), "standard output: %s", strerror(errno));
		goto fail;
	}
	ret = 0;
	goto out;
only_for:
	fprintf(stderr, "xsched-trace %s: option %s is for %s\n", cmd, wrong, wrong_for);
	return 2;
fail:
	fprintf(stderr, "xsched-trace: %s\n", err);
out:
	trace_free(&t);
	return ret;
}
