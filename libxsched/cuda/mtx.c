// SPDX-License-Identifier: MIT
/*
 * mtx.c - Matrix Market reader: "matrix coordinate" with field real,
 * integer or pattern, symmetry general or symmetric. Every rejection names
 * the file and the line and says what was expected.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "xsched/cuda.h"
#include "mtx.h"

/*
 * What a file can make the reader allocate is bounded by its size: the
 * entries are allocated for no more lines than the rest of the file can
 * hold (every line but the last ends in '\n' after at least "1 1"), and
 * the CSR offsets (4 bytes a row) may take no more than MTX_ROWS_PER_ENTRY
 * rows per declared nonzero beyond the first MTX_ROWS_FREE. Without these, the 35 bytes
 * "%%MatrixMarket ...\n2000000000 1 0\n" made it write 8 GB of offsets.
 */
#define MTX_MIN_ENTRY_BYTES 4
#define MTX_ROWS_FREE (1ll << 20)
#define MTX_ROWS_PER_ENTRY 64

enum mtx_field { MTX_REAL, MTX_INTEGER, MTX_PATTERN };

struct mtx_reader {
	const char *path;
	FILE *f;
	long long size;   /* of the file in bytes, -1: not known (a pipe) */
	char *line;
	size_t cap;
	long lineno;
	char *err;
	size_t errlen;
};

static int mtx_fail(struct mtx_reader *r, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errlen)
		return ret;
	n = snprintf(r->err, r->errlen, "%s:%ld: ", r->path, r->lineno);
	if (n < 0 || (size_t)n >= r->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return ret;
}

/* Next line that is not a comment or blank; 0, or 1 at end of file. */
static int mtx_next(struct mtx_reader *r, int allow_comment)
{
	for (;;) {
		ssize_t len = getline(&r->line, &r->cap, r->f);
		char *p;

		if (len < 0)
			return 1;
		r->lineno++;
		p = r->line;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			continue;
		if (allow_comment && *p == '%')
			continue;
		return 0;
	}
}

static int parse_i64(char **p, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(*p, &end, 10);
	if (end == *p || errno)
		return -1;
	*p = end;
	return 0;
}

static int parse_banner(struct mtx_reader *r, enum mtx_field *field,
			int *symmetric)
{
	char w[5][32];
	int n;

	if (getline(&r->line, &r->cap, r->f) < 0)
		return mtx_fail(r, -EINVAL, "empty file, expected a "
				"'%%%%MatrixMarket matrix coordinate ...' banner");
	r->lineno = 1;
	n = sscanf(r->line, "%31s %31s %31s %31s %31s", w[0], w[1], w[2], w[3],
		   w[4]);
	if (n < 1 || strcasecmp(w[0], "%%MatrixMarket"))
		return mtx_fail(r, -EINVAL, "not a Matrix Market file (the first "
				"line must start with %%%%MatrixMarket)");
	if (n != 5)
		return mtx_fail(r, -EINVAL, "banner has %d words, expected "
				"'%%%%MatrixMarket matrix coordinate <field> "
				"<symmetry>'", n);
	if (strcasecmp(w[1], "matrix"))
		return mtx_fail(r, -EINVAL, "object '%s' is not supported "
				"(only 'matrix')", w[1]);
	if (strcasecmp(w[2], "coordinate"))
		return mtx_fail(r, -EINVAL, "format '%s' is not supported "
				"(only 'coordinate', i.e. sparse)", w[2]);
	if (!strcasecmp(w[3], "real") || !strcasecmp(w[3], "double"))
		*field = MTX_REAL;
	else if (!strcasecmp(w[3], "integer"))
		*field = MTX_INTEGER;
	else if (!strcasecmp(w[3], "pattern"))
		*field = MTX_PATTERN;
	else
		return mtx_fail(r, -EINVAL, "field '%s' is not supported "
				"(real, integer or pattern)", w[3]);
	if (!strcasecmp(w[4], "general"))
		*symmetric = 0;
	else if (!strcasecmp(w[4], "symmetric"))
		*symmetric = 1;
	else
		return mtx_fail(r, -EINVAL, "symmetry '%s' is not supported "
				"(general or symmetric)", w[4]);
	return 0;
}

/*
 * Bytes of the file after the current position; LLONG_MAX when that is not
 * known (a pipe): then only the format's own limits apply.
 */
static long long mtx_room(struct mtx_reader *r)
{
	long pos = ftell(r->f);

	if (pos < 0 || r->size < 0)
		return LLONG_MAX;
	return r->size > pos ? r->size - pos : 0;
}

int xs_mtx_read(const char *path, struct xs_csr *out, char *err,
		size_t errlen)
{
	struct stat st;
	FILE *f;
	int ret;

	memset(out, 0, sizeof(*out));
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = xs_mtx_read_stream(f, path, fstat(fileno(f), &st) || !S_ISREG(st.st_mode) ?
				 -1 : (long long)st.st_size, out, err, errlen);
	fclose(f);
	return ret;
}

