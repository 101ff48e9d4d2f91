#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-main.sh BUILDDIR [XSCHED-BENCH ARGS...] - xsched's main job (make run).
#
# Starts xschedd when it can, runs the benchmark table with libxsched
# pointed at it, and stops what it started, whatever happens:
#
#   - an xschedd already serving /run/xsched (systemctl start xschedd) is
#     used as it is;
#   - else, as root, build/xschedd runs in the foreground on a private
#     runtime directory for the duration of the run (with BPF where the
#     kernel allows it, degraded otherwise, as its log says);
#   - else the benchmarks run on libxsched's own victim tables, and this
#     says why.
#
# With no xsched-bench arguments and XS_RUN_FULL unset (make run), it runs
# a representative subset that answers in about two minutes on a small
# machine: every program at a mid size (serial runs of ~0.05-0.3 s), every
# runtime, thread counts 1, half the CPUs and all of them, 3 runs or 1 s per
# cell. `make run FULL=1` (XS_RUN_FULL=1) runs the full table: xsched-bench's
# defaults (default sizes, 1..nproc threads, 5 runs or 10 s per cell).
# Arguments (make run BENCH_ARGS=...) are passed on as they are.
set -uo pipefail

build=${1:?usage: run-main.sh BUILDDIR [xsched-bench args...]}
shift

daemon_pid= rtdir=
stop_daemon() {
	if [[ -n $daemon_pid ]]; then
		kill -TERM "$daemon_pid" 2>/dev/null
		wait "$daemon_pid" 2>/dev/null
		echo "run-main: xschedd stopped" >&2
	fi
	[[ -n $rtdir ]] && rm -rf "$rtdir"
	daemon_pid= rtdir=
}
trap stop_daemon EXIT
trap 'exit 130' INT TERM

if [[ -S /run/xsched/socket ]]; then
	echo "run-main: using the running xschedd (/run/xsched)" >&2
	export XSCHED_RUNTIME_DIR=/run/xsched
elif ((EUID != 0)); then
	echo "run-main: xschedd not started: it needs root (CAP_BPF, CAP_PERFMON); libxsched uses its own victim tables" >&2
elif [[ ! -x $build/xschedd ]]; then
	echo "run-main: xschedd not started: $build/xschedd was not built" >&2
else
	rtdir=$(mktemp -d /tmp/xsched-run.XXXXXX)
	"$build/xschedd" --foreground --runtime-dir "$rtdir" >"$rtdir.log" 2>&1 &
	daemon_pid=$!
	for _ in $(seq 50); do
		[[ -S $rtdir/socket && -e $rtdir/state ]] && break
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [[ -S $rtdir/socket ]]; then
		echo "run-main: xschedd started on $rtdir ($(grep -m1 -o 'mode [a-z]*\|degraded\|BPF[^,]*' "$rtdir.log" || echo running))" >&2
		export XSCHED_RUNTIME_DIR=$rtdir
	else
		echo "run-main: xschedd did not start; its log:" >&2
		sed 's/^/  /' "$rtdir.log" >&2
		stop_daemon
	fi
	rm -f "$rtdir.log"
fi

if (($# == 0)) && [[ -z ${XS_RUN_FULL:-} ]]; then
	cpus=$(nproc)
	threads=$(printf '%s\n' 1 $((cpus / 2)) "$cpus" | awk '$1 > 0 && !seen[$1]++' | paste -sd,)
	# Every program at a size that takes libgomp and libomp seconds, not
	# minutes (knapsack and fib-lace at their defaults time out under both).
	sizes=fib=28,nqueens=10,uts=8000,sort=500000,floorplan=10,health=100,strassen=256,fft=18
	sizes+=,sparselu=25,alignment=16,knapsack=34,loops=20000,fib-lace=28
	sizes+=,fib-if0=28,fib-final=28,fib-manual=32,nqueens-if0=10,nqueens-final=10,nqueens-manual=10
	sizes+=,floorplan-if0=10,floorplan-final=10,floorplan-manual=10
	set -- --n "$sizes" \
		--threads "$threads" --repeat 3 --budget 1 --timeout 20
	note="run-main: this was a representative subset (mid sizes, threads $threads, 3 runs a cell); the full table: make run FULL=1"
	echo "${note/this was/running}" >&2
fi
"$build/xsched-bench" "$@"
rc=$?
[[ -n ${note:-} ]] && echo "$note" >&2
exit $rc
