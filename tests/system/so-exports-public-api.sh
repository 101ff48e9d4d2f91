#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# libxsched.so carries the SONAME libxsched.so.<major>, exports every function
# declared in include/xsched.h at version XSCHED_<major>.<minor>, and nothing
# else: libxsched/libxsched.map and the public header agree.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
major=$(sed -n 's/^#define XSCHED_VERSION_MAJOR *//p' "$src/include/xsched.h")
minor=$(sed -n 's/^#define XSCHED_VERSION_MINOR *//p' "$src/include/xsched.h")
so=$build/libxsched.so.$major.$minor

echo "TAP version 13"
if [[ ! -f $so ]]; then
	echo "1..0 # SKIP $so not built"
	exit 4
fi
echo "1..4"

. "$src/scripts/tap-exports.sh"

soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname == "libxsched.so.$major" ]]
result $((!$?)) soname "SONAME is '$soname', expected libxsched.so.$major"
# The public API is xsched.h and the inline fast paths it includes.
public=$(mktemp)
trap 'rm -f "$public"' EXIT
cat "$src/include/xsched.h" "$src/include/xsched/task_inline.h" \
	"$src/include/xsched/task_typed.h" >"$public"
check_exports "$so" "$public" "XSCHED_$major.$minor"
exit $failed