int xs_mtx_read_stream(FILE *f, const char *path, long long size,
		       struct xs_csr *out, char *err, size_t errlen)
{
	struct mtx_reader r = { .path = path, .f = f, .size = size, .err = err,
				.errlen = errlen };
	int32_t *ri = NULL, *ci = NULL;
	float *v = NULL;
	long long rows, cols, nnz, i, n = 0, cap, room;
	enum mtx_field field = MTX_REAL;
	int symmetric = 0, ret;
	char *p;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	ret = parse_banner(&r, &field, &symmetric);
	if (ret)
		goto out;
	if (mtx_next(&r, 1)) {
		ret = mtx_fail(&r, -EINVAL, "missing the size line "
			       "'<rows> <cols> <nonzeros>'");
		goto out;
	}
	p = r.line;
	if (parse_i64(&p, &rows) || parse_i64(&p, &cols) ||
	    parse_i64(&p, &nnz)) {
		ret = mtx_fail(&r, -EINVAL, "bad size line, expected "
			       "'<rows> <cols> <nonzeros>'");
		goto out;
	}
	if (rows < 0 || cols < 0 || nnz < 0 || rows >= INT32_MAX ||
	    cols >= INT32_MAX || nnz > rows * cols) {
		ret = mtx_fail(&r, -EINVAL, "sizes %lld x %lld with %lld "
			       "nonzeros are out of range (0 .. 2^31-2, "
			       "nonzeros <= rows * cols)", rows, cols, nnz);
		goto out;
	}
	if (symmetric && rows != cols) {
		ret = mtx_fail(&r, -EINVAL, "symmetric matrix is not square "
			       "(%lld x %lld)", rows, cols);
		goto out;
	}
	if (rows > MTX_ROWS_FREE && rows > MTX_ROWS_PER_ENTRY * nnz) {
		ret = mtx_fail(&r, -EINVAL, "%lld rows for %lld nonzeros: more "
			       "than %d rows per nonzero beyond the first %lld "
			       "are refused", rows, nnz, MTX_ROWS_PER_ENTRY,
			       MTX_ROWS_FREE);
		goto out;
	}
	cap = symmetric ? 2 * nnz : nnz;
	if (cap >= INT32_MAX) {
		ret = mtx_fail(&r, -EINVAL, "%lld entries exceed 2^31-1", cap);
		goto out;
	}
	/* no more entries than the rest of the file has lines for */
	room = mtx_room(&r);
	if (room != LLONG_MAX) {
		room = (symmetric ? 2 : 1) * (room / MTX_MIN_ENTRY_BYTES + 1);
		if (cap > room)
			cap = room;
	}
	ri = malloc(((size_t)cap + 1) * sizeof(*ri));
	ci = malloc(((size_t)cap + 1) * sizeof(*ci));
	v = malloc(((size_t)cap + 1) * sizeof(*v));
	if (!ri || !ci || !v) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nnz; i++) {
		long long a, b, iv;
		double val = 1.0;
		char *end;

		if (mtx_next(&r, 1)) {
			ret = mtx_fail(&r, -EINVAL, "file ends after %lld of "
				       "%lld entries", i, nnz);
			goto out;
		}
		p = r.line;
		if (parse_i64(&p, &a) || parse_i64(&p, &b)) {
			ret = mtx_fail(&r, -EINVAL, "bad entry, expected "
				       "'<row> <col>%s'",
				       field == MTX_PATTERN ? "" : " <value>");
			goto out;
		}
		if (a < 1 || a > rows || b < 1 || b > cols) {
			ret = mtx_fail(&r, -EINVAL, "entry (%lld, %lld) is "
				       "outside 1..%lld x 1..%lld (indices are "
				       "1-based)", a, b, rows, cols);
			goto out;
		}
		if (field == MTX_INTEGER) {
			if (parse_i64(&p, &iv)) {
				ret = mtx_fail(&r, -EINVAL, "bad or missing "
					       "integer value");
				goto out;
			}
			val = (double)iv;
		} else if (field == MTX_REAL) {
			errno = 0;
			val = strtod(p, &end);
			if (end == p || errno == EINVAL) {
				ret = mtx_fail(&r, -EINVAL, "bad or missing "
					       "real value");
				goto out;
			}
			p = end;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '\0') {
			ret = mtx_fail(&r, -EINVAL, "trailing text '%.20s' "
				       "after the entry", p);
			goto out;
		}
		if (n + (symmetric ? 2 : 1) > cap) {
			ret = mtx_fail(&r, -EINVAL, "more entries than the "
				       "file's size has room for");
			goto out;
		}
		ri[n] = (int32_t)(a - 1);
		ci[n] = (int32_t)(b - 1);
		v[n++] = (float)val;
		if (symmetric && a != b) {
			ri[n] = (int32_t)(b - 1);
			ci[n] = (int32_t)(a - 1);
			v[n++] = (float)val;
		}
	}
	if (!mtx_next(&r, 1)) {
		ret = mtx_fail(&r, -EINVAL, "more entries than the %lld "
			       "declared on the size line", nnz);
		goto out;
	}
	ret = xs_csr_from_triplets(out, (int32_t)rows, (int32_t)cols, n, ri,
				   ci, v);
	if (ret == -EINVAL)
		ret = mtx_fail(&r, -EINVAL, "internal: bad triplets");
out:
	free(ri);
	free(ci);
	free(v);
	free(r.line);
	return ret;
}
