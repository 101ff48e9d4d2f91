/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer targets in tests/fuzz/ share.
 *
 * Each target is one file that defines LLVMFuzzerTestOneInput() (and may
 * define LLVMFuzzerInitialize()) and hands its input to one of xsched's
 * own parsers. It is linked twice: with libFuzzer into build-fuzz/fuzz/NAME
 * (`make fuzz`), and with tests/fuzz/replay.c into build/fuzz/replay-NAME,
 * which `make check` runs over tests/fuzz/corpus/NAME/ (the seeds and every
 * input that once crashed), so plain builds replay them too.
 *
 * A target checks what the parser promises beyond not crashing (an error
 * comes with a message, an accepted input has the fields it must have)
 * and abort()s when a promise is broken: libFuzzer reports that as a crash.
 */
#ifndef XSCHED_FUZZ_H
#define XSCHED_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken promise: say which, then abort (a crash to libFuzzer). */
#define FUZZ_CHECK(cond)                                                           \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, \
				__LINE__, #cond);                                  \
			abort();                                                   \
		}                                                                  \
	} while (0)

/*
 * The harness's own bookkeeping (lookups in its tables), which libFuzzer
 * should neither count as coverage nor trace comparisons in: clang's
 * SanitizerCoverage skips such a function. gcc builds only replay.
 */
#ifdef __clang__
#define FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define FUZZ_NO_COVERAGE
#endif

/* The top of the source tree (XS_SRCDIR under make check, else "."). */
static inline const char *fuzz_srcdir(void)
{
	const char *s = getenv("XS_SRCDIR");

	return s && *s ? s : ".";
}

/* A private directory for the target's files, made once, in TMPDIR. */
static inline const char *fuzz_tmpdir(void)
{
	static char dir[1024];

	if (!dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/xsched-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			perror(dir);
			exit(1);
		}
	}
	return dir;
}

/* Replace @path by exactly @size bytes of @data. */
static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while (done < size) {
		ssize_t n = write(fd, (const char *)data + done, size - done);

		if (n <= 0) {
			perror(path);
			exit(1);
		}
		done += (size_t)n;
	}
	close(fd);
}

/* A NUL-terminated copy of @data (the parsers of strings take C strings). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif /* XSCHED_FUZZ_H */
