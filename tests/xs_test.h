/* SPDX-License-Identifier: MIT */
/*
 * xs_test.h - the kselftest harness as xsched tests use it. The Makefile
 * includes it first in every test (-include), so a test may include this or
 * "kselftest_harness.h" and gets the same.
 *
 * The harness (the kernel's tools/testing/selftests/kselftest_harness.h,
 * found through -isystem, see scripts/kselftest-setup.sh) runs each TEST()
 * in a forked child that ends with _exit(), so LeakSanitizer's check at
 * exit() never runs for the code under test. Under AddressSanitizer this
 * header routes the harness's _exit() through a leak check when the test
 * passed: a test that leaks fails under `make check SANITIZE=address`.
 * A failed or skipped case is not checked (an ASSERT bails out without
 * cleaning up by design). A test's own _exit(0) is checked as well.
 */
#ifndef XS_TEST_H
#define XS_TEST_H

#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define XS_TEST_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XS_TEST_LSAN 1
#endif
#endif

#ifdef XS_TEST_LSAN
#include <sanitizer/lsan_interface.h>

static inline void xs_test_exit(int code)
{
	if (code == 0)
		__lsan_do_leak_check(); /* exits non-zero on a leak */
	_exit(code);
}
/* After <unistd.h>, so that only the harness's calls are redirected. */
#define _exit(code) xs_test_exit(code)
#endif

/*
 * The harness's limit per TEST() (30 s, or a TEST_F_TIMEOUT's) times
 * $XS_TEST_TIMEOUT_SCALE, an integer 1..100 (default 1): make check-system
 * sets it in guests that QEMU emulates without KVM, which run tens of
 * times slower. Only the harness's alarm() calls are redirected.
 */
#include <stdio.h>
#include <stdlib.h>

static inline unsigned int xs_test_timeout_scale(void)
{
	const char *e = getenv("XS_TEST_TIMEOUT_SCALE");
	char *end;
	long k;

	if (!e || !*e)
		return 1;
	k = strtol(e, &end, 10);
	if (*end || k < 1 || k > 100) {
		fprintf(stderr, "XS_TEST_TIMEOUT_SCALE=\"%s\" is invalid: expected 1..100\n", e);
		exit(2);
	}
	return (unsigned int)k;
}

static inline unsigned int xs_test_alarm(unsigned int seconds)
{
	return alarm(seconds * xs_test_timeout_scale());
}

#define alarm(seconds) xs_test_alarm(seconds)
#include "kselftest_harness.h"
#undef alarm

#endif /* XS_TEST_H */
