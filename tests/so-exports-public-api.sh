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

n=0 failed=0
result() { # result OK DESCRIPTION [DIAGNOSTIC...]
	local ok=$1 what=$2
	shift 2
	n=$((n + 1))
	if ((ok)); then
		echo "ok $n $what"
	else
		printf '# %s\n' "$@"
		echo "not ok $n $what"
		failed=1
	fi
}

soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname == "libxsched.so.$major" ]]
result $((!$?)) soname "SONAME is '$soname', expected libxsched.so.$major"

# Defined dynamic symbols as name@@version, minus the version node itself.
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v "^XSCHED_")
bad=$(grep -v "^xs_[a-z0-9_]*@@XSCHED_$major\.$minor\$" <<<"$exported")
result $((${#bad} == 0)) only-versioned-xs-symbols "exported outside the map:" $bad

# Functions declared at the top level of the public header.
public=$(grep -E '^[a-z].*[^A-Za-z0-9_]xs_[a-z0-9_]+\(' "$src/include/xsched.h" |
	sed -E 's/.*[^A-Za-z0-9_](xs_[a-z0-9_]+)\(.*/\1/' | sort -u)
names=$(sed 's/@.*//' <<<"$exported" | sort -u)
missing=$(comm -23 <(echo "$public") <(echo "$names"))
[[ -n $public ]] || missing="(no function found in include/xsched.h)"
result $((${#missing} == 0)) public-api-exported "declared in include/xsched.h but not exported:" $missing

extra=$(comm -13 <(echo "$public") <(echo "$names"))
result $((${#extra} == 0)) no-internal-exported "exported but not in include/xsched.h:" $extra
exit $failed
