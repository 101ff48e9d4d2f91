#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# A file of libxsched/<layer>/ calls only files of its own layer and of the
# layers before it, and no two files of a layer call each other round a
# circle, read from the built objects' symbols. Today's exceptions are
# scripts/calls.allow, which only shrinks (scripts/check-calls.sh).
echo "TAP version 13"
echo "1..1"
if out=$("${XS_SRCDIR:-.}/scripts/check-calls.sh" 2>&1); then
	sed 's/^/# /' <<<"$out"
	echo "ok 1 layers-call-rule"
else
	sed 's/^/# /' <<<"$out"
	echo "not ok 1 layers-call-rule"
	exit 1
fi
