#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-atomics.sh - every atomic access in libxsched/ goes through
# base/atomics.h's named wrappers.
#
#   scripts/check-atomics.sh [ALLOWLIST]    (default scripts/atomics.allow)
#
# A C11 call, with an explicit order (atomic_*_explicit()) or the implicit
# seq_cst one (atomic_load() ...), a fence (atomic_thread_fence(),
# atomic_signal_fence()) or a compiler builtin (__atomic_*) in a .c or .h file of libxsched/ other than base/atomics.h
# is a violation: the wrapper names the order at the call site, and the
# comment there says what it publishes or observes and what it pairs with
# (base/atomics.h). Plain objects have xs_plain_* wrappers. libxsched/cuda's
# .cu/.cuh device code uses CUDA's atomics and is not scanned.
#
# Each violation is printed as "FILE:LINE: TEXT". The allowlist holds the
# files not converted yet, one per line, "FILE  # why"; a listed file
# with no violation left fails the check too (the list only shrinks).
# Exit 1 on either.

set -u
root=${XS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
allow=${1:-scripts/atomics.allow}
pattern='\batomic_[a-z_]*_explicit[[:space:]]*\(|\b__atomic_[a-z_]+|\batomic_(thread|signal)_fence[[:space:]]*\('
pattern+='|\batomic_(load|store|exchange|fetch_[a-z]+|compare_exchange_[a-z]+|flag_[a-z_]+|init)[[:space:]]*\('

mapfile -t allowed < <(sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' \
	-e 's/[[:space:]]*$//' "$allow" 2>/dev/null)

bad=0 known=0
declare -A seen=()
while IFS= read -r hit; do
	f=${hit%%:*}
	[[ $f == libxsched/base/atomics.h ]] && continue
	if printf '%s\n' "${allowed[@]}" | grep -qxF -- "$f"; then
		seen[$f]=1
		known=$((known + 1))
		continue
	fi
	echo "check-atomics: $hit: use a base/atomics.h wrapper (scripts/check-atomics.sh)"
	bad=1
done < <(find libxsched -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z |
	xargs -0 grep -nE "$pattern" /dev/null)
for a in "${allowed[@]}"; do
	[[ -n ${seen[$a]:-} ]] && continue
	echo "check-atomics: $allow: '$a' has no raw atomic left: remove the line"
	bad=1
done
((bad)) || echo "check-atomics: $known raw atomics in ${#allowed[@]} listed files ($allow), none elsewhere"
exit $bad
