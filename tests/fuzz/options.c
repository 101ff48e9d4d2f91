// SPDX-License-Identifier: MIT
/*
 * options.c - fuzz the XSCHED_* environment parser.
 *
 * Input: lines; each line's first byte picks an option of the table
 * (libxsched/base/options.c, by index modulo their count), the rest of the line
 * is its value. The target sets those variables, runs xs_options_load()
 * (what xs_runtime_create() runs), the loop-schedule conversion and the
 * XSCHED_VERBOSE dump, then unsets them. Promises: the result is 0 or
 * -EINVAL; every accepted integer value lies in its option's range; the
 * same environment gives the same result twice.
 */
#include "fuzz.h"
#include "xsched.h"
#include "base/options.h"
#include "loops/loop.h"

static unsigned int noptions;
static struct xs_option_info info[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	while (noptions < 128 && !xs_option_describe(noptions, &info[noptions]))
		noptions++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xs_options a, b;
	struct xs_loop_sched s;
	char *text = fuzz_cstr(data, size), *line, *save = NULL;
	int ra, rb;

	if (!noptions)
		LLVMFuzzerInitialize(NULL, NULL);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		setenv(info[(unsigned char)line[0] % noptions].name, line + 1, 1);
	ra = xs_options_load(&a);
	rb = xs_options_load(&b);
	FUZZ_CHECK(ra == 0 || ra == -EINVAL);
	FUZZ_CHECK(ra == rb && !memcmp(&a, &b, sizeof(a)));
	for (unsigned int i = 0; i < noptions; i++) {
		const char *v = getenv(info[i].name);
		int64_t min, max;
		char *end;
		long long n;

		if (!v || xs_option_range(info[i].name, &min, &max))
			continue;
		errno = 0;
		n = strtoll(v, &end, 10);
		/* an integer that was accepted (no error named) is in range */
		if (!ra && !errno && end != v && !*end && !xs_option_choice(info[i].name, 0))
			FUZZ_CHECK(n == 0 || (n >= min && n <= max));
	}
	if (!ra) {
		xs_loop_sched_from_options(&a, &s);
		xs_options_dump(&a);
	}
	for (unsigned int i = 0; i < noptions; i++)
		unsetenv(info[i].name);
	free(text);
	return 0;
}
