#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# guest.sh - runs inside the check-system guest (systemd as PID 1), from
# the host's 9p share /mnt/xs, as root. The kernel command line's
# xs.mode= says what to do:
#   service  install the .debs (debs/), then xschedd as a systemd service:
#            start, status, journal, xsched-top --json, an OpenMP program
#            through xsched-run, a pkg-config-built program, reload after
#            editing /etc/default/xschedd, a bad value, stop leaves nothing
#   numa     only the NUMA tests (tests/: topology, victim tables, DLB,
#            daemon) against this kernel's NUMA view
# Both record the machine as the kernel sees it in out/MODE.topology.
# TAP goes to out/MODE.tap; the host prints it.
set -uo pipefail

share=/mnt/xs
mode=$(sed -n 's/.*xs\.mode=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
# xs.scale=N: the host emulates this guest (no KVM), N times slower: the
# tests' own time limits stretch by N (tests/xs_test.h).
export XS_TEST_TIMEOUT_SCALE=$(sed -n 's/.*xs\.scale=\([0-9]*\).*/\1/p' /proc/cmdline)
out=$share/out
mkdir -p "$out"
exec >"$out/$mode.tap" 2>&1
. "$share/tap.sh"
echo "TAP version 13"
tmp=$(mktemp -d)

topology() {
	echo "## numactl -H"
	numactl -H
	echo "## per CPU: node, LLC siblings, SMT siblings"
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		printf '%s node %s llc %s smt %s\n' "${c##*/}" \
			"$(basename "$(readlink -f "$c"/node* 2>/dev/null)" 2>/dev/null)" \
			"$(cat "$c/cache/index3/shared_cpu_list" 2>/dev/null || echo -)" \
			"$(cat "$c/topology/thread_siblings_list" 2>/dev/null || echo -)"
	done
	echo "## node distances"
	for node in /sys/devices/system/node/node[0-9]*; do
		echo "${node##*/}: $(cat "$node/distance")"
	done
}
topology >"$out/$mode.topology" 2>&1

wait_for() { # wait_for SECONDS COMMAND...: until COMMAND succeeds
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.2
	done
}
tick_is() { [[ $(xsched-top --json -n 1 | sed -n 's/.*"tick_ms":\([0-9.]*\).*/\1/p') == "$1" ]]; }

if [[ $mode == service ]]; then
	dpkg -i $(ls "$share"/debs/*.deb | grep -v dbgsym) >"$tmp/dpkg" 2>&1
	rc=$?
	result $((rc == 0)) "dpkg -i installs the five packages" "$(tail -n 20 "$tmp/dpkg")"

	# debhelper's postinst enabled and started the unit.
	wait_for 30 systemctl is-active -q xschedd
	result $((!$?)) "the package enabled and started xschedd.service" \
		"$(systemctl is-enabled xschedd 2>&1)" "$(systemctl status xschedd 2>&1)"

	status=$(systemctl status --no-pager xschedd 2>&1)
	grep -q 'Active: active (running)' <<<"$status" &&
		grep -q 'Status: "publishing every 10 ms' <<<"$status"
	result $((!$?)) "systemctl status: active, Status: publishing every 10 ms (READY=1)" \
		"$status"

	journal=$(journalctl -b -u xschedd --no-pager 2>&1)
	grep -q 'xschedd: publishing /run/xsched/state every 10 ms' <<<"$journal"
	result $((!$?)) "the journal has xschedd's start-up line" "$journal"
	sed -n 's/.*xschedd: \(publishing.*\)/\1/p' <<<"$journal" | head -n 1 >"$out/mode.txt"

	json=$(xsched-top --json -n 1 2>&1)
	# BPF mode: Debian 12's kernel (6.1, BTF) loads the programs.
	grep -q '"daemon":{"mode":"BPF","pid":[1-9]' <<<"$json" &&
		grep -q '"fresh":true,"tick_ms":10.0' <<<"$json"
	result $((!$?)) "xsched-top --json sees the daemon in BPF mode, fresh, tick 10 ms" "$json"

	# An unmodified OpenMP program, through xsched-run; without it the
	# program keeps gcc's libgomp.
	gcc -fopenmp -O2 -o "$tmp/omp" "$share/src/omp-tasks.c" 2>"$tmp/cc"
	o=$(xsched-run -n 3 --stats "$tmp/omp" 2>"$tmp/err")
	[[ $o == "team 3 sum 499500" ]] && grep -q '^total' "$tmp/err"
	result $((!$?)) "gcc -fopenmp program through xsched-run: team 3, right sum, xsched's counters" \
		"$o" "$(cat "$tmp/cc" "$tmp/err")"
	lib=$(ldd "$tmp/omp" | sed -n 's/.*libgomp.so.1 => \([^ ]*\).*/\1/p')
	[[ $lib == /lib/x86_64-linux-gnu/libgomp.so.1 || $lib == /usr/lib/x86_64-linux-gnu/libgomp.so.1 ]]
	result $((!$?)) "without xsched-run the program loads gcc's libgomp ($lib)"

	# Built with pkg-config against libxsched-dev; registers with the
	# service's daemon (XSCHED_DAEMON=required fails without one).
	gcc -o "$tmp/fib" "$share/src/fib.c" $(pkg-config --cflags --libs xsched) 2>"$tmp/cc"
	o=$(XSCHED_DAEMON=required "$tmp/fib" 22 2>&1)
	[[ $o == "fib(22) = 17711 on 2 workers" ]]
	result $((!$?)) "pkg-config-built program runs on the service (XSCHED_DAEMON=required)" \
		"$o" "$(cat "$tmp/cc")"

	# Reload after an edit of /etc/default/xschedd.
	echo "XSCHEDD_TICK_MS=25" >>/etc/default/xschedd
	systemctl reload xschedd
	wait_for 10 tick_is 25.0
	result $((!$?)) "systemctl reload after XSCHEDD_TICK_MS=25: the new tick is published" \
		"$(xsched-top --json -n 1)" "$(journalctl -b -u xschedd --no-pager | tail -n 5)"
	status=$(systemctl status --no-pager xschedd 2>&1)
	grep -q 'Status: "publishing every 25 ms' <<<"$status"
	result $((!$?)) "systemctl status shows the reloaded tick" "$status"

	# A bad value: restart fails, the journal names it, no restart loop.
	sed -i 's/^XSCHEDD_TICK_MS=25$/XSCHEDD_TICK_MS=fast/' /etc/default/xschedd
	systemctl restart xschedd 2>"$tmp/err"
	rc=$?
	sleep 3
	journal=$(journalctl -b -u xschedd --no-pager 2>&1)
	# one property a call: --value prints them in systemd's order, not ours
	state="$(systemctl show -p ActiveState --value xschedd) $(systemctl show -p NRestarts --value xschedd)"
	((rc != 0)) && grep -q '/etc/default/xschedd:[0-9]*: XSCHEDD_TICK_MS="fast" is invalid: expected 1..1000' <<<"$journal" &&
		[[ $state == "failed 0" ]]
	result $((!$?)) "a bad value: systemctl restart fails, the journal names it, no restart" \
		"restart: $(describe $rc) $(cat "$tmp/err")" "state, restarts: $state" \
		"$(tail -n 8 <<<"$journal")"
	sed -i '/^XSCHEDD_TICK_MS=fast$/d' /etc/default/xschedd
	systemctl reset-failed xschedd
	systemctl start xschedd
	wait_for 10 tick_is 10.0
	result $((!$?)) "fixed file: xschedd starts again with tick 10 ms"

	# A client runs while the service stops: then nothing is left.
	XSCHED_DAEMON=required "$tmp/fib" 27 >/dev/null 2>&1 &
	client=$!
	systemctl stop xschedd
	wait "$client"
	left=$(ls -A /run/xsched 2>/dev/null; pgrep -x xschedd; ls /dev/shm | grep xsched)
	[[ ! -e /run/xsched && -z $left ]] && ! systemctl is-active -q xschedd
	result $((!$?)) "systemctl stop: no process, no /run/xsched, no statistics page left" \
		"left: $left"
	systemctl start xschedd
fi

# The NUMA tests against this kernel's view (BPF mode where the daemon
# tests start their own daemon, the service stopped so they own the CPUs).
# They run from the guest's own disk, not from the 9p share. Each gets its
# share of the time this boot has left (xs.limit=, from the host, less 30 s
# to power off), time a quicker test leaves going to the ones after it: a
# test that hangs is reported with its log while the others still run.
# Its name goes to the console first, which the host shows every tick, and
# its output straight to the share, which the host prints if the boot ends
# before the test does.
# Readable by all: some tests run the daemon as nobody.
systemctl stop xschedd 2>/dev/null
build=/var/lib/xsched-check/build
mkdir -p -m 0755 /var/lib/xsched-check "$build" "$build/tests"
cp "$share"/build/tests/* "$build/tests/"
cp "$share/build/xschedd" "$build/" 2>/dev/null
export XS_BUILDDIR=$build XS_SRCDIR=$share
limit=$(sed -n 's/.*xs\.limit=\([0-9]*\).*/\1/p' /proc/cmdline)

# run_test PATH LOG SECONDS: the test, its output in LOG; when it outlives
# SECONDS, where each of its processes and daemons waits goes to LOG
# first, then it is killed. Returns its exit status (124: timed out).
run_test() {
	local t=$1 log=$2 secs=$3 pid end
	setsid "$t" >"$log" 2>&1 &
	pid=$!
	end=$((SECONDS + secs))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		{
			echo "# timed out after $secs s; its processes (pid, state, where they wait):"
			for p in $(pgrep -s "$pid") $(pgrep -x xschedd); do
				echo "# $(ps -o pid=,stat=,wchan:32=,args= -p "$p" | cut -c1-150)"
				ps -L -o tid=,stat=,wchan:32=,comm= -p "$p" | sed 's/^/#   thread /'
				sed 's/^/#   /' "/proc/$p/stack" 2>/dev/null | head -n 12
			done
			for f in /tmp/xschedd-test-*/log; do
				[[ -f $f ]] || continue
				echo "# the daemon's log $f:"
				tail -n 15 "$f" | sed 's/^/#   /'
			done
		} >>"$log"
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		rm -rf /tmp/xschedd-test-*
		return 124
	fi
	wait "$pid"
}

tests=("$build"/tests/*)
for ((i = 0; i < ${#tests[@]}; i++)); do
	t=${tests[i]}
	name=${t##*/}
	log=$out/$mode.$name.log
	again=
	for try in 1 2; do
		up=$(cut -d. -f1 /proc/uptime)
		each=$(((${limit:-1200} - 30 - up) / (${#tests[@]} - i)))
		((each > 600)) && each=600
		((each < 10)) && each=10
		echo "xsched-guest: $name (at most $each s)" >/dev/console
		run_test "$t" "$log" "$each"
		rc=$?
		# A daemon a killed test left behind would hold the CPUs and
		# BPF programs of the tests after it.
		stray=$(pgrep -x xschedd)
		[[ -n $stray ]] && { pkill -KILL -x xschedd; echo "# killed a stray xschedd: $stray" >>"$log"; }
		# Under emulation (xs.scale > 1) the host may starve the guest
		# for minutes: a test that timed out runs once more, and its
		# line says so, the first run's log kept beside it.
		((rc == 124 && try == 1 && ${XS_TEST_TIMEOUT_SCALE:-1} > 1)) || break
		mv "$log" "$out/$mode.$name.timeout.log"
		again=" (its first run timed out after $each s: $name.timeout.log)"
		echo "# $name timed out after $each s; where it waited:"
		grep -A 1000 '^# timed out' "$out/$mode.$name.timeout.log" | tail -n 60
	done
	skip=
	[[ $rc == 4 ]] && skip=" # SKIP $(grep -m1 -o 'SKIP.*' "$log")"
	summary=$(grep -m1 '# Totals' "$log")
	result $((rc == 0 || rc == 4)) "$name on $(numactl -H | head -n 1)$again$skip ${summary#*# }" \
		"$(describe $rc) (limit $each s)" "$(tail -n 40 "$log")"
done
echo "1..$n"
