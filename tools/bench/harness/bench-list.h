/* SPDX-License-Identifier: MIT */
/*
 * bench-list.h - the programs, in the order they run and are reported.
 *
 * Adding a program is one line here (plus its files, see bench.h, and their
 * lines in Kbuild). Both xsched-bench and xsched-bench-omp build their
 * tables from this list:
 *   xsched-bench      uses bench_<name>      (struct bench, <name>.c)
 *   xsched-bench-omp  uses bench_omp_<name>  (struct bench_omp, <name>_omp.c)
 */
BENCH(fib)
BENCH(nqueens)
BENCH(uts)
BENCH(sort)
BENCH(floorplan)
BENCH(health)
BENCH(strassen)
BENCH(fft)
BENCH(sparselu)
BENCH(alignment)
BENCH(knapsack)
BENCH(loops)
/* The cut-off versions (cutoff.h): OpenMP only. */
BENCH(fib_if0)
BENCH(fib_final)
BENCH(fib_manual)
BENCH(nqueens_if0)
BENCH(nqueens_final)
BENCH(nqueens_manual)
BENCH(floorplan_if0)
BENCH(floorplan_final)
BENCH(floorplan_manual)
/* fib in Lace's shape (fib_lace.h): spawn one call, call the other. */
BENCH(fib_lace)
