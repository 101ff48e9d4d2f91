// SPDX-License-Identifier: MIT
/*
 * xsched-options - print the XSCHED_* options table of libxsched.
 *
 *   xsched-options             name, default and range, one per line
 *   xsched-options --markdown  the README's table
 */
#include <stdio.h>
#include <string.h>

#include "xsched.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: xsched-options [--markdown]\n");
}

int main(int argc, char **argv)
{
	struct xs_option_info info;
	int markdown = 0;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--markdown"))) {
		if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	markdown = argc == 2;
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
