#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# soak.sh - the long run of issue #19 (make soak; not in CI).
#
#   SOAK_TASKS=N SOAK_OMP_REGIONS=M tests/soak/soak.sh [BUILD]
#
# 1. build/soak/soak (tests/soak/soak.c) runs random spawn trees with
#    checksums and continuations at 1..8 workers until N tasks ran (default
#    10^9), 10^7 a round (SOAK_ROUND_TASKS), with a pinned CPU hog; its
#    per-round lines (tasks, RSS, fds) stay in BUILD/soak/soak.out.
#    Meanwhile this script stops and resumes
#    it (SIGSTOP/SIGCONT) every 2 s and, when xschedd is built and we are
#    root, kills xschedd (SIGKILL) and starts it again every 3 s in the
#    runtime directory the soak uses. No progress line for 300 s is a hang.
# 2. M short OpenMP regions (default 10^6) of tests/soak/omp-regions.c,
#    compiled by gcc -fopenmp and run on the drop-in (BUILD/gomp).
# Reports tasks lost, hangs, RSS and fd growth; exits non-zero on any loss
# or hang.
set -uo pipefail

build=${1:-build}
tasks=${SOAK_TASKS:-1000000000}
regions=${SOAK_OMP_REGIONS:-1000000}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[[ -f $tmp/xschedd.pid ]] && kill -9 "$(cat "$tmp/xschedd.pid")" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
rt=$tmp/rt
mkdir -p "$rt"
hangs=0 failed=0

# xschedd, killed and restarted every 3 s
if [[ -x $build/xschedd && $EUID == 0 ]]; then
	(
		while :; do
			"$build/xschedd" --foreground --env-file /dev/null --runtime-dir "$rt" \
				2>>"$tmp/xschedd.log" &
			echo $! >"$tmp/xschedd.pid"
			sleep 3
			kill -9 "$(cat "$tmp/xschedd.pid")" 2>/dev/null
			wait "$(cat "$tmp/xschedd.pid")" 2>/dev/null
		done
	) &
	pids+=($!)
	echo "soak: xschedd restarted every 3 s in $rt"
else
	echo "soak: no xschedd restarts (not built, or not root)"
fi

start=$(date +%s)
XSCHED_RUNTIME_DIR=$rt XSCHED_DAEMON=auto SOAK_TASKS=$tasks "$build/soak/soak" >"$tmp/soak.out" 2>"$tmp/soak.err" &
soak=$!
stops=0 last=0 seen=0
while kill -0 "$soak" 2>/dev/null; do
	sleep 2
	kill -STOP "$soak" 2>/dev/null && stops=$((stops + 1))
	sleep 0.2
	kill -CONT "$soak" 2>/dev/null
	lines=$(wc -l <"$tmp/soak.out")
	now=$(date +%s)
	if ((lines != seen)); then
		seen=$lines last=$now
	elif ((last && now - last > 300)) || ((!last && now - start > 300)); then
		echo "soak: HANG: no progress for 300 s; last: $(tail -1 "$tmp/soak.out")"
		hangs=$((hangs + 1))
		kill -9 "$soak"
		break
	fi
done
wait "$soak"
rc=$?
cp "$tmp/soak.out" "$build/soak/soak.out"
((rc)) && failed=1
echo "soak: $(tail -1 "$tmp/soak.out") (exit $rc, $stops SIGSTOP/SIGCONT, $(($(date +%s) - start)) s)"
grep -v '^xsched: xschedd' "$tmp/soak.err" | tail -5

if command -v gcc >/dev/null && [[ -e $build/gomp/libgomp.so.1 ]]; then
	gcc -O2 -fopenmp -o "$tmp/omp-regions" "$(dirname "$0")/omp-regions.c"
	t0=$(date +%s)
	LD_LIBRARY_PATH=$build/gomp OMP_NUM_THREADS=${SOAK_OMP_THREADS:-4} \
		timeout 3600 "$tmp/omp-regions" "$regions"
	rc=$?
	((rc == 124)) && hangs=$((hangs + 1))
	((rc)) && failed=1
	echo "soak: omp-regions exit $rc in $(($(date +%s) - t0)) s"
else
	echo "soak: no drop-in in $build/gomp: OpenMP regions skipped"
fi
echo "soak: hangs $hangs"
((hangs)) && failed=1
exit $failed
