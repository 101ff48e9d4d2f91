// SPDX-License-Identifier: MIT
/*
 * xsched-run - run an unmodified OpenMP program (gcc -fopenmp) on xsched.
 *
 *   xsched-run [options] [--] PROGRAM [ARGS...]
 *
 * It puts the libgomp drop-in (libxsched-gomp.so.1) first in LD_PRELOAD,
 * turns its options into OMP_* and XSCHED_* variables, and execs PROGRAM.
 * Values are checked here against the library's own options table, so a
 * bad one is named before the program starts.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ext.h"
#include "needed.h"
#include "../version.h"

/*
 * Where the drop-in is installed, relative to the directory of xsched-run:
 * make install's PKGLIBDIR seen from its BINDIR (packaging/install.mk),
 * a private directory that ldconfig does not scan.
 */
#ifndef XS_RUN_GOMP_DIR
#define XS_RUN_GOMP_DIR "../lib/xsched"
#endif

static void usage(FILE *out)
{
	fputs("usage: xsched-run [options] [--] PROGRAM [ARGS...]\n"
	      "Run an OpenMP program (gcc -fopenmp) on xsched's libgomp drop-in.\n"
	      "\n"
	      "  -n, --threads N       threads of a parallel region (OMP_NUM_THREADS)\n"
	      "      --dlb S           load balancing: slb, ws, rp, auto (XSCHED_DLB)\n"
	      "      --push P          where tasks go: auto, rr, local (XSCHED_PUSH)\n"
	      "      --bind B          worker placement: none, compact, scatter (XSCHED_BIND)\n"
	      "      --stats           print xsched's counters at exit (XSCHED_SHOW_STATS=1)\n"
	      "      --profile FILE    write a Chrome trace of the run (XSCHED_PROFILE)\n"
	      "      --lib PATH        the drop-in to preload (default: found next to\n"
	      "                        xsched-run, or in " XS_RUN_GOMP_DIR " from it)\n"
	      "  -v, --verbose         print what is set before running PROGRAM\n"
	      "  -h, --help            this text\n"
	      "  -V, --version         the xsched version\n"
	      "\n"
	      "Other XSCHED_* and OMP_* variables in the environment are passed on;\n"
	      "xsched-options lists the XSCHED_* ones.\n",
	      out);
}

/* Set XSCHED_<name> to @value if it is one of the option's choices. */
static int set_choice(const char *var, const char *value)
{
	int64_t min, max;
	char choices[256] = "";

	if (xs_option_range(var, &min, &max))
		return -1;
	for (int64_t v = min; v <= max; v++) {
		const char *c = xs_option_choice(var, v);

		if (!strcmp(c, value))
			return setenv(var, value, 1);
		snprintf(choices + strlen(choices), sizeof(choices) - strlen(choices), "%s%s",
			 v > min ? ", " : "", c);
	}
	fprintf(stderr, "xsched-run: %s: '%s' is not one of %s\n", var, value, choices);
	return -1;
}

/* The drop-in: next to this executable (the build tree), or where make
 * install put it, XS_RUN_GOMP_DIR from here. */
static int find_lib(char *path, size_t size)
{
	static const char *const rel[] = { "libxsched-gomp.so.1",
					   XS_RUN_GOMP_DIR "/libxsched-gomp.so.1" };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	slash[1] = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if (snprintf(path, size, "%s%s", self, rel[i]) >= (int)size)
			continue;
		if (!access(path, R_OK))
			return 0;
	}
	return -1;
}

static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;
	int ret;

	if (access(lib, R_OK)) {
		fprintf(stderr, "xsched-run: --lib %s: %s\n", lib, strerror(errno));
		return -1;
	}
	if (strchr(lib, ' ') || strchr(lib, ':')) {
		fprintf(stderr, "xsched-run: --lib %s: LD_PRELOAD cannot hold a path with ' ' or ':'\n",
			lib);
		return -1;
	}
	if (old && *old) {
		if (asprintf(&value, "%s %s", lib, old) < 0)
			return -1;
	} else {
		value = strdup(lib);
	}
	if (!value)
		return -1;
	ret = setenv("LD_PRELOAD", value, 1);
	free(value);
	return ret;
}

static int parse_threads(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || end == s || n < 1 || n > 65536) {
		fprintf(stderr, "xsched-run: --threads '%s': expected a number in 1..65536\n", s);
		return -1;
	}
	return setenv("OMP_NUM_THREADS", s, 1);
}

