// SPDX-License-Identifier: MIT
/*
 * xsched-options - print the XSCHED_* options table of libxsched.
 *
 *   xsched-options             name, default and range, one per line
 *   xsched-options --markdown  the README's table
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "xsched.h"
#include "version.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: xsched-options [-m | --markdown]\n"
		     "The XSCHED_* environment variables libxsched reads: name, default,\n"
		     "accepted values and meaning, one per line.\n"
		     "\n"
		     "  -m, --markdown  as a Markdown table (the README's)\n"
		     "  -h, --help      this text\n"
		     "  -V, --version   the xsched version\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "markdown", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct xs_option_info info;
	int markdown = 0, c;

	while ((c = getopt_long(argc, argv, "mhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			markdown = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			tool_version("xsched-options");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xsched-options: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (markdown) {
		printf("| variable | default | accepted values | meaning |\n");
		printf("| --- | --- | --- | --- |\n");
	}
	for (unsigned int i = 0; xs_option_describe(i, &info) == 0; i++) {
		if (markdown)
			printf("| `%s` | %s | %s | %s |\n", info.name, info.def, info.range,
			       info.doc);
		else
			printf("%-24s %-10s %-36s %s\n", info.name, info.def, info.range,
			       info.doc);
	}
	return 0;
}
