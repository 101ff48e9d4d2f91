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

"$build/xsched-bench" "$@"
