#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-trace otf2 writes an OTF2 archive that libotf2's own reader
# (otf2-print, Debian's otf2-tools) opens: a location per thread, named as
# the trace names it, every event of the trace entered and left once, in
# time order, strictly nested (an event that outlasts its parent is left at
# the parent's end). An existing archive is not overwritten; -o is needed.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/scripts/tap.sh"

if ! command -v otf2-print >/dev/null; then
	echo "1..0 # SKIP otf2-print not installed (apt install otf2-tools)"
	exit 4
fi
echo "TAP version 13"
echo "1..4"

# Thread 7: THREAD 0-100 holding TASK 10-50 (holding TASKWAIT 20-40) and a
# BARRIER 90-99 holding a TASK 95-105 that sticks out. Thread 9: STALL
# 5-15, TASK 20-30. Microseconds.
cat >"$tmp/t.json" <<'JSON'
{"traceEvents":[
{"ph":"M","pid":3,"tid":7,"name":"thread_name","args":{"name":"main (worker 0)"}},
{"ph":"M","pid":3,"tid":9,"name":"thread_name","args":{"name":"xsched-w1 (worker 1)"}},
{"ph":"X","pid":3,"tid":7,"name":"TASKWAIT","ts":20,"dur":20},
{"ph":"X","pid":3,"tid":7,"name":"TASK","ts":10,"dur":40},
{"ph":"X","pid":3,"tid":7,"name":"TASK","ts":95,"dur":10},
{"ph":"X","pid":3,"tid":7,"name":"BARRIER","ts":90,"dur":9},
{"ph":"X","pid":3,"tid":7,"name":"THREAD","ts":0,"dur":100},
{"ph":"X","pid":3,"tid":9,"name":"STALL","ts":5,"dur":10},
{"ph":"s","pid":3,"tid":7,"name":"steal","cat":"steal","id":1,"ts":20},
{"ph":"f","bp":"e","pid":3,"tid":9,"name":"steal","cat":"steal","id":1,"ts":20},
{"ph":"X","pid":3,"tid":9,"name":"TASK","ts":20,"dur":10}
]}
JSON

"$build/xsched-trace" otf2 "$tmp/t.json" -o "$tmp/arch" >"$tmp/out" 2>&1
rc=$?
result $((rc == 0)) "otf2 writes the archive" "$(describe $rc)" "$(cat "$tmp/out")"

otf2-print "$tmp/arch.otf2" >"$tmp/events" 2>&1
rc1=$?
otf2-print -G "$tmp/arch.otf2" >"$tmp/defs" 2>&1
rc2=$?
ok=0
grep -q '"main (worker 0)"' "$tmp/defs" && grep -q '"xsched-w1 (worker 1)"' "$tmp/defs" &&
	((rc1 == 0 && rc2 == 0)) && ok=1
result $ok "otf2-print reads it: a location per thread, with the trace's names" \
	"$(describe $rc1), $(describe $rc2)" "$(grep -i location "$tmp/defs")"

# The events as otf2-print lists them (KIND LOCATION TIME REGION), each
# location's in the order they were read.
want="ENTER 0 0 THREAD
ENTER 0 10000 TASK
ENTER 0 20000 TASKWAIT
LEAVE 0 40000 TASKWAIT
LEAVE 0 50000 TASK
ENTER 0 90000 BARRIER
ENTER 0 95000 TASK
LEAVE 0 99000 TASK
LEAVE 0 99000 BARRIER
LEAVE 0 100000 THREAD
ENTER 1 5000 STALL
LEAVE 1 15000 STALL
ENTER 1 20000 TASK
LEAVE 1 30000 TASK"
got=$(awk '$1 == "ENTER" || $1 == "LEAVE" { r = $0; sub(/.*Region: "/, "", r); sub(/".*/, "", r);
	print $1, $2, $3, r }' "$tmp/events" | sort -s -n -k2,2)
result $([[ $got == "$want" ]] && echo 1 || echo 0) \
	"every event entered and left once, in order, nested, times in ns from the first" \
	"want:" "$want" "got:" "$got"

"$build/xsched-trace" otf2 "$tmp/t.json" -o "$tmp/arch" >"$tmp/out" 2>&1
rc=$?
"$build/xsched-trace" otf2 "$tmp/t.json" >"$tmp/out2" 2>&1
rc2=$?
ok=0
[[ $rc == 1 && $rc2 == 2 ]] && grep -q "is there already" "$tmp/out" &&
	grep -q "no output given" "$tmp/out2" && ok=1
result $ok "an existing archive is not overwritten (exit 1); no -o is a usage error (exit 2)" \
	"$(describe $rc): $(cat "$tmp/out")" "$(describe $rc2): $(cat "$tmp/out2")"
exit $failed
