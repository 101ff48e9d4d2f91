#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-mpi-bench - hybrid MPI + OpenMP programs side by side in one run
# under: gcc's libgomp, LLVM's libomp (when built), the libgomp drop-in
# (xgomp), the drop-in with OMP_DYNAMIC=true under xschedd's shares
# (xgomp-dyn), and with lending (xgomp-lend: xsched-run --mpi --lend).
# The rows alternate within each round (libgomp, libomp, xgomp, ...,
# then again), and each row's time is the best of its rounds: on a
# shared machine the fastest run is the one least disturbed. Every run is
# verified by the program; a wrong one is ERROR.
#
#   --app pils    DLB's PILS loop (pils.c): rank r runs W * (1 + r * X)
#                 OpenMP tasks of GRAIN steps, then MPI_Allreduce
#   --app jacobi  a 2-D heat stencil (jacobi.c): N x N plate, rows split
#                 in proportion to 1 + r * X, halo exchange, OpenMP loop
#
# Prints one row per runtime: time, its ratio to the best of libgomp and
# libomp, the summary's parallel efficiency, and for xgomp-lend the
# CPU-seconds lent and the time a rank spent reclaiming after its MPI call
# returned, until xschedd said the shares without the lend were published
# (median and 99th percentile over the ranks' reclaims, the worst rank).
#
#   xsched-mpi-bench [--app pils|jacobi] [--mpi openmpi|mpich] [--ranks N]
#                    [--threads T] [--iters I] [--work W] [--grain G]
#                    [--size N] [--imbalance X] [--repeat R] [--xschedd]
#                    [--xschedd-cpus C] [--timeout S]
#
# --xschedd: the xgomp-dyn and xgomp-lend rows use a private xschedd
# started here (degraded mode, this machine's topology, other work not
# counted: --share-foreign 0) instead of the one at $XSCHED_RUNTIME_DIR
# (/run/xsched). --xschedd-cpus C: that daemon divides a synthetic machine
# of C CPUs (tools/xsched-mksysfs) instead: on a machine too small for two
# ranks to have anything to lend, it makes the daemon take lends and
# republish at every RECLAIM, so that the reclaim times measure the whole
# path; its speed figures then mean nothing (the shares are advice for
# CPUs that do not exist).
set -uo pipefail

build=$(dirname "$(readlink -f "$0")")
app=pils mpi=openmpi ranks=2 threads=$(nproc) iters=20 work=64 imbalance=2 grain=20000 repeat=3
size=1024 xschedd=0 xcpus=0 timeout_s=120
while (($#)); do
	case $1 in
	--app) app=$2; shift ;;
	--mpi) mpi=$2; shift ;;
	--ranks) ranks=$2; shift ;;
	--threads) threads=$2; shift ;;
	--iters) iters=$2; shift ;;
	--work) work=$2; shift ;;
	--imbalance) imbalance=$2; shift ;;
	--grain) grain=$2; shift ;;
	--size) size=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--xschedd) xschedd=1 ;;
	--xschedd-cpus) xschedd=1 xcpus=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	-h | --help) sed -n '3,/^set /s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
	*) echo "xsched-mpi-bench: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
	shift
done
[[ $xcpus =~ ^[0-9]+$ ]] || { echo "xsched-mpi-bench: --xschedd-cpus '$xcpus': expected a number >= 1" >&2; exit 2; }
for v in ranks threads iters work grain size repeat timeout_s; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "xsched-mpi-bench: --${v%_s} '${!v}': expected a number >= 1" >&2; exit 2; }
done
[[ $imbalance =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "xsched-mpi-bench: --imbalance '$imbalance': expected a number >= 0" >&2; exit 2; }
case $mpi in openmpi | mpich) ;; *) echo "xsched-mpi-bench: --mpi '$mpi': expected openmpi or mpich" >&2; exit 2 ;; esac
case $app in
pils) args=("$iters" "$work" "$imbalance" "$grain") ;;
jacobi) args=("$iters" "$size" "$imbalance") ;;
*) echo "xsched-mpi-bench: --app '$app': expected pils or jacobi" >&2; exit 2 ;;
esac
prog=$build/bench/mpi/$mpi/$app
[[ -x $prog ]] || { echo "xsched-mpi-bench: $prog not built (make mpi)" >&2; exit 2; }

tmp=$(mktemp -d)
dp=
trap '[[ -n $dp ]] && kill $dp 2>/dev/null; rm -rf "$tmp"' EXIT
rundir=${XSCHED_RUNTIME_DIR:-/run/xsched}
if ((xschedd)); then
	[[ -x $build/xschedd ]] || { echo "xsched-mpi-bench: $build/xschedd not built" >&2; exit 2; }
	rundir=$tmp/rd
	mkdir -p "$rundir"
	sys=()
	if ((xcpus)); then
		mk=$build/../tools/xsched-mksysfs
		[[ -x $mk ]] || { echo "xsched-mpi-bench: $mk not found (--xschedd-cpus)" >&2; exit 2; }
		"$mk" --spec "1s1n${xcpus}c" "$tmp/sys" >/dev/null || exit 2
		sys=(--sysfs-root "$tmp/sys")
	fi
	"$build/xschedd" --foreground --env-file /dev/null --runtime-dir "$rundir" --bpf off \
		--share-foreign 0 "${sys[@]}" 2>"$tmp/xschedd.log" &
	dp=$!
	for _ in $(seq 100); do [[ -S $rundir/socket && -e $rundir/state ]] && break; sleep 0.1; done
	[[ -S $rundir/socket ]] || { echo "xsched-mpi-bench: xschedd did not start: $(cat "$tmp/xschedd.log")" >&2; exit 2; }
