// SPDX-License-Identifier: MIT
/*
 * xsched-trace plot: on the profile of fib run by 4 workers, the PNG is
 * well formed (signature, chunk CRCs, an IHDR of the requested size; its
 * IDAT inflates, with the system's zlib, to exactly the filtered rows),
 * every worker's state bar is drawn in the state colours with a length
 * proportional to its span (the longest across the whole plot width), and
 * the count bars are proportional to the tasks created and executed. Bad
 * sizes are refused with the accepted range.
 */
#include <dlfcn.h>
#include <stdint.h>

#include "xsched-trace-test.h"
#include "xs_test.h"

#define NW 4
#define BACKGROUND 0xffffffu
#define GRID 0xeeeeeeu
#define CREATED 0x1f77b4u
#define EXECUTED 0x2ca02cu

/* THREAD, TASK, TASK_CREATE, TASKWAIT, BARRIER, STALL, OUTSIDE (--help). */
static const uint32_t state_colour[] = { 0x7f7f7f, 0x2ca02c, 0x1f77b4, 0xff7f0e,
					 0x9467bd, 0xd62728, 0xd9d9d9 };

static int is_state_colour(uint32_t c)
{
	for (size_t i = 0; i < sizeof(state_colour) / sizeof(state_colour[0]); i++)
		if (c == state_colour[i])
			return 1;
	return 0;
}

/* Bitwise CRC-32 (not the tool's table): PNG chunk check values. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

struct image {
	uint32_t w, h;
	uint8_t *rgb;
};

static uint32_t px(const struct image *im, uint32_t x, uint32_t y)
{
	const uint8_t *p = im->rgb + ((size_t)y * im->w + x) * 3;

	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

typedef int (*uncompress_fn)(unsigned char *, unsigned long *, const unsigned char *,
			     unsigned long);

/* Decode @path (8-bit RGB, no interlace) into @im; 0, or a message in @why. */
static int png_read(const char *path, struct image *im, uncompress_fn inflate_all, char *why,
		    size_t n)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t len, pos = 8, zlen = 0, stride, rawlen;
	uint8_t *f = (uint8_t *)xt_slurp(path, &len), *z = NULL, *raw = NULL;
	int ret = -1, seen_ihdr = 0, seen_iend = 0;
	unsigned long got;

	if (!f || len < 8 || memcmp(f, sig, 8)) {
		snprintf(why, n, "no PNG signature");
		goto out;
	}
	while (pos + 12 <= len && !seen_iend) {
		uint32_t clen = be32(f + pos);
		const uint8_t *type = f + pos + 4, *data = f + pos + 8;

		if (clen > len - pos - 12) {
			snprintf(why, n, "chunk at %zu runs past the end", pos);
			goto out;
		}
		if (crc32_bitwise(type, clen + 4) != be32(data + clen)) {
			snprintf(why, n, "bad CRC in chunk %.4s at %zu", (const char *)type, pos);
			goto out;
		}
		if (!memcmp(type, "IHDR", 4)) {
			if (clen != 13 || data[8] != 8 || data[9] != 2 || data[12] != 0) {
				snprintf(why, n, "IHDR is not 8-bit RGB without interlace");
				goto out;
			}
			im->w = be32(data);
			im->h = be32(data + 4);
			seen_ihdr = 1;
		} else if (!memcmp(type, "IDAT", 4)) {
			uint8_t *nz = realloc(z, zlen + clen + 1);

			if (!nz)
				goto out;
			z = nz;
			memcpy(z + zlen, data, clen);
			zlen += clen;
		} else if (!memcmp(type, "IEND", 4)) {
			seen_iend = 1;
		}
		pos += 12 + clen;
	}
	if (!seen_ihdr || !seen_iend || !z || pos != len) {
		snprintf(why, n, "IHDR, IDAT or IEND missing, or data after IEND");
		goto out;
	}
	stride = (size_t)im->w * 3;
	rawlen = (stride + 1) * im->h;
	raw = malloc(rawlen + 1);
	im->rgb = malloc(stride * im->h);
	if (!raw || !im->rgb)
		goto out;
	got = rawlen + 1;
	if (inflate_all(raw, &got, z, zlen) != 0 || got != rawlen) {
		snprintf(why, n, "IDAT does not inflate to %zu bytes (got %lu)", rawlen, got);
		goto out;
	}
	for (uint32_t y = 0; y < im->h; y++) {
		const uint8_t *in = raw + y * (stride + 1) + 1;
		uint8_t *row = im->rgb + y * stride, *up = y ? row - stride : NULL;
		int ftype = raw[y * (stride + 1)];

		for (size_t x = 0; x < stride; x++) {
			int a = x >= 3 ? row[x - 3] : 0, b = up ? up[x] : 0;
			int c = x >= 3 && up ? up[x - 3] : 0, v;

			switch (ftype) {
			case 0: v = 0; break;
			case 1: v = a; break;
			case 2: v = b; break;
			case 3: v = (a + b) / 2; break;
			case 4: v = paeth(a, b, c); break;
			default:
				snprintf(why, n, "row %u has filter type %d", y, ftype);
				goto out;
			}
			row[x] = (uint8_t)(in[x] + v);
		}
	}
	ret = 0;
