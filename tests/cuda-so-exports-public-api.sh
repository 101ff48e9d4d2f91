#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# libxsched-cuda.so exports exactly the functions declared in
# include/xsched/cuda.h, at version XSCHED_CUDA_0.1
# (libxsched/cuda/xsched-cuda.map), and nothing else: no CUDA runtime, no
# C++ or kernel symbols leak out of the static cudart it carries.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
so=$build/libxsched-cuda.so

echo "TAP version 13"
if [[ ! -f $so ]]; then
	echo "1..0 # SKIP $so not built (no nvcc)"
	exit 4
fi
echo "1..3"

n=0
result() { # result OK DESCRIPTION [DIAGNOSTIC...]
	local ok=$1 what=$2
	shift 2
	n=$((n + 1))
	if ((ok)); then
		echo "ok $n $what"
	else
		printf '# %s\n' "$@"
		echo "not ok $n $what"
	fi
}

exported=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v "^XSCHED_CUDA_")
bad=$(grep -v "^xs_[a-z0-9_]*@@XSCHED_CUDA_0\.1\$" <<<"$exported")
result $((${#bad} == 0)) only-versioned-xs-symbols "exported outside the map:" $bad

public=$(grep -E '^[a-z].*[^A-Za-z0-9_]xs_[a-z0-9_]+\(' "$src/include/xsched/cuda.h" |
	sed -E 's/.*[^A-Za-z0-9_](xs_[a-z0-9_]+)\(.*/\1/' | sort -u)
names=$(sed 's/@.*//' <<<"$exported" | sort -u)
missing=$(comm -23 <(echo "$public") <(echo "$names"))
[[ -n $public ]] || missing="(no function found in include/xsched/cuda.h)"
result $((${#missing} == 0)) public-api-exported "declared but not exported:" $missing

extra=$(comm -13 <(echo "$public") <(echo "$names"))
result $((${#extra} == 0)) nothing-else-exported "exported but not declared:" $extra
exit 0
