#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-mpi-bench - the imbalanced hybrid loop (pils.c: rank r runs
# W * (1 + r * IMBALANCE) OpenMP tasks, then MPI_Allreduce), side by side
# in one run under: gcc's libgomp, LLVM's libomp (when built), the libgomp
# drop-in (xgomp), the drop-in with OMP_DYNAMIC=true under xschedd's shares
# (xgomp-dyn), and with lending (xgomp-lend: xsched-run --mpi --lend).
# Every run's checksum is verified by the program; a wrong one is ERROR.
# Prints one row per runtime: the median time of --repeat runs, its ratio
# to the best of libgomp and libomp, and the parallel efficiency of
# libxsched-mpi's summary (xsched rows).
#
#   xsched-mpi-bench [--mpi openmpi|mpich] [--ranks N] [--threads T]
#                    [--iters I] [--work W] [--imbalance X] [--grain G]
#                    [--repeat R] [--standin] [--timeout S]
#
# --standin: the xgomp-dyn and xgomp-lend rows run on the lending stand-in
# (tests/mpi-lend-standin shares=nproc, docs/mpi.md) instead of the xschedd
# at $XSCHED_RUNTIME_DIR (/run/xsched), whose ABI 3 refuses lends.
set -uo pipefail

build=$(dirname "$(readlink -f "$0")")
mpi=openmpi ranks=2 threads=$(nproc) iters=20 work=64 imbalance=2 grain=20000 repeat=3
standin=0 timeout_s=120
while (($#)); do
	case $1 in
	--mpi) mpi=$2; shift ;;
	--ranks) ranks=$2; shift ;;
	--threads) threads=$2; shift ;;
	--iters) iters=$2; shift ;;
	--work) work=$2; shift ;;
	--imbalance) imbalance=$2; shift ;;
	--grain) grain=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--standin) standin=1 ;;
	--timeout) timeout_s=$2; shift ;;
	-h | --help) sed -n '3,/^set /s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
	*) echo "xsched-mpi-bench: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
	shift
done
for v in ranks threads iters work grain repeat timeout_s; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "xsched-mpi-bench: --${v%_s} '${!v}': expected a number >= 1" >&2; exit 2; }
done
[[ $imbalance =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "xsched-mpi-bench: --imbalance '$imbalance': expected a number >= 0" >&2; exit 2; }
case $mpi in openmpi | mpich) ;; *) echo "xsched-mpi-bench: --mpi '$mpi': expected openmpi or mpich" >&2; exit 2 ;; esac
pils=$build/bench/mpi/$mpi/pils
[[ -x $pils ]] || { echo "xsched-mpi-bench: $pils not built (make mpi)" >&2; exit 2; }

tmp=$(mktemp -d)
sp=
trap '[[ -n $sp ]] && kill $sp 2>/dev/null; rm -rf "$tmp"' EXIT
rundir=${XSCHED_RUNTIME_DIR:-/run/xsched}
if ((standin)); then
	rundir=$tmp/rd
	mkdir -p "$rundir"
	"$build/tests/mpi-lend-standin" "$rundir" "$tmp/standin.log" 100000 "shares=$(nproc)" &
	sp=$!
	for _ in $(seq 50); do [[ -S $rundir/socket ]] && break; sleep 0.1; done
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
[[ -x $build/bench/mpi/$mpi/pils-libomp ]] && rows+=(libomp)
rows+=(xgomp xgomp-dyn xgomp-lend)
echo "# xsched-mpi-bench: $mpi, $ranks ranks x $threads threads, $iters iterations," \
	"W $work tasks of $grain steps, imbalance $imbalance (rank r: W*(1+r*$imbalance)), median of $repeat"
echo "# xgomp-dyn/xgomp-lend daemon: $rundir$( ((standin)) && echo ' (the lending stand-in)')"
declare -A med pe
for row in "${rows[@]}"; do
	times=() pe[$row]=-
	for ((i = 0; i < repeat; i++)); do
		sum=$tmp/sum.json
		rm -f "$sum"
		common=(OMP_NUM_THREADS="$threads")
		case $row in
		libgomp) cmd=("$pils") ;;
		libomp) cmd=("$build/bench/mpi/$mpi/pils-libomp") ;;
		xgomp) cmd=("$build/xsched-run" --mpi --summary "$sum" "$pils") ;;
		xgomp-dyn) common+=(OMP_DYNAMIC=true XSCHED_RUNTIME_DIR="$rundir")
			cmd=("$build/xsched-run" --mpi --summary "$sum" "$pils") ;;
		xgomp-lend) common+=(OMP_DYNAMIC=true XSCHED_RUNTIME_DIR="$rundir")
			cmd=("$build/xsched-run" --mpi --lend --summary "$sum" "$pils") ;;
		esac
		out=$(run "${common[@]}" -- "${cmd[@]}" "$iters" "$work" "$imbalance" "$grain" 2>"$tmp/err")
		t=$(sed -n 's/^pils: .* time \([0-9.]*\) checksum [0-9]* ok$/\1/p' <<<"$out")
		if [[ -z $t ]]; then
			times=()
			echo "# $row: ERROR: $(tail -n 3 "$tmp/err" | tr '\n' ' ') $out" >&2
			break
		fi
		times+=("$t")
		[[ -s $sum ]] && pe[$row]=$(sed -n 's/.*"parallel_efficiency": \([0-9.]*\).*/\1/p' "$sum")
	done
	if ((${#times[@]})); then
		med[$row]=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	else
		med[$row]=ERROR
	fi
done
best=
for row in libgomp libomp; do
	[[ ${med[$row]:-ERROR} != ERROR ]] || continue
	[[ -z $best ]] || awk -v a="${med[$row]}" -v b="$best" 'BEGIN { exit !(a < b) }' && best=${med[$row]}
done
printf '%-11s %10s %14s %8s\n' runtime "time (s)" "best-of/this" PE
status=0
for row in "${rows[@]}"; do
	if [[ ${med[$row]} == ERROR ]]; then
		printf '%-11s %10s %14s %8s\n' "$row" ERROR - -
		[[ $row == x* ]] && status=1
		continue
	fi
	ratio=$([[ -n $best ]] && awk -v b="$best" -v t="${med[$row]}" 'BEGIN { printf "%.2fx", b / t }' || echo -)
	printf '%-11s %10.4f %14s %8s\n' "$row" "${med[$row]}" "$ratio" "${pe[$row]}"
done
if ((standin)); then
	echo "# lends seen by the stand-in: $(grep -c ' LEND ' "$tmp/standin.log")"
fi
exit $status
