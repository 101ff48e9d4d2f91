// SPDX-License-Identifier: MIT
/*
 * options.c - the XSCHED_MPI_* options of libxsched-mpi: one table (name,
 * default, min, max, one-line doc) drives parsing, the messages for bad
 * values and XSCHED_MPI_VERBOSE=1's listing; docs/mpi.md's table is checked
 * against it by tests/mpi/mpi-options-match-docs.sh.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

struct xs_mpi_option {
	const char *name;
	int64_t def, min, max;
	const char *doc;
};

static const struct xs_mpi_option table[XS_MPI_NOPTS] = {
	[XS_MPI_OPT_LEND] = { "XSCHED_MPI_LEND", 0, 0, 1,
			      "1: lend the rank's CPUs but XSCHED_MPI_KEEP to xschedd while it waits in MPI" },
	[XS_MPI_OPT_SPIN_US] = { "XSCHED_MPI_SPIN_US", 100, 0, 1000000,
				 "microseconds a blocking call polls before it lends" },
	[XS_MPI_OPT_TEST_SPIN] = { "XSCHED_MPI_TEST_SPIN", 1000, 1, 1000000000,
				   "consecutive MPI_Test calls without completion before lending" },
	[XS_MPI_OPT_KEEP] = { "XSCHED_MPI_KEEP", 1, 1, 4096,
			      "CPUs a lending rank keeps for itself" },
	[XS_MPI_OPT_RECLAIM_WAIT_US] = { "XSCHED_MPI_RECLAIM_WAIT_US", 1000, 0, 200000,
					 "microseconds a reclaim waits for xschedd to say the CPUs are back" },
	[XS_MPI_OPT_PAGE] = { "XSCHED_MPI_PAGE", 1, 0, 1,
			      "1: publish the rank's live numbers for xsched-top and sample its borrowed CPUs" },
	[XS_MPI_OPT_VERBOSE] = { "XSCHED_MPI_VERBOSE", 0, 0, 1,
				 "1: rank 0 prints the effective options at MPI_Init" },
};

/* Written once in MPI_Init, before any other thread of the process can
 * make an MPI call (MPI_Init precedes every call), read-only after. */
static int64_t value[XS_MPI_NOPTS];
static const char *summary;

static int64_t parse(const struct xs_mpi_option *o, int rank)
{
	const char *s = getenv(o->name);
	char *end;
	long long v;

	if (!s || !*s)
		return o->def;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < o->min || v > o->max) {
		if (rank == 0)
			fprintf(stderr,
				"xsched-mpi: %s='%s': expected an integer in %" PRId64 "..%" PRId64
				"; using %" PRId64 "\n", o->name, s, o->min, o->max, o->def);
		return o->def;
	}
	return v;
}

void xs_mpi_options_load(int rank)
{
	for (int i = 0; i < XS_MPI_NOPTS; i++)
		value[i] = parse(&table[i], rank);
	summary = getenv("XSCHED_MPI_SUMMARY");
	if (summary && !*summary)
		summary = NULL;
	if (value[XS_MPI_OPT_VERBOSE] && rank == 0) {
		for (int i = 0; i < XS_MPI_NOPTS; i++)
			fprintf(stderr, "xsched-mpi: %s=%" PRId64 "  (%" PRId64 "..%" PRId64 ": %s)\n",
				table[i].name, value[i], table[i].min, table[i].max, table[i].doc);
		fprintf(stderr, "xsched-mpi: XSCHED_MPI_SUMMARY=%s\n", summary ? summary : "(none)");
	}
}

int64_t xs_mpi_opt(enum xs_mpi_opt o)
{
	return value[o];
}

const char *xs_mpi_summary_path(void)
{
	return summary;
}
