#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The command line of packaging/xschedd.service takes its settings from
# /etc/default/xschedd, and `systemctl reload` (SIGHUP, the unit's
# ExecReload) applies an edited file: the published tick changes. A bad
# value at reload is named and leaves the running settings; a bad or empty
# value at start stops xschedd with exit status 2, which the unit does not
# restart. The unit's ExecStart runs here with the built daemon, a
# temporary env file and runtime directory, in degraded mode.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
unit=$src/packaging/xschedd.service

echo "TAP version 13"
if [[ ! -x $build/xschedd ]]; then
	echo "1..0 # SKIP $build/xschedd not built (make says why)"
	exit 0
fi
echo "1..6"
. "$src/scripts/tap.sh"
tmp=$(mktemp -d)
pid=
cleanup() {
	[[ -n $pid ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# ExecStart with the built daemon and the temporary env file; the runtime
# directory and degraded mode are added, as later options win.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
read -r -a cmd <<<"${exec_start//\/etc\/default\/xschedd/$tmp/default}"
cmd[0]=$build/xschedd
cmd+=(--runtime-dir "$tmp/run" --bpf off)

tick() {
	"$build/xsched-top" --json -n 1 --runtime-dir "$tmp/run" 2>/dev/null |
		sed -n 's/.*"tick_ms":\([0-9.]*\).*/\1/p'
}
wait_tick() { # wait_tick WANT: up to 10 s for the published tick
	local i t
	for ((i = 0; i < 100; i++)); do
		t=$(tick)
		[[ $t == "$1" ]] && return 0
		sleep 0.1
	done
	echo "tick $t, expected $1"
	return 1
}

{ cat "$src/packaging/xschedd.default"; echo "XSCHEDD_TICK_MS=20"; } >"$tmp/default"
"${cmd[@]}" 2>"$tmp/log" &
pid=$!
why=$(wait_tick 20.0)
ok=$?
grep -q '^EnvironmentFile=' "$unit" && { ok=1; why="the unit still has EnvironmentFile="; }
result $((!ok)) "the unit's ExecStart reads /etc/default/xschedd (tick 20 ms)" \
	"$why" "${cmd[*]}" "$(cat "$tmp/log")"

sed -i 's/^XSCHEDD_TICK_MS=20$/XSCHEDD_TICK_MS=70/' "$tmp/default"
kill -HUP "$pid"
why=$(wait_tick 70.0)
result $((!$?)) "reload (SIGHUP) applies the edited file (tick 70 ms)" "$why" "$(cat "$tmp/log")"

sed -i 's/^XSCHEDD_TICK_MS=70$/XSCHEDD_TICK_MS=fast/' "$tmp/default"
lines=$(wc -l <"$tmp/log")
kill -HUP "$pid"
for ((i = 0; i < 100; i++)); do
	grep -q 'SIGHUP: settings not changed' "$tmp/log" && break
	sleep 0.1
done
ok=0
tail -n +$((lines + 1)) "$tmp/log" | grep -q "$tmp/default:[0-9]*: XSCHEDD_TICK_MS=\"fast\" is invalid: expected 1..1000" &&
	[[ $(tick) == 70.0 ]] && kill -0 "$pid" && ok=1
result $ok "a bad value at reload is named; xschedd keeps tick 70 ms" "$(cat "$tmp/log")"
kill "$pid"
wait "$pid"
pid=

# At start: exit status 2 and the setting named, for a bad and an empty value.
for bad in "XSCHEDD_DECAY=101" "XSCHEDD_DECAY="; do
	printf '%s\n' "$bad" >"$tmp/default"
	timeout 10 "${cmd[@]}" 2>"$tmp/log"
	rc=$?
	ok=0
	[[ $rc == 2 ]] && grep -q "$tmp/default:1: XSCHEDD_DECAY=\"${bad#*=}\" is invalid: expected 1..100" \
		"$tmp/log" && [[ ! -e $tmp/run/state ]] && ok=1
	result $ok "$bad in the env file: xschedd exits 2 naming it" \
		"$(describe $rc)" "$(cat "$tmp/log")"
done

grep -qx 'RestartPreventExitStatus=2' "$unit"
result $((!$?)) "the unit does not restart xschedd after exit status 2 (a bad setting)"
exit $failed
