// SPDX-License-Identifier: MIT
/*
 * replay.c - run a fuzz target over files, without libFuzzer.
 *
 *   build/fuzz/replay-NAME FILE|DIR...
 *
 * Feeds every file (every regular file of a directory) to the target's
 * LLVMFuzzerTestOneInput() once, as libFuzzer would, and prints how many.
 * A broken promise aborts, a memory error shows under SANITIZE=address:
 * tests/fuzz/fuzz-corpus-replays.sh runs this over tests/fuzz/corpus/NAME/.
 */
#include <dirent.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* libFuzzer hands over a buffer of exactly the input's size. */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		abort();
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			fprintf(stderr, "replay: %s: short read\n", path);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, got);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long files = 0;
	int err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			err = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			err |= replay_file(argv[i]) ? 1 : 0;
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			err |= replay_file(path) ? 1 : 0;
			files++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %lu inputs\n", files);
	return err;
}
