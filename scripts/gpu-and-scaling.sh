#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The checks that need a machine this project's CI does not have: the GPU
# tests and benchmarks (a CUDA device) and the scaling runs (many cores).
#
#     scripts/gpu-and-scaling.sh [BUILD [OUT]]      (defaults: build, .)
#
# Runs, in this order, each step under its own time limit so that a slow
# step costs only itself and what finished is kept:
#   1. the machine: CPUs, NUMA nodes, GPU (machine.txt);
#   2. the GPU tests, BUILD/tests/cuda-* (gpu-tests.tap);
#   3. xsched-spmv-bench on Debian's r-cran-matrix files and on RMAT,
#      xsched-sync-bench at three server sizes (gpu-bench.txt);
#   4. xsched-bench: the task programs at 1 to all CPUs under xsched and the
#      drop-in, the peers at all CPUs, the loops row at every thread count
#      and --micro (scaling.txt).
# Every step writes as it goes; the exit status is that of the GPU tests.
# Environment: XS_STEP_LIMIT_S scales every step's limit (default 1.0),
# XS_LIBOMP names LLVM's libomp for the bench.
set -uo pipefail

build=${1:-build}
out=${2:-.}
scale=${XS_STEP_LIMIT_S:-1.0}
mkdir -p "$out" || exit 2
[[ -x $build/xsched-bench ]] || { echo "$0: $build/xsched-bench: not built" >&2; exit 2; }

limit() { awk -v s="$scale" -v t="$1" 'BEGIN { printf "%d", s * t + 0.5 }'; }
step() {	# step SECONDS FILE COMMAND...: run, append output to FILE
	local t=$1 f=$2 rc
	shift 2
	echo "## $* (limit $(limit "$t") s, $(date -u +%T))" >>"$f"
	timeout --kill-after=5 "$(limit "$t")" stdbuf -oL "$@" >>"$f" 2>&1
	rc=$?
	echo "## exit $rc" >>"$f"
	return $rc
}

cpus=$(nproc)
threads=1
for t in 2 4 8 16 32 64 128 256; do
	((t < cpus)) && threads+=",$t"
done
((cpus > 1)) && threads+=",$cpus"

{
	echo "date $(date -u +%FT%TZ)"
	echo "cpus $cpus, threads $threads"
	uname -a
	lscpu 2>/dev/null | grep -E 'Model name|Socket|Core|Thread|NUMA|L3'
	nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm \
		--format=csv 2>&1
} >"$out/machine.txt"

gpu_rc=0
: >"$out/gpu-tests.tap"
for t in "$build"/tests/cuda-*; do
	[[ -x $t && $t != *.d ]] || continue
	XS_BUILDDIR=$build step 60 "$out/gpu-tests.tap" "$t" || {
		rc=$?
		((rc == 4)) || gpu_rc=1	# kselftest: 4 is a skip
	}
done

: >"$out/gpu-bench.txt"
mtx=/usr/lib/R/library/Matrix/external
files=()
for m in jgl009 lund_a pores_1; do
	[[ -r $mtx/$m.mtx ]] && files+=("$mtx/$m.mtx")
done
((${#files[@]})) && step 40 "$out/gpu-bench.txt" "$build/xsched-spmv-bench" -r 50 "${files[@]}"
step 80 "$out/gpu-bench.txt" "$build/xsched-spmv-bench" -r 50
for s in 1 8 32; do
	step 20 "$out/gpu-bench.txt" "$build/xsched-sync-bench" -s "$s"
done

: >"$out/scaling.txt"
libomp=(${XS_LIBOMP:+--libomp "$XS_LIBOMP"})
micro_threads=1,2
((cpus > 2)) && micro_threads+=",$cpus"
programs=fib,nqueens,uts,sort,floorplan,strassen,alignment,health,fib-lace
step 150 "$out/scaling.txt" "$build/xsched-bench" "${libomp[@]}" \
	--only "$programs" --runtime xsched,xgomp --threads "$threads" \
	--repeat 3 --budget 2 --timeout 10
step 90 "$out/scaling.txt" "$build/xsched-bench" "${libomp[@]}" \
	--only "$programs" --runtime tbb,libgomp,libomp --threads "$cpus" \
	--repeat 3 --budget 2 --timeout 5
step 60 "$out/scaling.txt" "$build/xsched-bench" "${libomp[@]}" \
	--only loops --threads "$threads" --n loops=20000 --repeat 5 --rounds 3 \
	--budget 2 --timeout 20
step 50 "$out/scaling.txt" "$build/xsched-bench" "${libomp[@]}" \
	--micro --threads "$micro_threads" --iters 20000 --repeat 3
exit $gpu_rc
