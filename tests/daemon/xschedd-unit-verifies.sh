#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# packaging/xschedd.service passes `systemd-analyze verify` (its ExecStart
# binary is checked too, so the built daemon stands in for /usr/sbin).
echo "TAP version 13"
echo "1..1"
src=${XS_SRCDIR:-.} build=${XS_BUILDDIR:-$src/build}
if ! command -v systemd-analyze >/dev/null; then
	echo "ok 1 xschedd-unit-verifies # SKIP systemd-analyze not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|/usr/sbin/xschedd|$build/xschedd|" "$src/packaging/xschedd.service" >"$tmp/xschedd.service"
if out=$(systemd-analyze verify --man=no "$tmp/xschedd.service" 2>&1) && [[ -z $out ]]; then
	echo "ok 1 xschedd-unit-verifies"
else
	sed 's/^/# /' <<<"$out"
	echo "not ok 1 xschedd-unit-verifies"
	exit 1
fi
