#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# kselftest-setup.sh [DIR] - make the kernel's kselftest harness available.
#
# Extracts only tools/testing/selftests/{kselftest_harness.h,kselftest.h} from
# the linux-source tarball into DIR (default: the per-user cache), once.
# The headers are GPL kernel code: they are used from the cache and never
# copied into this repository. Silent when DIR is already set up.
set -euo pipefail

dir=${1:-${KSELFTEST_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/xsched/kselftest}}
tarball=${KSELFTEST_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
headers=(kselftest_harness.h kselftest.h)

have_all() {
	local h
	for h in "${headers[@]}"; do [[ -f $1/$h ]] || return 1; done
}

have_all "$dir" && exit 0
if [[ ! -f $tarball ]]; then
	echo "kselftest-setup.sh: $tarball not found; run scripts/deps.sh (package linux-source-6.1)" >&2
	exit 1
fi

echo "  GEN     $dir (kselftest headers from $(basename "$tarball"))" >&2
mkdir -p "$(dirname "$dir")"
tmp=$(mktemp -d "$dir.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp" --wildcards --no-wildcards-match-slash \
	--strip-components=4 "${headers[@]/#/*/tools/testing/selftests/}"
have_all "$tmp" || { echo "kselftest-setup.sh: ${headers[*]} not in $tarball" >&2; exit 1; }

# Publish atomically: a concurrent setup may have won the race meanwhile.
mkdir -p "$dir"
for h in "${headers[@]}"; do mv -f "$tmp/$h" "$dir/$h.new" && mv -f "$dir/$h.new" "$dir/$h"; done
