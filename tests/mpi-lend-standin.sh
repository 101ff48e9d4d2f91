#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The library side of lending (XSCHED_MPI_LEND=1, docs/mpi.md) against a
# stand-in for the daemon side (tests/mpi-lend-standin.c), once per MPI:
#   - an imbalanced program: the waiting ranks lend their CPUs but one
#     (nproc - 1 offered), every lend is reclaimed by the same rank before
#     its next lend and before it exits, and the summary counts exactly
#     the lends the daemon saw;
#   - a daemon of ABI 3 (LEND answered with an error): one line says the
#     daemon does not take lends, results stay right, no lend is counted;
#   - a rank killed while it has CPUs on loan: the lease ends with its
#     connection (the stand-in sees the close with the CPUs still lent).
# And against the real xschedd of today (ABI 3, degraded mode, its own
# runtime directory), once: it refuses the first lend and closes; the rank
# says so once and its results stay right.
# xs-test-timeout: 400
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 7

standin=$build/tests/mpi-lend-standin
cpus=$(nproc)

# LOG PID-OF-RANK... : every LEND of a pid is reclaimed before the pid's
# next LEND and before its CLOSE, which returns nothing; prints problems.
check_log() {
	awk -v want="$((cpus - 1))" '
		$3 == "LEND" { if (lent[$2]) print "pid " $2 ": a second LEND before a RECLAIM"
			       if ($4 != want) print "pid " $2 ": offered " $4 " CPUs, not " want
			       lent[$2] = 1; lends[$2]++ }
		$3 == "RECLAIM" { if (!lent[$2]) print "pid " $2 ": RECLAIM without a LEND"
				  lent[$2] = 0 }
		$3 == "CLOSE" { if ($4 != 0 || lent[$2]) print "pid " $2 ": closed with CPUs lent"
				closed[$2] = 1 }
		END { for (p in lends) if (!closed[p]) print "pid " p ": never closed" }' "$1"
}

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $standin ]] && why="$standin not built (make tests)"
	[[ -z $why ]] && ((cpus < 2)) && why="$cpus CPU: a rank keeps one, nothing to lend"
	[[ -z $why ]] && ! command -v python3 >/dev/null && why="python3 not found (it reads the JSON)"
	if [[ -n $why ]]; then
		for c in lends abi3 killed; do
			echo "ok $((n += 1)) $f $c # SKIP $why"
		done
		continue
	fi
	prog=$build/tests/mpi/$f/imbalance

	# 1. Lends and reclaims, counted alike by the library and the daemon.
	mkdir -p "$tmp/rd-$f"
	"$standin" "$tmp/rd-$f" "$tmp/log-$f" 120 &
	sp=$!
	for _ in $(seq 50); do [[ -S $tmp/rd-$f/socket ]] && break; sleep 0.1; done
	rm -f "$tmp"/sum.json
	out=$(mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$tmp/rd-$f" \
		XSCHED_MPI_SPIN_US=100 XSCHED_MPI_SUMMARY="$tmp/sum.json" -- \
		"$prog" "$tmp/own" 20 2000 1 mixed 2>&1)
	s=$?
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	probs=$(check_log "$tmp/log-$f")
	seen=$(awk '$3 == "LEND" { c[$2]++ } END { for (p in c) print p, c[p] }' "$tmp/log-$f" | sort)
	counted=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))
for r in s["per_rank"]:
    if r["lends"]: print(r["pid"], r["lends"])
