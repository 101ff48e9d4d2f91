/* SPDX-License-Identifier: MIT */
/*
 * otf2_export.h - `xsched-trace otf2`: a loaded trace as an OTF2 archive
 * (OUT.otf2, OUT.def and the directory OUT/), one location per track, one region
 * per event kind (otf2_export.c says how events become Enter/Leave).
 */
#ifndef XSCHED_TRACE_OTF2_EXPORT_H
#define XSCHED_TRACE_OTF2_EXPORT_H

#include <stddef.h>

#include "trace.h"

/* Write @t to the archive @out; an existing archive is not overwritten.
 * Returns 0, or -1 after writing a message to @err. */
int otf2_write(const struct trace *t, const char *out, char *err, size_t errlen);

#endif /* XSCHED_TRACE_OTF2_EXPORT_H */
