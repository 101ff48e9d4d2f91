/* SPDX-License-Identifier: MIT */
/*
 * png.h - write an 8-bit RGB image as a PNG file, with no library.
 *
 * The pixels are filtered with PNG's "Up" filter (a row equal to the one
 * above becomes zeros) and compressed into one fixed-Huffman deflate block
 * whose only matches are runs at distance 1 and 3 (a repeated byte, a
 * repeated pixel): plots are flat colours, so that is most of what deflate
 * would find. The CRC-32 and Adler-32 are computed here too.
 */
#ifndef XSCHED_TRACE_PNG_H
#define XSCHED_TRACE_PNG_H

#include <stdint.h>

/* Write @w x @h pixels (@rgb: 3 bytes each, row-major, top row first) to
 * @path. Returns 0 or -errno. */
int png_write(const char *path, const uint8_t *rgb, uint32_t w, uint32_t h);

uint32_t png_crc32(uint32_t crc, const uint8_t *p, size_t n);

#endif /* XSCHED_TRACE_PNG_H */
