# SPDX-License-Identifier: MIT
# Sourced by the tests of libxsched-mpi (libxsched/mpi/, docs/mpi.md).
#
#   mpi_begin PLAN         TAP header; under SANITIZE one skip and exit
#                          (mpi.mk builds nothing there)
#   mpi_skip_why FLAVOUR   why FLAVOUR cannot run here ("" when it can)
#   mpi_run FLAVOUR NP VAR=VALUE... -- PROGRAM ARGS...
#                          PROGRAM on NP ranks of one node through that
#                          MPI's mpirun, with libxsched-mpi preloaded into
#                          the ranks only and each VAR=VALUE set for them;
#                          never longer than $mpi_timeout seconds;
#                          mpi_preload=0 mpi_run ...: nothing preloaded
#   mpi_xschedd DIR CPUS [OPTION...]
#                          start a private xschedd (degraded mode, no
#                          privilege) with runtime directory DIR on a
#                          synthetic machine of CPUS CPUs (its shares are
#                          advice: a 2-CPU box can divide 4), other work
#                          not counted; sets xd_pid, its log in DIR.log;
#                          returns non-zero if it did not come up
#   mpi_xschedd_stop       stop it; non-zero if it had died or exits badly
# Sets: src, build, tmp (removed at exit), n/failed and result (tap.sh).
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
mpi_timeout=${MPI_TEST_TIMEOUT:-60}
. "$src/scripts/tap.sh"
unset LD_PRELOAD XSCHED_MPI_SUMMARY XSCHED_MPI_LEND XSCHED_MPI_SPIN_US XSCHED_MPI_TEST_SPIN \
	XSCHED_MPI_KEEP XSCHED_MPI_VERBOSE XSCHED_MPI_PAGE

mpi_begin() {
	echo "TAP version 13"
	if [[ -n ${SANITIZE:-} ]]; then
		echo "1..1"
		echo "ok 1 $(basename "$0" .sh) # SKIP SANITIZE=$SANITIZE: libxsched-mpi is not built (an instrumented library cannot be preloaded into uninstrumented MPI programs)"
		exit 0
	fi
	echo "1..$1"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

mpi_skip_why() {
	local f=$1
	if ! command -v "mpirun.$f" >/dev/null; then
		echo "mpirun.$f not found (scripts/deps.sh installs it)"
	elif [[ ! -e $build/libxsched-mpi-$f.so ]]; then
		echo "$build/libxsched-mpi-$f.so not built (make mpi)"
	elif [[ ! -x $build/tests/mpi/$f/imbalance ]]; then
		echo "$build/tests/mpi/$f/imbalance not built (make tests)"
	fi
}

mpi_xschedd() {
	local dir=$1 cpus=$2
	shift 2
	rm -rf "$dir.sys"
	"$src/tools/xsched-mksysfs" --spec "1s1n${cpus}c" "$dir.sys" >/dev/null || return 1
	mkdir -p "$dir"
	"$build/xschedd" --foreground --env-file /dev/null --runtime-dir "$dir" --bpf off \
		--sysfs-root "$dir.sys" --share-foreign 0 "$@" >"$dir.log" 2>&1 &
	xd_pid=$!
	for _ in $(seq 100); do
		[[ -S $dir/socket && -e $dir/state ]] && return 0
		kill -0 "$xd_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

mpi_xschedd_stop() {
	local s=0
	kill -0 "$xd_pid" 2>/dev/null || s=1
	kill "$xd_pid" 2>/dev/null
	wait "$xd_pid" 2>/dev/null || s=1
	return $s
}

mpi_run() {
	local f=$1 np=$2 lib=$build/libxsched-mpi-$1.so args=()
	shift 2
	if [[ ${mpi_preload:-1} == 1 ]]; then
		[[ $f == openmpi ]] && args+=(-x "LD_PRELOAD=$lib") || args+=(-genv LD_PRELOAD "$lib")
	fi
	while (($#)) && [[ $1 != -- ]]; do
		if [[ $f == openmpi ]]; then
			args+=(-x "$1")
		else
			args+=(-genv "${1%%=*}" "${1#*=}")
		fi
		shift
	done
	shift
	if [[ $f == openmpi ]]; then
		# --bind-to none: a rank keeps every CPU, as a hybrid rank would.
		# Shared memory without single-copy (CMA needs ptrace rights
		# that containers often lack).
		timeout -k 5 "$mpi_timeout" mpirun.openmpi --allow-run-as-root --oversubscribe \
			--bind-to none -np "$np" --mca btl self,vader \
			--mca btl_vader_single_copy_mechanism none "${args[@]}" "$@"
	else
		timeout -k 5 "$mpi_timeout" mpirun.mpich -np "$np" -bind-to none "${args[@]}" "$@"
	fi
}
