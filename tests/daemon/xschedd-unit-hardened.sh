#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Issue 31, item 15: packaging/xschedd.service runs xschedd as a user of its
# own with CAP_BPF and CAP_PERFMON only, bounds its descriptors (above two
# per client and two in flight, with margin), tasks, memory and log rate,
# has a watchdog, and `systemd-analyze security` rates it 1.0 or less.
echo "TAP version 13"
echo "1..2"
src=${XS_SRCDIR:-.}
unit=$src/packaging/xschedd.service
if ! command -v systemd-analyze >/dev/null; then
	echo "ok 1 unit settings # SKIP systemd-analyze not installed"
	echo "ok 2 exposure # SKIP systemd-analyze not installed"
	exit 0
fi
fail=0

# The last value of a setting in the unit ("" if unset).
setting() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }

bad=()
user=$(setting DynamicUser) u=$(setting User)
[[ $user == yes || ( -n $u && $u != root && $u != 0 ) ]] || bad+=("no User= or DynamicUser=yes: runs as root")
bound=$(setting CapabilityBoundingSet)
for cap in $bound; do
	[[ $cap == CAP_BPF || $cap == CAP_PERFMON ]] || bad+=("bounding set has $cap")
done
[[ -n $bound ]] || bad+=("no CapabilityBoundingSet=")
amb=$(setting AmbientCapabilities)
[[ $amb == *CAP_BPF* && $amb == *CAP_PERFMON* ]] || bad+=("AmbientCapabilities= lacks CAP_BPF CAP_PERFMON")
nofile=$(setting LimitNOFILE)
maxc=$(sed -n 's/^#\?XSCHEDD_MAX_CLIENTS=//p' "$src/packaging/xschedd.default" | tail -n 1)
# two descriptors per client, two in flight, the daemon's own, and margin
if ! [[ $nofile =~ ^[0-9]+$ ]] || (( nofile < (4 * ${maxc:-1024} + 64) * 3 / 2 )); then
	bad+=("LimitNOFILE=$nofile is not above 4 x XSCHEDD_MAX_CLIENTS=${maxc:-1024} with margin")
fi
for s in TasksMax MemoryMax LogRateLimitIntervalSec LogRateLimitBurst WatchdogSec; do
	[[ -n $(setting $s) ]] || bad+=("no $s=")
done
if ((${#bad[@]})); then
	printf '# %s\n' "${bad[@]}"
	echo "not ok 1 unit settings"
	fail=1
else
	echo "ok 1 unit settings"
fi

out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1)
level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
echo "# systemd-analyze security --offline=yes: exposure ${level:-unknown}"
if [[ -z $level ]]; then
	sed 's/^/# /' <<<"$out" | tail -n 5
	echo "not ok 2 exposure # systemd-analyze gave no level"
	fail=1
elif awk -v l="$level" 'BEGIN { exit !(l <= 1.0) }'; then
	echo "ok 2 exposure $level <= 1.0"
else
	grep '✗' <<<"$out" | sed 's/^/# /'
	echo "not ok 2 exposure $level > 1.0"
	fail=1
fi
exit $fail
