#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-top's batch output says what its numbers are: the plain-text
# header names rates (/S), totals (_TOTAL), interval shares (_INT) and
# current values (_NOW), and a legend says so; every snapshot and JSON
# object carries the wall-clock time (CLOCK_REALTIME) as ISO 8601 UTC and
# as ns since the epoch, which agree with date(1) to the minute.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/shm"
top=("$build/xsched-top" --shm-dir "$tmp/shm" --runtime-dir "$tmp/none")

echo "TAP version 13"
echo "1..3"
. "$src/scripts/tap.sh"

"${top[@]}" -bn1 >"$tmp/out" 2>&1
hdr=$(grep '^PID ' "$tmp/out")
ok=0
for col in TASKS/S STEAL_L/S STEAL_R/S REQ_SENT_TOTAL REQ_HNDL_TOTAL IMM%_TOTAL IDLE%_INT \
	QUEUED_NOW; do
	[[ " $hdr " == *" $col "* ]] || { ok=0; break; }
	ok=1
done
grep -q '^# columns: /S per second' "$tmp/out" || ok=0
result $ok "batch header names rates, totals and current values" "$(cat "$tmp/out")"

now=$(date -u +%s)
"${top[@]}" -bn1 >"$tmp/out" 2>&1
iso=$(sed -n 's/^xsched-top at \(.*\)$/\1/p' "$tmp/out")
t=$(date -u -d "$iso" +%s 2>/dev/null || echo 0)
ok=0
[[ $iso =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$ ]] &&
	((t >= now - 60 && t <= now + 60)) && ok=1
result $ok "batch snapshot at ISO 8601 UTC wall-clock time" "'$iso' vs $now"

now=$(date -u +%s)
"${top[@]}" --json -n1 >"$tmp/out" 2>&1
iso=$(sed -n 's/^{"time":"\([^"]*\)".*/\1/p' "$tmp/out")
ns=$(sed -n 's/.*"time_unix_ns":\([0-9]*\).*/\1/p' "$tmp/out")
t=$(date -u -d "$iso" +%s 2>/dev/null || echo 0)
ok=0
[[ -n $ns ]] && ((t >= now - 60 && t <= now + 60 && ns / 1000000000 == t)) &&
	grep -q '"monotonic_ns":' "$tmp/out" && ok=1
result $ok "JSON time, time_unix_ns: the same wall-clock time" "$(cut -c1-200 "$tmp/out")"
exit $failed