fi

# run ENV... -- PROGRAM ARGS...: one mpirun; prints the program's output.
run() {
	local args=()
	while [[ $1 != -- ]]; do
		if [[ $mpi == openmpi ]]; then args+=(-x "$1"); else args+=(-genv "${1%%=*}" "${1#*=}"); fi
		shift
	done
	shift
	if [[ $mpi == openmpi ]]; then
		timeout -k 5 "$timeout_s" mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none \
			-np "$ranks" --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
			"${args[@]}" "$@"
	else
		timeout -k 5 "$timeout_s" mpirun.mpich -np "$ranks" -bind-to none "${args[@]}" "$@"
	fi
}

rows=(libgomp)
[[ -x $prog-libomp ]] && rows+=(libomp)
rows+=(xgomp xgomp-dyn xgomp-lend)
echo "# xsched-mpi-bench: $app, $mpi, $ranks ranks x $threads threads, $iters iterations," \
	"$([[ $app == pils ]] && echo "W $work tasks of $grain steps" || echo "plate $size x $size")," \
	"imbalance $imbalance (rank r: 1 + r * $imbalance), best of $repeat alternating rounds"
echo "# xgomp-dyn/xgomp-lend daemon: $rundir$( ((xschedd)) && echo ' (private, started here)')$( ((xcpus)) && echo ", on a synthetic machine of $xcpus CPUs")"
declare -A best_t pe lent rec
for row in "${rows[@]}"; do best_t[$row]=; pe[$row]=-; lent[$row]=-; rec[$row]=-; done
for ((i = 0; i < repeat; i++)); do
	for row in "${rows[@]}"; do
		[[ ${best_t[$row]} == ERROR ]] && continue
		sum=$tmp/sum.json
		rm -f "$sum"
		common=(OMP_NUM_THREADS="$threads")
		case $row in
		libgomp) cmd=("$prog") ;;
		libomp) cmd=("$prog-libomp") ;;
		xgomp) cmd=("$build/xsched-run" --mpi --summary "$sum" "$prog") ;;
		xgomp-dyn) common+=(OMP_DYNAMIC=true XSCHED_RUNTIME_DIR="$rundir")
			cmd=("$build/xsched-run" --mpi --summary "$sum" "$prog") ;;
		xgomp-lend) common+=(OMP_DYNAMIC=true XSCHED_RUNTIME_DIR="$rundir")
			cmd=("$build/xsched-run" --mpi --lend --summary "$sum" "$prog") ;;
		esac
		out=$(run "${common[@]}" -- "${cmd[@]}" "${args[@]}" 2>"$tmp/err")
		t=$(sed -n 's/^[a-z]*: .* time \([0-9.]*\) .* ok$/\1/p' <<<"$out")
		if [[ -z $t ]]; then
			best_t[$row]=ERROR
			echo "# $row: ERROR: $(tail -n 3 "$tmp/err" | tr '\n' ' ') $out" >&2
			continue
		fi
		if [[ -z ${best_t[$row]} ]] || awk -v a="$t" -v b="${best_t[$row]}" 'BEGIN { exit !(a < b) }'; then
			best_t[$row]=$t
			if [[ -s $sum ]]; then
				pe[$row]=$(sed -n 's/.*"parallel_efficiency": \([0-9.]*\).*/\1/p' "$sum")
				lent[$row]=$(sed -n 's/^  "lent_cpu_s": \([0-9.]*\).*/\1/p' "$sum")
				rec[$row]=$(awk -F'[:,]' '/reclaim_p50_us/ {
						for (k = 1; k < NF; k++) {
							if ($k ~ /reclaim_p50_us/) p50 = $(k + 1)
							if ($k ~ /reclaim_p99_us/) p99 = $(k + 1)
						}
						if (p50 + 0 > m50) m50 = p50 + 0
						if (p99 + 0 > m99) m99 = p99 + 0 }
					END { printf "%.0f/%.0f", m50, m99 }' "$sum")
			fi
		fi
	done
done
best=
for row in libgomp libomp; do
	[[ -n ${best_t[$row]:-} && ${best_t[$row]} != ERROR ]] || continue
	[[ -z $best ]] || awk -v a="${best_t[$row]}" -v b="$best" 'BEGIN { exit !(a < b) }' && best=${best_t[$row]}
done
printf '%-11s %10s %14s %8s %10s %18s\n' runtime "time (s)" "best-of/this" PE "lent CPU-s" "reclaim p50/p99 us"
status=0
for row in "${rows[@]}"; do
	if [[ ${best_t[$row]} == ERROR || -z ${best_t[$row]} ]]; then
		printf '%-11s %10s %14s %8s\n' "$row" ERROR - -
		[[ $row == x* ]] && status=1
		continue
	fi
	ratio=$([[ -n $best ]] && awk -v b="$best" -v t="${best_t[$row]}" 'BEGIN { printf "%.2fx", b / t }' || echo -)
	printf '%-11s %10.4f %14s %8s %10s %18s\n' "$row" "${best_t[$row]}" "$ratio" "${pe[$row]}" \
		"$([[ $row == xgomp-lend ]] && echo "${lent[$row]}" || echo -)" \
		"$([[ $row == xgomp-lend ]] && echo "${rec[$row]}" || echo -)"
done
exit $status