print("lent_cpu_s", s["lent_cpu_s"], "time in reclaim p99/max us:",
      " ".join("%.0f/%.0f" % (r["reclaim_p99_us"], r["reclaim_max_us"]) for r in s["per_rank"]),
      file=sys.stderr)' "$tmp/sum.json" 2>"$tmp/lent" | sort)
	total=$(awk '{print $1}' <<<"$seen" | grep -c .)
	ok=0
	[[ $s == 0 && -z $probs && -n $seen && $seen == "$counted" ]] && ok=1
	((ok)) && echo "# $f: lends per pid: $(tr '\n' ' ' <<<"$seen"); $(cat "$tmp/lent")"
	result $ok "$f: waiting ranks lend nproc-1 CPUs and reclaim each lend" \
		"mpirun: $(describe $s)" "$probs" "daemon saw (pid lends): $seen" \
		"summary counted: $counted ($total pids)" "$out" "$(cat "$tmp/log-$f")"

	# 2. A daemon of ABI 3 refuses the first lend: lending stops, said once.
	"$standin" "$tmp/rd-$f" "$tmp/log3-$f" 120 abi3 &
	sp=$!
	for _ in $(seq 50); do [[ -S $tmp/rd-$f/socket ]] && break; sleep 0.1; done
	rm -f "$tmp"/sum.json
	out=$(mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$tmp/rd-$f" \
		XSCHED_MPI_SPIN_US=100 XSCHED_MPI_SUMMARY="$tmp/sum.json" -- \
		"$prog" "$tmp/own" 10 2000 1 mixed 2>&1)
	s=$?
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	said=$(grep -c 'does not take lends (ABI 3' <<<"$out")
	lends=$(python3 -c 'import json,sys; print(sum(r["lends"] for r in json.load(open(sys.argv[1]))["per_rank"]))' "$tmp/sum.json" 2>&1)
	result $((s == 0 && said == 1 && lends == 0)) \
		"$f: an ABI 3 daemon refuses lends: said once, results right, none counted" \
		"mpirun: $(describe $s), said $said times, $lends lends counted" "$out" \
		"$(cat "$tmp/log3-$f")"

	# 3. A rank killed mid-lend: its lease ends with its connection.
	"$standin" "$tmp/rd-$f" "$tmp/logk-$f" 120 &
	sp=$!
	for _ in $(seq 50); do [[ -S $tmp/rd-$f/socket ]] && break; sleep 0.1; done
	started=$SECONDS
	mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$tmp/rd-$f" -- \
		"$prog" "$tmp/own" 30 0 0 stuck >"$tmp/outk" 2>&1 &
	mp=$!
	victim=
	for _ in $(seq 100); do
		victim=$(awk '$3 == "LEND" { print $2; exit }' "$tmp/logk-$f")
		[[ -n $victim ]] && break
		sleep 0.1
	done
	[[ -n $victim ]] && kill -KILL "$victim"
	wait "$mp"
	ms=$? took=$((SECONDS - started))
	for _ in $(seq 50); do grep -q "^[0-9]* $victim CLOSE" "$tmp/logk-$f" && break; sleep 0.1; done
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	closed=$(awk -v p="$victim" '$2 == p && $3 == "CLOSE" { print $4 }' "$tmp/logk-$f")
	ok=0
	# mpirun's own status reports the killed rank (Open MPI: 137, its
	# SIGKILL); what matters is that the job ended, long before the
	# other rank's 30 s sleep or the time limit.
	[[ -n $victim && -n $closed && $closed -gt 0 ]] && ((took < 25)) && ok=1
	result $ok "$f: a rank killed mid-lend ends its lease by closing, the job ends" \
		"mpirun: $(describe $ms) after ${took}s" \
		"victim pid '$victim', CPUs on loan at its close: '${closed}'" "$(cat "$tmp/outk")" \
		"$(cat "$tmp/logk-$f")"
done
# The real xschedd (ABI 3): lending refused, said once, nothing else changes.
why=$(mpi_skip_why openmpi)
[[ -z $why && ! -x $build/xschedd ]] && why="$build/xschedd not built"
[[ -z $why ]] && (($(nproc) < 2)) && why="1 CPU: a rank keeps one, nothing to lend"
if [[ -n $why ]]; then
	echo "ok $((n += 1)) the real xschedd refuses lends # SKIP $why"
else
	mkdir -p "$tmp/xd"
	"$build/xschedd" --foreground --runtime-dir "$tmp/xd" --bpf off >"$tmp/xd.log" 2>&1 &
	dp=$!
	for _ in $(seq 50); do [[ -S $tmp/xd/socket && -e $tmp/xd/state ]] && break; sleep 0.1; done
	rm -f "$tmp"/sum.json
	out=$(mpi_run openmpi 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$tmp/xd" \
		XSCHED_MPI_SUMMARY="$tmp/sum.json" -- "$build/tests/mpi/openmpi/imbalance" \
		"$tmp/own" 10 2000 1 mixed 2>&1)
	s=$?
	kill "$dp" 2>/dev/null
	wait "$dp" 2>/dev/null
	said=$(grep -c 'it does not take lends (ABI 3\|does not take lends (ABI 3' <<<"$out")
	lends=$(python3 -c 'import json,sys; print(sum(r["lends"] for r in json.load(open(sys.argv[1]))["per_rank"]))' "$tmp/sum.json" 2>&1)
	result $((s == 0 && said == 1 && lends == 0)) \
		"the real xschedd (ABI 3) refuses lends: said once, results right, none counted" \
		"mpirun: $(describe $s), said $said times, $lends lends counted" "$out" "$(cat "$tmp/xd.log")"
fi
exit $failed
