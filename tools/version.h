/* SPDX-License-Identifier: MIT */
/*
 * version.h - what every xsched tool prints for --version: its name and
 * the version of include/xsched.h, "xsched-top (xsched) 0.1".
 */
#ifndef XSCHED_TOOLS_VERSION_H
#define XSCHED_TOOLS_VERSION_H

#include <stdio.h>

#include "xsched.h"

#define XS_TOOL_STR_(x) #x
#define XS_TOOL_STR(x) XS_TOOL_STR_(x)
#define XSCHED_VERSION_STRING \
	XS_TOOL_STR(XSCHED_VERSION_MAJOR) "." XS_TOOL_STR(XSCHED_VERSION_MINOR)

static inline void tool_version(const char *prog)
{
	printf("%s (xsched) %s\n", prog, XSCHED_VERSION_STRING);
}

#endif /* XSCHED_TOOLS_VERSION_H */
