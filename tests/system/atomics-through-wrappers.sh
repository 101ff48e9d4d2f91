#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every atomic access in libxsched/ goes through base/atomics.h's named
# wrappers: no atomic_*_explicit(), atomic_load() ..., fence or __atomic_*
# builtin elsewhere. Today's exceptions are scripts/atomics.allow, which
# only shrinks (scripts/check-atomics.sh).
echo "TAP version 13"
echo "1..1"
if out=$("${XS_SRCDIR:-.}/scripts/check-atomics.sh" 2>&1); then
	sed 's/^/# /' <<<"$out"
	echo "ok 1 atomics-through-wrappers"
else
	sed 's/^/# /' <<<"$out"
	echo "not ok 1 atomics-through-wrappers"
	exit 1
fi
