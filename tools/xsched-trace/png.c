// SPDX-License-Identifier: MIT
/*
 * png.c - the PNG writer of png.h: zlib stream (RFC 1950) around one
 * fixed-Huffman deflate block (RFC 1951, 3.2.6), in PNG chunks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "png.h"

uint32_t png_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint32_t png_adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;

	while (n) {
		size_t chunk = n < 5552 ? n : 5552; /* no overflow before the modulo */

		n -= chunk;
		while (chunk--) {
			a += *p++;
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return b << 16 | a;
}

/* A growing output buffer and deflate's LSB-first bit writer. */
struct png_out {
	uint8_t *buf;
	size_t n, cap;
	uint32_t bits;
	int nbits;
	int oom;
};

static void png_byte(struct png_out *o, uint8_t b)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 4096;
		uint8_t *nb = o->oom ? NULL : realloc(o->buf, cap);

		if (!nb) {
			o->oom = 1;
			return;
		}
		o->buf = nb;
		o->cap = cap;
	}
	o->buf[o->n++] = b;
}

static void png_be32(struct png_out *o, uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		png_byte(o, (uint8_t)(v >> s));
}

/* @n bits of @v, least significant first (deflate's header and extra bits). */
static void png_bits(struct png_out *o, uint32_t v, int n)
{
	o->bits |= v << o->nbits;
	o->nbits += n;
	while (o->nbits >= 8) {
		png_byte(o, (uint8_t)o->bits);
		o->bits >>= 8;
		o->nbits -= 8;
	}
}

/* A Huffman code of @n bits: most significant bit first. */
static void png_code(struct png_out *o, uint32_t code, int n)
{
	uint32_t rev = 0;

	for (int i = 0; i < n; i++)
		rev |= ((code >> i) & 1) << (n - 1 - i);
	png_bits(o, rev, n);
}

/* Fixed literal/length code of symbol @s (0..287). */
static void png_sym(struct png_out *o, unsigned int s)
{
	if (s < 144)
		png_code(o, 0x30 + s, 8);
	else if (s < 256)
		png_code(o, 0x190 + s - 144, 9);
	else if (s < 280)
		png_code(o, s - 256, 7);
	else
		png_code(o, 0xc0 + s - 280, 8);
}

static const uint16_t len_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
				       15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
				       67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };

/* A match of @len (3..258) bytes at distance 1 or 3 (distance codes 0, 2). */
static void png_match(struct png_out *o, unsigned int len, unsigned int dist)
{
	int c = 28;

	while (len_base[c] > len)
		c--;
	png_sym(o, 257 + (unsigned int)c);
	png_bits(o, len - len_base[c], len_extra[c]);
	png_code(o, dist == 1 ? 0 : 2, 5);
}

static void png_deflate(struct png_out *o, const uint8_t *p, size_t n)
{
	size_t i = 0;

	png_bits(o, 1, 1); /* BFINAL */
	png_bits(o, 1, 2); /* BTYPE 01: fixed Huffman codes */
	while (i < n) {
		size_t best = 0, dist = 0;

		for (size_t d = 1; d <= 3; d += 2) {
			size_t l = 0;

			if (i < d)
				continue;
			while (l < 258 && i + l < n && p[i + l] == p[i + l - d])
				l++;
			if (l > best)
				best = l, dist = d;
		}
		if (best >= 3) {
			png_match(o, (unsigned int)best, (unsigned int)dist);
			i += best;
		} else {
			png_sym(o, p[i++]);
		}
	}
	png_sym(o, 256); /* end of block */
	if (o->nbits)
		png_bits(o, 0, 8 - o->nbits);
}

static void png_chunk(struct png_out *o, const char *type, const uint8_t *data, size_t n)
{
	size_t at;

	png_be32(o, (uint32_t)n);
	at = o->n;
	for (int i = 0; i < 4; i++)
		png_byte(o, (uint8_t)type[i]);
	for (size_t i = 0; i < n; i++)
		png_byte(o, data[i]);
	png_be32(o, o->oom ? 0 : png_crc32(0, o->buf + at, o->n - at));
}

int png_write(const char *path, const uint8_t *rgb, uint32_t w, uint32_t h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t stride = (size_t)w * 3, rawlen = (stride + 1) * h;
	struct png_out z = { 0 }, png = { 0 };
	uint8_t ihdr[13], *raw;
	int ret = -ENOMEM;
	FILE *f;

	raw = malloc(rawlen);
	if (!raw)
		return -ENOMEM;
	for (uint32_t y = 0; y < h; y++) {
		uint8_t *row = raw + y * (stride + 1);
		const uint8_t *cur = rgb + y * stride, *up = y ? cur - stride : NULL;

		row[0] = 2; /* Up */
		for (size_t x = 0; x < stride; x++)
			row[1 + x] = (uint8_t)(cur[x] - (up ? up[x] : 0));
	}
	png_byte(&z, 0x78); /* deflate, 32 KiB window */
	png_byte(&z, 0x01); /* fastest; (0x78 << 8 | 0x01) % 31 == 0 */
	png_deflate(&z, raw, rawlen);
	png_be32(&z, png_adler32(raw, rawlen));
	free(raw);

	for (int i = 0; i < 4; i++) {
		ihdr[i] = (uint8_t)(w >> (24 - 8 * i));
		ihdr[4 + i] = (uint8_t)(h >> (24 - 8 * i));
	}
	ihdr[8] = 8;  /* bit depth */
	ihdr[9] = 2;  /* truecolour */
	ihdr[10] = 0; /* deflate */
	ihdr[11] = 0; /* adaptive filtering */
	ihdr[12] = 0; /* no interlace */
	for (int i = 0; i < 8; i++)
		png_byte(&png, sig[i]);
	png_chunk(&png, "IHDR", ihdr, sizeof(ihdr));
	if (!z.oom)
		png_chunk(&png, "IDAT", z.buf, z.n);
	png_chunk(&png, "IEND", NULL, 0);
	if (z.oom || png.oom)
		goto out;

	f = fopen(path, "wb");
	if (!f) {
		ret = -errno;
		goto out;
	}
	ret = 0;
	if (fwrite(png.buf, 1, png.n, f) != png.n)
		ret = errno ? -errno : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret)
		unlink(path);
out:
	free(z.buf);
	free(png.buf);
	return ret;
}