/* @prog as execvp() would find it, into @out; -1 if not found. */
static int find_program(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(out, len, "%s", prog);
		return access(out, X_OK);
	}
	for (const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if ((size_t)snprintf(out, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", prog) < len &&
		    !access(out, X_OK))
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

/*
 * Say on stderr when preloading the drop-in cannot put @prog on xsched: it
 * links another OpenMP runtime (clang -fopenmp: libomp), none (unless it
 * loads libgomp with dlopen, which the drop-in would then serve), or it is
 * static. The program still runs, as it would without xsched-run.
 */
static void check_program(const char *prog, bool stats)
{
	const char *tail = stats ? "; --stats will show nothing" : "";
	char path[PATH_MAX], what[512];

	if (find_program(prog, path, sizeof(path)))
		return; /* execvp() names the problem */
	switch (needed_omp_runtime(path, what, sizeof(what))) {
	case NEEDED_GOMP:
		return;
	case NEEDED_OTHER_OMP:
		fprintf(stderr,
			"xsched-run: %s does not load libgomp: it links %s, another OpenMP "
			"runtime (clang -fopenmp), which xsched's drop-in does not replace; it "
			"runs unchanged, not on xsched%s\n", prog, what, tail);
		return;
	case NEEDED_NO_OMP:
		fprintf(stderr,
			"xsched-run: %s does not load libgomp (neither it nor its libraries link "
			"libgomp.so.1): unless it opens it at run time, it runs unchanged, not on "
			"xsched%s\n", prog, tail);
		return;
	case NEEDED_STATIC:
		fprintf(stderr,
			"xsched-run: %s is statically linked: LD_PRELOAD cannot replace its "
			"OpenMP runtime; it runs unchanged, not on xsched%s\n", prog, tail);
		return;
	case NEEDED_UNKNOWN:
		fprintf(stderr, "xsched-run: cannot tell which OpenMP runtime %s uses (%s)\n",
			prog, what);
		return;
	}
}

int main(int argc, char **argv)
{
	enum { OPT_DLB = 256, OPT_PUSH, OPT_BIND, OPT_STATS, OPT_PROFILE, OPT_LIB };
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 'n' },
		{ "dlb", required_argument, NULL, OPT_DLB },
		{ "push", required_argument, NULL, OPT_PUSH },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "lib", required_argument, NULL, OPT_LIB },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const shown[] = { "LD_PRELOAD", "OMP_NUM_THREADS", "XSCHED_DLB",
					     "XSCHED_PUSH", "XSCHED_BIND", "XSCHED_SHOW_STATS",
					     "XSCHED_PROFILE" };
	char libpath[PATH_MAX];
	const char *lib = NULL;
	bool verbose = false, stats = false;
	int c, bad = 0;

	/* '+': stop at the first non-option, the program. */
	while ((c = getopt_long(argc, argv, "+n:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': bad |= parse_threads(optarg); break;
		case OPT_DLB: bad |= set_choice("XSCHED_DLB", optarg); break;
		case OPT_PUSH: bad |= set_choice("XSCHED_PUSH", optarg); break;
		case OPT_BIND: bad |= set_choice("XSCHED_BIND", optarg); break;
		case OPT_STATS:
			stats = true;
			bad |= setenv("XSCHED_SHOW_STATS", "1", 1);
			break;
		case OPT_PROFILE:
			if (!*optarg) {
				fprintf(stderr, "xsched-run: --profile needs a file name\n");
				bad = -1;
			} else {
				bad |= setenv("XSCHED_PROFILE", optarg, 1);
			}
			break;
		case OPT_LIB: lib = optarg; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': tool_version("xsched-run"); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (bad)
		return 2;
	if (optind >= argc) {
		fprintf(stderr, "xsched-run: no program to run\n");
		usage(stderr);
		return 2;
	}
	if (!lib) {
		if (find_lib(libpath, sizeof(libpath))) {
			fprintf(stderr, "xsched-run: libxsched-gomp.so.1 not found next to xsched-run "
					"or in " XS_RUN_GOMP_DIR " from it (pass --lib PATH)\n");
			return 2;
		}
		lib = libpath;
	}
	if (set_preload(lib))
		return 2;
	if (verbose)
		for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
			if (getenv(shown[i]))
				fprintf(stderr, "xsched-run: %s=%s\n", shown[i], getenv(shown[i]));
	check_program(argv[optind], stats || (getenv("XSCHED_SHOW_STATS") &&
					       strcmp(getenv("XSCHED_SHOW_STATS"), "0")));
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "xsched-run: %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
