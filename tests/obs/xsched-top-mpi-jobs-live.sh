#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-top's job view of real ranks, end to end: an imbalanced MPI
# program (tests/mpi/imbalance, 3 ranks, rank r works 1 + r/2 times as
# long per iteration) runs with libxsched-mpi preloaded; while it runs,
# `xsched-top --json -J` shows one job of 3 ranks of 3, ranks 0, 1, 2 in
# order, each with its pid, useful + MPI time equal to its elapsed time,
# and the job's LB, CommE, PE in (0, 1] with PE = LB x CommE; after the
# run, no page of those pids is left. With XSCHED_MPI_PAGE=0 no rank
# publishes. Once per MPI.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 4

# Pids of the imbalance processes writing to $1 (our run's ranks).
our_ranks() {
	local p
	for p in $(pgrep -x imbalance); do
		grep -q "$1" "/proc/$p/cmdline" 2>/dev/null && echo "$p"
	done
}

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $build/xsched-top ]] && why="$build/xsched-top not built"
	[[ -z $why ]] && ! command -v python3 >/dev/null && why="python3 not found"
	if [[ -n $why ]]; then
		echo "ok $((n += 1)) $f: live # SKIP $why"
		echo "ok $((n += 1)) $f: XSCHED_MPI_PAGE=0 # SKIP $why"
		continue
	fi
	out=$tmp/imb-$f
	# 400 iterations of 2 to 4 ms: a few seconds, long enough to be seen.
	mpi_run "$f" 3 XSCHED_RUNTIME_DIR="$tmp/no-daemon" -- "$build/tests/mpi/$f/imbalance" \
		"$out" 400 2000 0.5 >"$tmp/run-$f.log" 2>&1 &
	run=$!
	seen=""
	for _ in $(seq 300); do
		pids=$(our_ranks "$out" | tr '\n' ' ')
		if [[ $(wc -w <<<"$pids") == 3 ]]; then
			seen=$("$build/xsched-top" --json -J -n1 --runtime-dir "$tmp/no-daemon" |
				PIDS="$pids" python3 -c '
import json, os, sys
pids = [int(p) for p in os.environ["PIDS"].split()]
for line in sys.stdin:
    for j in json.loads(line)["jobs"]:
        if len(j["ranks"]) == 3 and all(r["pid"] in pids for r in j["ranks"]):
            print(j["job"], j["ranks_total"], j["ranks_here"], j["load_balance"],
                  j["communication_efficiency"], j["parallel_efficiency"])
            for r in j["ranks"]:
                print(r["rank"], r["pid"], r["elapsed_s"], r["useful_s"], r["mpi_s"])
')
			[[ -n $seen ]] && break
		fi
		kill -0 $run 2>/dev/null || break
		sleep 0.1
	done
	wait $run
	s=$?
	left=""
	for p in $pids; do
		ls /dev/shm/xsched-stats."$p".* >/dev/null 2>&1 && left+="$p "
	done
	ok=0
	[[ $s == 0 && -n $seen && -z $left ]] && awk -v pids="$pids" '
		NR == 1 { ok = $2 == 3 && $3 == 3 && $4 > 0 && $4 <= 1 && $5 > 0 && $5 <= 1 &&
			       $6 > 0 && $6 <= 1 && ($6 - $4 * $5) ^ 2 < 1e-10; next }
		{ d = $3 - $4 - $5
		  ok = ok && $1 == NR - 2 && index(" " pids, " " $2 " ") && d * d < 1e-10 && $5 >= 0 }
		END { exit !(ok && NR == 4) }' <<<"$seen" && ok=1
	((ok)) && echo "# $f: $(head -1 <<<"$seen") (job ranks_total ranks_here LB CommE PE)"
	result $ok "$f: live: xsched-top -J shows the job's 3 ranks while they run, no page after" \
		"mpirun: $(describe $s)" "ranks' pids: '$pids'" "seen:" "$seen" \
		"pages left: '$left'" "$(cat "$tmp/run-$f.log")"

	mpi_run "$f" 3 XSCHED_RUNTIME_DIR="$tmp/no-daemon" XSCHED_MPI_PAGE=0 -- \
		"$build/tests/mpi/$f/imbalance" "$out-off" 400 2000 0.5 >"$tmp/off-$f.log" 2>&1 &
	run=$!
	published=""
	seen_pids=""
	# Every 0.1 s while it runs: a rank's pages, if it had one.
	while kill -0 $run 2>/dev/null; do
		pids=$(our_ranks "$out-off" | tr '\n' ' ')
		[[ -n $pids ]] && seen_pids=$pids
		for p in $pids; do
			ls /dev/shm/xsched-stats."$p".* >/dev/null 2>&1 && published+="$p "
		done
		sleep 0.1
	done
	pids=$seen_pids
	wait $run
	s=$?
	ok=0
	[[ $s == 0 && -n $pids && -z $published ]] && ok=1
	result $ok "$f: XSCHED_MPI_PAGE=0: no rank publishes" "mpirun: $(describe $s)" \
		"ranks' pids: '$pids'" "published: '$published'" "$(cat "$tmp/off-$f.log")"
done
exit $failed
