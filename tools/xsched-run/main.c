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
 *
 * With --mpi it runs one rank of an MPI job (mpirun ... xsched-run --mpi
 * PROGRAM): it preloads libxsched-mpi built for the MPI that PROGRAM links
 * (Open MPI or MPICH, read from its DT_NEEDED entries; docs/mpi.md), and
 * the drop-in only when PROGRAM also links libgomp; --place binds a rank
 * its launcher left unbound to its block of the node's CPUs (place.c).
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
#include "place.h"
#include "../common/number.h"
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
	      "      --mpi             PROGRAM is an MPI rank: preload libxsched-mpi for\n"
	      "                        the MPI it links (Open MPI or MPICH), and the\n"
	      "                        drop-in only if it links libgomp\n"
	      "      --lend            with --mpi: lend the rank's CPUs while it waits\n"
	      "                        in MPI (XSCHED_MPI_LEND=1)\n"
	      "      --summary FILE    with --mpi: write the job's efficiency JSON at\n"
	      "                        MPI_Finalize (XSCHED_MPI_SUMMARY, %j: job id)\n"
	      "      --place           with --mpi: bind a rank the launcher left unbound\n"
	      "                        to its block of the node's CPUs, along NUMA\n"
	      "                        nodes and caches (not with --lend)\n"
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

/* Library @name (the drop-in, libxsched-mpi): next to this executable
 * (the build tree), or where make install put it, XS_RUN_GOMP_DIR from here. */
static int find_lib(const char *name, char *path, size_t size)
{
	const char *const rel[] = { "", XS_RUN_GOMP_DIR "/" };
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
		if (snprintf(path, size, "%s%s%s", self, rel[i], name) >= (int)size)
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
		fprintf(stderr, "xsched-run: %s: %s\n", lib, strerror(errno));
		return -1;
	}
	if (strchr(lib, ' ') || strchr(lib, ':')) {
		fprintf(stderr, "xsched-run: %s: LD_PRELOAD cannot hold a path with ' ' or ':'\n",
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
	long n;

	if (tool_parse_long("xsched-run", "--threads", s, 1, 65536, &n))
		return -1;
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

/*
 * --mpi: preload libxsched-mpi built for the MPI @prog links, and say what
 * was chosen under --verbose. *@gomp tells whether @prog links libgomp
 * (then the drop-in is preloaded too). Returns 0, or -1 after a message.
 */
static int set_mpi(const char *prog, bool verbose, bool *gomp)
{
	char path[PATH_MAX], what[512], lib[PATH_MAX];
	const char *name;

	*gomp = false;
	if (find_program(prog, path, sizeof(path))) {
		fprintf(stderr, "xsched-run: --mpi: %s: not found\n", prog);
		return -1;
	}
	switch (needed_mpi_runtime(path, what, sizeof(what))) {
	case NEEDED_MPI_OPENMPI: name = "libxsched-mpi-openmpi.so"; break;
	case NEEDED_MPI_MPICH: name = "libxsched-mpi-mpich.so"; break;
	case NEEDED_MPI_NONE:
		fprintf(stderr, "xsched-run: --mpi: %s links no MPI library (neither Open MPI's "
				"libmpi.so.40 nor MPICH's libmpich.so.12)\n", prog);
		return -1;
	case NEEDED_MPI_STATIC:
		fprintf(stderr, "xsched-run: --mpi: %s is statically linked: LD_PRELOAD cannot "
				"interpose its MPI calls\n", prog);
		return -1;
	default:
		fprintf(stderr, "xsched-run: --mpi: cannot tell which MPI %s links (%s)\n", prog,
			what);
		return -1;
	}
	if (find_lib(name, lib, sizeof(lib))) {
		fprintf(stderr, "xsched-run: --mpi: %s links %s, but %s is not next to xsched-run "
				"or in " XS_RUN_GOMP_DIR " from it (make mpi builds it)\n", prog,
			what, name);
		return -1;
	}
	if (verbose)
		fprintf(stderr, "xsched-run: --mpi: %s links %s: preloading %s\n", prog, what, lib);
	*gomp = needed_omp_runtime(path, what, sizeof(what)) == NEEDED_GOMP;
	return set_preload(lib);
}

int main(int argc, char **argv)
{
	enum { OPT_DLB = 256, OPT_PUSH, OPT_BIND, OPT_STATS, OPT_PROFILE, OPT_LIB, OPT_MPI,
	       OPT_LEND, OPT_SUMMARY, OPT_PLACE };
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 'n' },
		{ "dlb", required_argument, NULL, OPT_DLB },
		{ "push", required_argument, NULL, OPT_PUSH },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "lib", required_argument, NULL, OPT_LIB },
		{ "mpi", no_argument, NULL, OPT_MPI },
		{ "lend", no_argument, NULL, OPT_LEND },
		{ "summary", required_argument, NULL, OPT_SUMMARY },
		{ "place", no_argument, NULL, OPT_PLACE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const shown[] = { "LD_PRELOAD", "OMP_NUM_THREADS", "XSCHED_DLB",
					     "XSCHED_PUSH", "XSCHED_BIND", "XSCHED_SHOW_STATS",
					     "XSCHED_PROFILE", "XSCHED_MPI_LEND", "XSCHED_MPI_SUMMARY" };
	char libpath[PATH_MAX];
	const char *lib = NULL;
	bool verbose = false, stats = false, mpi = false, lend = false, gomp = true, place = false;
	const char *summary = NULL;
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
		case OPT_MPI: mpi = true; break;
		case OPT_LEND: lend = true; break;
		case OPT_PLACE: place = true; break;
		case OPT_SUMMARY:
			summary = optarg;
			if (!*optarg) {
				fprintf(stderr, "xsched-run: --summary needs a file name\n");
				bad = -1;
			}
			break;
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
	if ((lend || summary || place) && !mpi) {
		fprintf(stderr, "xsched-run: --%s is for MPI programs: add --mpi\n",
			lend ? "lend" : summary ? "summary" : "place");
		return 2;
	}
	if (place && lend) {
		fprintf(stderr, "xsched-run: --place binds a rank to its CPUs, and --lend needs "
				"ranks free to grow into lent ones: choose one\n");
		return 2;
	}
	if (mpi) {
		if ((lend && setenv("XSCHED_MPI_LEND", "1", 1)) ||
		    (summary && setenv("XSCHED_MPI_SUMMARY", summary, 1)) ||
		    set_mpi(argv[optind], verbose, &gomp) || place_rank(place, verbose))
			return 2;
		if (verbose)
			place_show_devices();
	}
	if (gomp && !lib) {
		if (find_lib("libxsched-gomp.so.1", libpath, sizeof(libpath))) {
			fprintf(stderr, "xsched-run: libxsched-gomp.so.1 not found next to xsched-run "
					"or in " XS_RUN_GOMP_DIR " from it (pass --lib PATH)\n");
			return 2;
		}
		lib = libpath;
	}
	if (gomp && set_preload(lib))
		return 2;
	if (verbose)
		for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
			if (getenv(shown[i]))
				fprintf(stderr, "xsched-run: %s=%s\n", shown[i], getenv(shown[i]));
	if (gomp)
		check_program(argv[optind], stats || (getenv("XSCHED_SHOW_STATS") &&
						       strcmp(getenv("XSCHED_SHOW_STATS"), "0")));
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "xsched-run: %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
