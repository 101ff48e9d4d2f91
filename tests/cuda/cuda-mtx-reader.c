// SPDX-License-Identifier: MIT
/*
 * cuda-mtx-reader: the Matrix Market reader loads real, integer and pattern
 * matrices, general and symmetric (mirrored), and rejects each kind of bad
 * input with -EINVAL and a message that names the file and the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "xsched/cuda.h"

static char path[64];

static const char *write_tmp(const char *text)
{
	int fd;

	strcpy(path, "/tmp/xs-mtx-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

TEST(symmetric_real_is_mirrored)
{
	struct xs_csr m;
	char err[256];
	const char *p = write_tmp("%%MatrixMarket matrix coordinate real symmetric\n"
				  "% a comment\n"
				  "3 3 3\n1 1 2.5\n3 1 -1\n3 3 4e0\n");

	ASSERT_EQ(0, xs_mtx_read(p, &m, err, sizeof(err))) TH_LOG("%s", err);
	unlink(p);
	ASSERT_EQ(3, m.rows);
	ASSERT_EQ(4, m.nnz);
	/* Row 0: (0, 2.5) (2, -1); row 1 empty; row 2: (0, -1) (2, 4). */
	ASSERT_EQ(0, m.offsets[0]);
	ASSERT_EQ(2, m.offsets[1]);
	ASSERT_EQ(2, m.offsets[2]);
	ASSERT_EQ(4, m.offsets[3]);
	ASSERT_EQ(2, m.indices[1]);
	ASSERT_TRUE(m.values[1] == -1.0f);
	ASSERT_EQ(0, m.indices[2]);
	ASSERT_TRUE(m.values[3] == 4.0f);
	xs_csr_free(&m);
}

TEST(pattern_and_integer_general)
{
	struct xs_csr m;
	char err[256];
	const char *p = write_tmp("%%MatrixMarket matrix coordinate pattern general\n"
				  "2 3 3\n2 3\n1 2\n2 1\n");

	ASSERT_EQ(0, xs_mtx_read(p, &m, err, sizeof(err))) TH_LOG("%s", err);
	unlink(p);
	ASSERT_EQ(3, m.nnz);
	ASSERT_EQ(3, m.cols);
	ASSERT_TRUE(m.values[0] == 1.0f);
	ASSERT_EQ(1, m.indices[0]);
	ASSERT_EQ(0, m.indices[1]);
	ASSERT_EQ(2, m.indices[2]);
	xs_csr_free(&m);

	p = write_tmp("%%MatrixMarket matrix coordinate integer general\n"
		      "2 2 2\n1 1 7\n1 1 -3\n");
	ASSERT_EQ(0, xs_mtx_read(p, &m, err, sizeof(err))) TH_LOG("%s", err);
	unlink(p);
	ASSERT_EQ(1, m.nnz);		/* duplicates are summed */
	ASSERT_TRUE(m.values[0] == 4.0f);
	xs_csr_free(&m);
}

struct bad_case {
	const char *text;
	const char *line;	/* ":<line>:" expected in the message */
	const char *what;	/* a word the message must contain */
};

TEST(bad_input_names_file_and_line)
{
	static const struct bad_case cases[] = {
		{ "", ":0:", "empty" },
		{ "hello\n", ":1:", "MatrixMarket" },
		{ "%%MatrixMarket matrix array real general\n2 2\n", ":1:",
		  "array" },
		{ "%%MatrixMarket matrix coordinate complex general\n", ":1:",
		  "complex" },
		{ "%%MatrixMarket matrix coordinate real hermitian\n", ":1:",
		  "hermitian" },
		{ "%%MatrixMarket matrix coordinate real general\n", ":1:",
		  "size line" },
		{ "%%MatrixMarket matrix coordinate real general\n2 x 2\n",
		  ":2:", "size line" },
		{ "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n",
		  ":2:", "not square" },
		{ "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
		  "1 1 1\n", ":3:", "ends after 1 of 2" },
		{ "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
		  "0 1 1\n", ":3:", "1-based" },
		{ "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
		  "1 3 1\n", ":3:", "outside" },
		{ "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
		  "1 1 abc\n", ":3:", "real value" },
		{ "%%MatrixMarket matrix coordinate integer general\n2 2 1\n"
		  "1 1 1.5\n", ":3:", "trailing" },
		{ "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
		  "1 1 1\n2 2 2\n", ":4:", "more entries" },
		/* 8 GB of row offsets from 37 bytes (found by tests/fuzz/mtx) */
		{ "%%MatrixMarket matrix coordinate real general\n"
		  "2000000000 1 0\n", ":2:", "rows per nonzero" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xs_csr m;
		char err[256];
		const char *p = write_tmp(cases[i].text);
		int ret = xs_mtx_read(p, &m, err, sizeof(err));

		unlink(p);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(err, p)) TH_LOG("case %zu: %s", i, err);
		EXPECT_NE(NULL, strstr(err, cases[i].line))
			TH_LOG("case %zu: %s", i, err);
		EXPECT_NE(NULL, strstr(err, cases[i].what))
			TH_LOG("case %zu: %s", i, err);
		if (ret == 0)
			xs_csr_free(&m);
	}
}

TEST(missing_file_is_enoent)
{
	struct xs_csr m;
	char err[256];

	ASSERT_EQ(-ENOENT, xs_mtx_read("/nonexistent/x.mtx", &m, err,
				       sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "/nonexistent/x.mtx"));
}

#define RMATRIX "/usr/lib/R/library/Matrix/external/"

TEST(debian_r_cran_matrix_files)
{
	static const struct {
		const char *name;
		int32_t rows, nnz;
	} files[] = {
		{ "jgl009.mtx", 9, 50 },	/* pattern general */
		{ "lund_a.mtx", 147, 2449 },	/* real symmetric, mirrored */
		{ "pores_1.mtx", 30, 180 },	/* real general */
	};
	size_t i;

	if (access(RMATRIX "lund_a.mtx", R_OK))
		SKIP(return, "r-cran-matrix is not installed (no %s)",
		     RMATRIX "lund_a.mtx");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char p[256], err[256];
		struct xs_csr m;

		snprintf(p, sizeof(p), RMATRIX "%s", files[i].name);
		ASSERT_EQ(0, xs_mtx_read(p, &m, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(files[i].rows, m.rows) TH_LOG("%s", p);
		EXPECT_EQ(files[i].nnz, m.nnz) TH_LOG("%s", p);
		xs_csr_free(&m);
	}
	/* The package also ships a deliberately broken file. */
	if (!access(RMATRIX "wrong.mtx", R_OK)) {
		struct xs_csr m;
		char err[256];

		ASSERT_EQ(-EINVAL, xs_mtx_read(RMATRIX "wrong.mtx", &m, err,
					       sizeof(err)));
		ASSERT_NE(NULL, strstr(err, "wrong.mtx:3:")) TH_LOG("%s", err);
	}
}

TEST_HARNESS_MAIN
