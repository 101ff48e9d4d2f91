#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The library side of lending (XSCHED_MPI_LEND=1, docs/mpi.md) against a
# real xschedd (a private one: degraded mode, its own runtime directory,
# a synthetic machine of 4 CPUs, --verbose), once per MPI:
#   - an imbalanced program: the waiting ranks lend and reclaim, results
#     stay right, the summary counts lends (each one the daemon answered
#     with status 0), no rank turns lending off, and the daemon's log names
#     the ranks' lends; the daemon still runs at the end;
#   - a rank killed while it waits with a lend running: the job ends long
#     before the other rank's 30 s of work, the daemon sees the rank's
#     connection go (the lease ends with it; tests/xschedd-lend-killed-
#     lender-returns checks the shares) and still runs;
#   - an older daemon (ABI 3, which answers LEND with an error and closes:
#     tests/mpi/mpi-lend-old-xschedd.c, the one thing the real daemon can no
#     longer show): one line says the daemon does not take lends, results
#     stay right, no lend is counted.
# xs-test-timeout: 400
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 6

old=$build/tests/mpi-lend-old-xschedd

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	[[ -z $why && ! -x $build/xschedd ]] && why="$build/xschedd not built (bpftool, clang, BTF)"
	[[ -z $why && ! -x $old ]] && why="$old not built (make mpi)"
	[[ -z $why ]] && (($(nproc) < 2)) && why="1 CPU: a rank keeps one, nothing to lend"
	[[ -z $why ]] && ! command -v python3 >/dev/null && why="python3 not found (it reads the JSON)"
	if [[ -n $why ]]; then
		for c in lends killed abi3; do
			echo "ok $((n += 1)) $f $c # SKIP $why"
		done
		continue
	fi
	prog=$build/tests/mpi/$f/imbalance
	rd=$tmp/rd-$f

	# 1. Lends and reclaims through the daemon.
	if ! mpi_xschedd "$rd" 4 --verbose 1; then
		result 0 "$f: xschedd starts" "$(cat "$rd.log")"
		continue
	fi
	rm -f "$tmp"/sum.json
	out=$(mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$rd" \
		XSCHED_MPI_SPIN_US=100 XSCHED_MPI_SUMMARY="$tmp/sum.json" -- \
		"$prog" "$tmp/own" 20 2000 1 mixed 2>&1)
	s=$?
	alive=1
	mpi_xschedd_stop || alive=0
	lends=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))
print(sum(r["lends"] for r in s["per_rank"]))
print("lent_cpu_s", s["lent_cpu_s"], "time in reclaim p99/max us:",
      " ".join("%.0f/%.0f" % (r["reclaim_p99_us"], r["reclaim_max_us"]) for r in s["per_rank"]),
      file=sys.stderr)' "$tmp/sum.json" 2>"$tmp/lent")
	off=$(grep -c 'not lending' <<<"$out")
	logged=$(grep -c 'lends [0-9]* of the 1 CPU(s) offered' "$rd.log")
	ok=0
	[[ $s == 0 && $alive == 1 && $off == 0 && ${lends:-0} -gt 0 && $logged -gt 0 ]] && ok=1
	((ok)) && echo "# $f: $lends lends; $(cat "$tmp/lent")"
	result $ok "$f: waiting ranks lend to xschedd and reclaim, results right" \
		"mpirun: $(describe $s), daemon alive at the end: $alive" \
		"lends counted: '$lends', lending turned off: $off times, lends in the daemon's log: $logged" \
		"$out" "$(cat "$rd.log")"

	# 2. A rank killed mid-lend: its lease ends with its connection.
	if ! mpi_xschedd "$rd" 4 --verbose 1; then
		result 0 "$f: xschedd starts" "$(cat "$rd.log")"
		continue
	fi
	started=$SECONDS
	mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$rd" -- \
		"$prog" "$tmp/own" 30 0 0 stuck >"$tmp/outk" 2>&1 &
	mp=$!
	victim=
	for _ in $(seq 100); do
		victim=$(awk '$1 == "imbalance:" && $3 == 0 { print $5; exit }' "$tmp/outk")
		[[ -n $victim ]] && grep -q "(pid $victim): lends" "$rd.log" && break
		sleep 0.1
	done
	[[ -n $victim ]] && kill -KILL "$victim"
	wait "$mp"
	ms=$? took=$((SECONDS - started))
	for _ in $(seq 50); do grep -q "pid $victim gone" "$rd.log" && break; sleep 0.1; done
	gone=$(grep -c "pid $victim gone" "$rd.log")
	alive=1
	mpi_xschedd_stop || alive=0
	ok=0
	# mpirun's own status reports the killed rank (Open MPI: 137, its
	# SIGKILL); what matters is that the job ended, long before the
	# other rank's 30 s of work or the time limit.
	[[ -n $victim && $gone -gt 0 && $alive == 1 ]] && ((took < 25)) && ok=1
	result $ok "$f: a rank killed mid-lend ends its lease, the job ends, xschedd goes on" \
		"mpirun: $(describe $ms) after ${took}s; victim pid '$victim'" \
		"its connection seen gone: $gone; daemon alive: $alive" "$(cat "$tmp/outk")" \
		"$(cat "$rd.log")"

	# 3. An older daemon (ABI 3) refuses the first lend: lending stops, said once.
	mkdir -p "$tmp/old-$f"
	"$old" "$tmp/old-$f" "$tmp/log3-$f" 120 &
	sp=$!
	for _ in $(seq 50); do [[ -S $tmp/old-$f/socket ]] && break; sleep 0.1; done
	rm -f "$tmp"/sum.json
	out=$(mpi_run "$f" 2 XSCHED_MPI_LEND=1 XSCHED_RUNTIME_DIR="$tmp/old-$f" \
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
done
exit $failed
