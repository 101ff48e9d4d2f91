// SPDX-License-Identifier: MIT
/*
 * xsched-sync-bench - the synchronization server against global-memory
 * locks, side by side in one run: concurrent hash-table upserts and bank
 * transfers, from spread-out data to heavy contention. Prints milliseconds
 * of both and the speedup of the server; every result is checked against
 * the CPU reference first. Without a GPU it prints "no CUDA device:
 * <reason>" and a KTAP skip line and exits 0.
 *
 *   xsched-sync-bench [-n ops] [-s server-blocks] [-c client-blocks]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xsched/cuda.h"
#include "../common/number.h"
#include "../version.h"

#define PROG "xsched-sync-bench"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	static const int32_t spread[] = { 16, 1024, 65536, 1 << 20 };
	long n = 1 << 22, ns = 0, nc = 0;
	struct xs_cuda_ctx *ctx;
	char why[256] = "", dev[128];
	int opt, bad = 0, sms = 0;
	size_t i;

	static const struct option longopts[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "server-blocks", required_argument, NULL, 's' },
		{ "client-blocks", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "n:s:c:hV", longopts, NULL)) != -1) {
		if ((opt == 'n' && tool_parse_long(PROG, "-n", optarg, 1, 1L << 28, &n)) ||
		    (opt == 's' && tool_parse_long(PROG, "-s", optarg, 0, 64, &ns)) ||
		    (opt == 'c' && tool_parse_long(PROG, "-c", optarg, 0, 1 << 20, &nc)))
			return 2;
		if (opt == 'V') {
			tool_version("xsched-sync-bench");
			return 0;
		}
		if (opt == 'h' || opt == '?') {
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: xsched-sync-bench [-n OPS] [-s SERVER-BLOCKS] "
				"[-c CLIENT-BLOCKS]\n"
				"  -n, --ops N            operations (default 4194304)\n"
				"  -s, --server-blocks N  server blocks, 0..64 (default 0)\n"
				"  -c, --client-blocks N  client blocks, 0..1048576 (default 0)\n"
				"  -h, --help, -V, --version\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	printf("TAP version 13\n1..1\n");
	if (xs_cuda_probe(why, sizeof(why)) < 0 || !(ctx = xs_cuda_ctx_create(0))) {
		const char *r = why[0] ? why : xs_cuda_ctx_error(NULL);

		printf("# no CUDA device: %s\n", r);
		printf("ok 1 xsched-sync-bench # SKIP no CUDA device: %s\n", r);
		return 0;
	}
	xs_cuda_ctx_info(ctx, dev, sizeof(dev), &sms);
	printf("# device: %s, %d SMs; %ld operations per run\n", dev, sms, n);
	printf("# %-6s %10s %12s %12s %8s\n", "app", "data ids", "server ms",
	       "glocks ms", "speedup");

	uint32_t *keys = malloc(sizeof(uint32_t) * n);
	int32_t *a = malloc(sizeof(int32_t) * n), *b = malloc(sizeof(int32_t) * n);
	int32_t *amt = malloc(sizeof(int32_t) * n);
	int32_t cap = 1 << 21;
	uint32_t *rk = malloc(sizeof(uint32_t) * cap), *gk = malloc(sizeof(uint32_t) * cap);
	int64_t *rv = malloc(sizeof(int64_t) * cap), *gv = malloc(sizeof(int64_t) * cap);

	if (!keys || !a || !b || !amt || !rk || !gk || !rv || !gv) {
		fprintf(stderr, "xsched-sync-bench: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (i = 0; i < sizeof(spread) / sizeof(spread[0]); i++) {
		int32_t d = spread[i], k, nref;
		double ms[XS_CUDA_SYNC_NR];
		int mode;

		/* Hash table: n upserts over d distinct keys. */
		for (k = 0; k < n; k++) {
			keys[k] = (uint32_t)(next() % d) * 2654435761u % 0xfffffff0u;
			a[k] = (int32_t)(next() % 100);
		}
		nref = xs_ref_hash_upsert(keys, a, (int32_t)n, rk, rv, cap);
		for (mode = 0; mode < XS_CUDA_SYNC_NR; mode++) {
			struct xs_cuda_sync_opts o = {
				.mode = mode, .server_blocks = (int32_t)ns,
				.client_blocks = (int32_t)nc,
			};
			int got = xs_cuda_hash_upsert(ctx, &o, keys, a, (int32_t)n,
						      cap, gk, gv);

			if (got != nref || memcmp(rk, gk, sizeof(*rk) * nref) ||
			    memcmp(rv, gv, sizeof(*rv) * nref)) {
				printf("# hash %d keys, mode %d: WRONG (%d: %s)\n",
				       d, mode, got, xs_cuda_ctx_error(ctx));
				bad = 1;
			}
			ms[mode] = o.ms;
		}
		printf("# %-6s %10d %12.3f %12.3f %7.2fx\n", "hash", d,
		       ms[XS_CUDA_SYNC_SERVER], ms[XS_CUDA_SYNC_GLOBAL_LOCK],
		       ms[XS_CUDA_SYNC_GLOBAL_LOCK] / ms[XS_CUDA_SYNC_SERVER]);

		/* Bank: n transfers among d accounts. */
		int64_t *ref = calloc((size_t)d, sizeof(int64_t));
		int64_t *got = calloc((size_t)d, sizeof(int64_t));

		if (!ref || !got)
			return 1;
		for (k = 0; k < n; k++) {
			uint64_t r = next();

			a[k] = (int32_t)(r % d);
			b[k] = (int32_t)((r >> 24) % d);
			amt[k] = (int32_t)((r >> 48) % 100);
		}
		xs_ref_bank_transfer(ref, a, b, amt, (int32_t)n);
		for (mode = 0; mode < XS_CUDA_SYNC_NR; mode++) {
			struct xs_cuda_sync_opts o = {
				.mode = mode, .server_blocks = (int32_t)ns,
				.client_blocks = (int32_t)nc,
			};
			int ret;

			memset(got, 0, sizeof(int64_t) * d);
			ret = xs_cuda_bank_transfer(ctx, &o, got, d, a, b, amt,
						    (int32_t)n);
			if (ret || memcmp(ref, got, sizeof(int64_t) * d)) {
				printf("# bank %d accounts, mode %d: WRONG (%d: "
				       "%s)\n", d, mode, ret,
				       xs_cuda_ctx_error(ctx));
				bad = 1;
			}
			ms[mode] = o.ms;
		}
		printf("# %-6s %10d %12.3f %12.3f %7.2fx\n", "bank", d,
		       ms[XS_CUDA_SYNC_SERVER], ms[XS_CUDA_SYNC_GLOBAL_LOCK],
		       ms[XS_CUDA_SYNC_GLOBAL_LOCK] / ms[XS_CUDA_SYNC_SERVER]);
		free(ref);
		free(got);
	}
	printf("%s 1 xsched-sync-bench\n", bad ? "not ok" : "ok");
	xs_cuda_ctx_destroy(ctx);
	free(keys);
	free(a);
	free(b);
	free(amt);
	free(rk);
	free(gk);
	free(rv);
	free(gv);
	return bad;
}
