/* SPDX-License-Identifier: MIT */
/*
 * canvas.h - an RGB raster with clipped rectangles and a 5x7 bitmap font
 * (digits, A-Z, a little punctuation; lower case is drawn as upper case,
 * anything else as '?'), scaled by an integer factor.
 */
#ifndef XSCHED_TRACE_CANVAS_H
#define XSCHED_TRACE_CANVAS_H

#include <stdint.h>

struct canvas {
	uint8_t *rgb; /* w * h * 3 bytes, row-major */
	int w, h;
};

#define RGB(hex) ((uint32_t)(hex))

/* A character cell at @scale: 6 x 9 pixels at scale 1 (5x7 glyph, gaps). */
#define FONT_CELL_W(scale) (6 * (scale))
#define FONT_CELL_H(scale) (9 * (scale))

int canvas_init(struct canvas *c, int w, int h, uint32_t background);
void canvas_free(struct canvas *c);
void canvas_fill(struct canvas *c, int x, int y, int w, int h, uint32_t color);
/* Draw @s with its top-left corner at (x, y); returns its width. */
int canvas_text(struct canvas *c, int x, int y, int scale, const char *s, uint32_t color);
int canvas_text_width(int scale, const char *s);

#endif /* XSCHED_TRACE_CANVAS_H */
