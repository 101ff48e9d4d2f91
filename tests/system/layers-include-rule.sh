#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Each file of libxsched/<layer>/ includes only headers of its own layer and
# of the layers before it; the drop-in, the CUDA module and the tools only
# include/ and libxsched/ext.h; only base/atomics.h includes <stdatomic.h>.
# Today's exceptions are scripts/layers.allow, which only shrinks
# (scripts/check-layers.sh).
echo "TAP version 13"
echo "1..1"
if out=$("${XS_SRCDIR:-.}/scripts/check-layers.sh" 2>&1); then
	sed 's/^/# /' <<<"$out"
	echo "ok 1 layers-include-rule"
else
	sed 's/^/# /' <<<"$out"
	echo "not ok 1 layers-include-rule"
	exit 1
fi
