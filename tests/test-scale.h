/* SPDX-License-Identifier: MIT */
/*
 * test-scale.h - how much work a stress test does.
 *
 * Sanitizers slow the code under test 5-20x; stress tests divide their
 * iteration counts by test_scale() so that they keep the same shape (same
 * workers, same trees, same races) but fit the time limits.
 */
#ifndef XS_TEST_SCALE_H
#define XS_TEST_SCALE_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define XS_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define XS_TEST_SANITIZED 1
#endif
#endif

static inline unsigned int test_scale(void)
{
#ifdef XS_TEST_SANITIZED
	return 8;
#else
	return 1;
#endif
}

#endif /* XS_TEST_SCALE_H */