out:
	free(f);
	free(z);
	free(raw);
	return ret;
}

struct box {
	int x0, x1, y0, y1;
};

TEST(plot_four_workers)
{
	char trace[64], png[64], out[64], err[64], why[128] = "";
	struct box bar[NW], cnt[NW];
	long long span[NW], created[NW], executed[NW], max_span = 0, max_count = 0;
	struct image im = { 0 };
	struct xs_stats st;
	uncompress_fn inflate_all;
	void *libz, *sym;
	char *text, *p;

	libz = dlopen("libz.so.1", RTLD_NOW);
	if (!libz)
		SKIP(return, "libz.so.1 (zlib1g) is not installed: nothing to inflate the IDAT with");
	sym = dlsym(libz, "uncompress");
	ASSERT_NE(NULL, sym);
	inflate_all = (uncompress_fn)(uintptr_t)sym;

	ASSERT_EQ(0, xt_tmp(trace, sizeof(trace), ".json"));
	ASSERT_EQ(0, xt_tmp(png, sizeof(png), ".png"));
	ASSERT_EQ(0, xt_tmp(out, sizeof(out), ".out"));
	ASSERT_EQ(0, xt_tmp(err, sizeof(err), ".err"));
	ASSERT_EQ(610, xt_make_trace(trace, NW, 15, &st));

	/* What the bars should show, from the summary. */
	ASSERT_EQ(0, xt_run(out, err, "summary --json %s", trace));
	text = xt_slurp(out, NULL);
	ASSERT_NE(NULL, text);
	for (int t = 0; t < NW; t++) {
		char key[24];

		snprintf(key, sizeof(key), "{\"tid\":%d,", t);
		p = strstr(text, key);
		ASSERT_NE(NULL, p) TH_LOG("no worker %d in %s", t, text);
		span[t] = xt_field(p, "span_ns", -1);
		created[t] = xt_field(p, "created", -1);
		executed[t] = xt_field(p, "executed", -1);
		ASSERT_LT(0, span[t]);
		max_span = span[t] > max_span ? span[t] : max_span;
		max_count = created[t] > max_count ? created[t] : max_count;
		max_count = executed[t] > max_count ? executed[t] : max_count;
	}
	free(text);

	ASSERT_EQ(0, xt_run(out, err, "plot %s -o %s --width 640 --height=420 --layout", trace, png));
	text = xt_slurp(out, NULL);
	ASSERT_NE(NULL, text);
	for (int t = 0; t < NW; t++) {
		char key[48];

		snprintf(key, sizeof(key), "thread %d state-bar ", t);
		p = strstr(text, key);
		ASSERT_NE(NULL, p) TH_LOG("%s", text);
		ASSERT_EQ(4, sscanf(p + strlen(key), "%d %d %d %d", &bar[t].x0, &bar[t].x1,
				    &bar[t].y0, &bar[t].y1));
		snprintf(key, sizeof(key), "thread %d count-bars ", t);
		p = strstr(text, key);
		ASSERT_NE(NULL, p) TH_LOG("%s", text);
		ASSERT_EQ(4, sscanf(p + strlen(key), "%d %d %d %d", &cnt[t].x0, &cnt[t].x1,
				    &cnt[t].y0, &cnt[t].y1));
	}
	free(text);

	ASSERT_EQ(0, png_read(png, &im, inflate_all, why, sizeof(why))) TH_LOG("%s: %s", png, why);
	EXPECT_EQ(640, im.w);
	EXPECT_EQ(420, im.h);
	for (int t = 0; t < NW; t++) {
		struct box b = bar[t];
		int pw = b.x1 - b.x0 + 1, coloured = 0, stray = 0;
		int want = (int)xt_round((double)span[t] / (double)max_span * pw);
		int mid = (b.y0 + b.y1) / 2;

		ASSERT_TRUE(b.x0 > 0 && b.x1 < 640 && b.y0 >= 0 && b.y1 < 420 && b.y0 <= b.y1);
		if (t)
			ASSERT_LT(bar[t - 1].y1, b.y0); /* one row per worker */
		for (int y = b.y0; y <= b.y1; y++) {
			for (int x = b.x0; x <= b.x1; x++) {
				uint32_t c = px(&im, (uint32_t)x, (uint32_t)y);

				coloured += is_state_colour(c);
				stray += !is_state_colour(c) && c != BACKGROUND && c != GRID;
			}
		}
		EXPECT_LT(0, coloured) TH_LOG("worker %d: no bar pixels", t);
		EXPECT_EQ(0, stray) TH_LOG("worker %d: %d pixels of no state colour", t, stray);
		/* The bar's length is its span on the common scale. */
		coloured = 0;
		for (int x = b.x0; x <= b.x1; x++)
			coloured += is_state_colour(px(&im, (uint32_t)x, (uint32_t)mid));
		EXPECT_LE(abs(coloured - want), 1)
			TH_LOG("worker %d: bar of %d px, span %lld of %lld ns on %d px", t, coloured,
			       span[t], max_span, pw);
		if (span[t] == max_span)
			EXPECT_GE(coloured, pw - 1);

		/* Count bars: created (upper half), executed (lower half). */
		b = cnt[t];
		int nc = 0, ne = 0, upper = b.y0 + (b.y1 - b.y0 + 1) / 4;
		int lower = b.y1 - (b.y1 - b.y0 + 1) / 4;

		for (int x = b.x0; x <= b.x1; x++) {
			nc += px(&im, (uint32_t)x, (uint32_t)upper) == CREATED;
			ne += px(&im, (uint32_t)x, (uint32_t)lower) == EXECUTED;
		}
		EXPECT_LE(abs(nc - (int)xt_round((double)created[t] / (double)max_count * pw)), 1)
			TH_LOG("worker %d: created %lld of %lld, %d px", t, created[t], max_count, nc);
		EXPECT_LE(abs(ne - (int)xt_round((double)executed[t] / (double)max_count * pw)), 1)
			TH_LOG("worker %d: executed %lld of %lld, %d px", t, executed[t], max_count,
			       ne);
	}
	free(im.rgb);

	/* Another size, and the default one. */
	ASSERT_EQ(0, xt_run(out, err, "plot --width=300 --height 200 -o %s %s", png, trace));
	ASSERT_EQ(0, png_read(png, &im, inflate_all, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(300, im.w);
	EXPECT_EQ(200, im.h);
	free(im.rgb);
	ASSERT_EQ(0, xt_run(out, err, "plot %s -o %s", trace, png));
	ASSERT_EQ(0, png_read(png, &im, inflate_all, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(1000, im.w);
	EXPECT_EQ(600, im.h);
	free(im.rgb);

	/* Sizes out of range name the option and the range. */
	EXPECT_EQ(2, xt_run(out, err, "plot %s -o %s --width 10", trace, png));
	text = xt_slurp(err, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "--width '10': expected an integer in [240, 8192]"))
		TH_LOG("%s", text);
	free(text);
	EXPECT_EQ(2, xt_run(out, err, "plot %s -o %s --height 12x", trace, png));
	text = xt_slurp(err, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "--height '12x'")) TH_LOG("%s", text);
	free(text);
	/* An unwritable output is an error that names it. */
	EXPECT_EQ(1, xt_run(out, err, "plot %s -o /nonexistent-dir/x.png", trace));
	text = xt_slurp(err, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "/nonexistent-dir/x.png: cannot write")) TH_LOG("%s", text);
	free(text);

	dlclose(libz);
	unlink(trace);
	unlink(png);
	unlink(out);
	unlink(err);
}

TEST_HARNESS_MAIN
