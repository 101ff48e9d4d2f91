// SPDX-License-Identifier: MIT
/*
 * xsched-spmv-bench - SpMV over a corpus, every xsched schedule and the
 * heuristic's pick against cuSPARSE (cusparseSpMV), side by side in one run:
 * per-matrix milliseconds, speedup over cuSPARSE, and the geometric mean.
 *
 *   xsched-spmv-bench [-r reps] [-s schedule] [file.mtx ...]
 *
 * Without files the corpus is the Debian r-cran-matrix matrices (when
 * installed) plus RMAT graphs at three skews and three sizes. Every result
 * is checked against the CPU reference before it is reported. Without a
 * GPU it prints "no CUDA device: <reason>" and a KTAP-style skip line and
 * exits 0.
 */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xsched/cuda.h"
#include "../common/number.h"
#include "../version.h"

#define RMATRIX_DIR "/usr/lib/R/library/Matrix/external/"

struct entry {
	char name[128];
	struct xs_csr a;
};

static int add_rmat(struct entry *e, int scale, double a)
{
	double r = (1 - a) / 3;

	snprintf(e->name, sizeof(e->name), "rmat-s%d-a%.2f", scale, a);
	return xs_rmat_generate(&e->a, scale, 16, a, r, r, 2024 + scale);
}

/* First row where y differs from ref by more than float rounding of the
 * row's magnitude (x = 1: the sum of |values|), or -1. */
static int verify(const struct xs_csr *a, const float *y, const float *ref)
{
	int32_t r, k;

	for (r = 0; r < a->rows; r++) {
		double mag = 0;

		for (k = a->offsets[r]; k < a->offsets[r + 1]; k++)
			mag += fabs(a->values[k]);
		/* gamma_n bound of float summation in any order, doubled */
		double len = a->offsets[r + 1] - a->offsets[r];

		if (fabs((double)y[r] - ref[r]) >
		    (2 * len * FLT_EPSILON + 1e-6) * mag + 1e-6)
			return r;
	}
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xsched-spmv-bench [-r REPS] [-s SCHEDULE] [FILE.mtx...]\n"
		   "SpMV of the module's schedules against cuSPARSE (TAP output).\n\n"
		   "  -r, --reps REPS          repetitions, 1..100000 (default 50)\n"
		   "  -s, --schedule SCHEDULE  auto thread-mapped warp-mapped block-mapped\n"
		   "                           group-mapped merge-path all (default all)\n"
		   "  -h, --help               this text\n"
		   "  -V, --version            the xsched version\n");
}

