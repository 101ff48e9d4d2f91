/* SPDX-License-Identifier: MIT */
/*
 * omp-check.h - the checks of the OpenMP corpus (the programs in tests/omp/).
 *
 * A program prints only lines that do not depend on the thread count or the
 * runtime ("ok NAME", "NAME checksum N"), so that its output under any
 * runtime and thread count equals the reference output byte for byte.
 *
 *	CHECK("loops.static.count", count[i] == 1);
 *		on failure: one line on stderr naming the check, exit status 1.
 *		Safe inside parallel regions and tasks (it calls _Exit).
 *	OK("loops.static");	prints "ok loops.static" (serial code only)
 */
#ifndef XS_OMP_CHECK_H
#define XS_OMP_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(name, cond)                                                          \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, "FAILED %s: %s (%s:%d)\n", (name), #cond,  \
				__FILE__, __LINE__);                               \
			_Exit(1);                                                  \
		}                                                                  \
	} while (0)

#define OK(name) printf("ok %s\n", (name))

/* Line-buffered stdout: a run that crashes still shows how far it got. */
__attribute__((constructor)) static void omp_check_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* A pure function of i, so that checksums are easy to recompute serially. */
static inline unsigned long long omp_check_mix(unsigned long long i)
{
	i ^= i >> 31;
	i *= 0x7fb5d329728ea185ULL;
	i ^= i >> 27;
	return i;
}

#endif