int main(int argc, char **argv)
{
	static const char *const debian[] = { "jgl009.mtx", "lund_a.mtx",
					      "pores_1.mtx" };
	struct entry *corpus = NULL;
	int ncorpus = 0, reps = 50, only = -1, opt, i, s, ret, bad = 0;
	double log_sum[XS_CUDA_SCHED_NR] = { 0 };
	int counted = 0;
	struct xs_cuda_ctx *ctx;
	char why[256], err[512], dev[128];
	int sms = 0;

	static const struct option longopts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "schedule", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "r:s:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (tool_parse_int("xsched-spmv-bench", "-r", optarg, 1, 100000, &reps))
				return 2;
			break;
		case 's':
			if (!strcmp(optarg, "all"))
				break;
			only = xs_cuda_schedule_parse(optarg);
			if (only < 0) {
				fprintf(stderr, "xsched-spmv-bench: -s %s: "
					"unknown schedule\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			tool_version("xsched-spmv-bench");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	printf("TAP version 13\n1..1\n");
	if (xs_cuda_probe(why, sizeof(why)) < 0) {
		printf("# no CUDA device: %s\n", why);
		printf("ok 1 xsched-spmv-bench # SKIP no CUDA device: %s\n", why);
		return 0;
	}
	ctx = xs_cuda_ctx_create(0);
	if (!ctx) {
		printf("# no CUDA device: %s\n", xs_cuda_ctx_error(NULL));
		printf("ok 1 xsched-spmv-bench # SKIP no CUDA device: %s\n",
		       xs_cuda_ctx_error(NULL));
		return 0;
	}
	xs_cuda_ctx_info(ctx, dev, sizeof(dev), &sms);
	printf("# device: %s, %d SMs; %d timed runs per kernel\n", dev, sms,
	       reps);

	/* The corpus. */
	corpus = calloc((size_t)argc + 16, sizeof(*corpus));
	if (!corpus)
		return 1;
	if (optind < argc) {
		for (i = optind; i < argc; i++) {
			struct entry *e = &corpus[ncorpus];

			ret = xs_mtx_read(argv[i], &e->a, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "xsched-spmv-bench: %s\n", err);
				return 1;
			}
			snprintf(e->name, sizeof(e->name), "%s", argv[i]);
			ncorpus++;
		}
	} else {
		static const int scales[] = { 12, 16, 20 };
		static const double skews[] = { 0.25, 0.57, 0.70 };
		size_t a, b;

		for (a = 0; a < 3; a++) {
			char p[256];
			struct entry *e = &corpus[ncorpus];

			snprintf(p, sizeof(p), RMATRIX_DIR "%s", debian[a]);
			if (access(p, R_OK)) {
				printf("# %s: not installed (r-cran-matrix), "
				       "skipped\n", p);
				continue;
			}
			if (xs_mtx_read(p, &e->a, err, sizeof(err))) {
				fprintf(stderr, "xsched-spmv-bench: %s\n", err);
				return 1;
			}
			snprintf(e->name, sizeof(e->name), "%s", debian[a]);
			ncorpus++;
		}
		for (a = 0; a < 3; a++)
			for (b = 0; b < 3; b++)
				if (!add_rmat(&corpus[ncorpus], scales[a], skews[b]))
					ncorpus++;
	}

	printf("# %-24s %9s %10s %6s", "matrix", "rows", "nnz", "cv");
	printf(" %10s", "cusparse");
	for (s = 0; s < XS_CUDA_SCHED_NR; s++)
		if (only < 0 || only == s)
			printf(" %13s", xs_cuda_schedule_name(s));
	printf("   (ms; x = speedup over cuSPARSE)\n");

	for (i = 0; i < ncorpus; i++) {
		struct entry *e = &corpus[i];
		struct xs_cuda_matrix *m;
		float *y, *ref, *x;
		double mean, cv, base;
		int32_t k;

		xs_csr_row_stats(&e->a, &mean, &cv);
		y = malloc(sizeof(float) * ((size_t)e->a.rows + 1));
		ref = malloc(sizeof(float) * ((size_t)e->a.rows + 1));
		x = malloc(sizeof(float) * ((size_t)e->a.cols + 1));
		m = xs_cuda_matrix_create(ctx, &e->a);
		if (!y || !ref || !x || !m) {
			fprintf(stderr, "xsched-spmv-bench: %s: %s\n", e->name,
				m ? strerror(ENOMEM) : xs_cuda_ctx_error(ctx));
			return 1;
		}
		for (k = 0; k < e->a.cols; k++)
			x[k] = 1;
		xs_ref_spmv(&e->a, x, ref);
		ret = xs_cuda_cusparse_spmv_time(m, reps, &base, y);
		if (ret) {
			fprintf(stderr, "xsched-spmv-bench: %s: cuSPARSE: %s\n",
				e->name, xs_cuda_ctx_error(ctx));
			return 1;
		}
		if (verify(&e->a, y, ref) >= 0) {
			printf("# %s: cuSPARSE result differs from the "
			       "reference\n", e->name);
			bad = 1;
		}
		printf("# %-24s %9d %10d %6.2f %10.4f", e->name, e->a.rows,
		       e->a.nnz, cv, base);
		for (s = 0; s < XS_CUDA_SCHED_NR; s++) {
			struct xs_cuda_launch l = { (enum xs_cuda_schedule)s, 0,
						    0, { 0 } };
			double ms;
			int row;

			if (only >= 0 && only != s)
				continue;
			ret = xs_cuda_spmv_time(m, &l, reps, &ms, y);
			if (ret) {
				fprintf(stderr, "\nxsched-spmv-bench: %s %s: "
					"%s\n", e->name,
					xs_cuda_schedule_name(s),
					xs_cuda_ctx_error(ctx));
				return 1;
			}
			row = verify(&e->a, y, ref);
			if (row >= 0) {
				printf(" %13s", "WRONG");
				bad = 1;
				continue;
			}
			printf(" %7.4f %4.2fx", ms, base / ms);
			log_sum[s] += log(base / ms);
		}
		printf("\n");
		counted++;
		xs_cuda_matrix_destroy(m);
		free(x);
		free(y);
		free(ref);
		xs_csr_free(&e->a);
	}
	printf("# geomean speedup over cuSPARSE (%d matrices):", counted);
	for (s = 0; s < XS_CUDA_SCHED_NR; s++)
		if (only < 0 || only == s)
			printf(" %s %.3fx", xs_cuda_schedule_name(s),
			       counted ? exp(log_sum[s] / counted) : 0.0);
	printf("\n");
	printf("%s 1 xsched-spmv-bench\n", bad ? "not ok" : "ok");
	xs_cuda_ctx_destroy(ctx);
	free(corpus);
	return bad;
}
