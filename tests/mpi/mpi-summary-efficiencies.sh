#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# libxsched-mpi's JSON summary at MPI_Finalize (XSCHED_MPI_SUMMARY, %j the
# job id) agrees with what an unmodified, imbalanced MPI program measured
# itself: 3 ranks, rank r works 4 ms * (1 + r/2) per iteration, then
# synchronizes (MPI_Allreduce; then a mix of barrier, waitall, sendrecv,
# send/recv, bcast, reduce, allreduce). From each rank's own elapsed and
# MPI times the test derives useful time, load balance (avg/max useful),
# communication efficiency (max useful / runtime) and parallel efficiency
# (their product), and the summary must give the same within 0.03, and
# every per-class call count exactly; on one node the load balance is all
# intra-node (inter-node 1). Once per MPI (Open MPI, MPICH).
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 4

check_summary() { # JSON PREFIX NP ITERS MODE
	python3 - "$@" <<'PY'
import json, sys, glob
path, prefix, np_, iters, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
s = json.load(open(path))
errs = []
def near(what, got, want, tol):
    if abs(got - want) > tol:
        errs.append(f"{what}: summary {got:.4f}, program {want:.4f} (tolerance {tol})")
if s["ranks"] != np_:
    errs.append(f"ranks {s['ranks']} != {np_}")
own = {}
for f in glob.glob(prefix + ".*"):
    r, el, mpi, bad = map(int, open(f).read().split())
    own[r] = (el / 1e9, mpi / 1e9)
if sorted(own) != list(range(np_)):
    errs.append(f"the program wrote {sorted(own)}, not every rank")
else:
    useful = [own[r][0] - own[r][1] for r in range(np_)]
    runtime = max(own[r][0] for r in range(np_))
    lb = sum(useful) / np_ / max(useful)
    ce = max(useful) / runtime
    near("load_balance", s["load_balance"], lb, 0.03)
    near("communication_efficiency", s["communication_efficiency"], ce, 0.03)
    near("parallel_efficiency", s["parallel_efficiency"], lb * ce, 0.03)
    # One node: all the imbalance is within it.
    if s["nodes"] != 1:
        errs.append(f"nodes {s['nodes']}, not 1")
    near("load_balance_inter_node", s["load_balance_inter_node"], 1.0, 1e-6)
    near("load_balance_intra_node", s["load_balance_intra_node"], s["load_balance"], 1e-6)
    for r in range(np_):
        pr = s["per_rank"][r]
        near(f"rank {r} useful_s", pr["useful_s"], useful[r], 0.005 + 0.03 * useful[r])
        near(f"rank {r} mpi_s", pr["mpi_s"], own[r][1], 0.005 + 0.03 * own[r][1])
    print(f"# {mode}: LB {s['load_balance']:.3f} (program {lb:.3f}), CommE "
          f"{s['communication_efficiency']:.3f} ({ce:.3f}), PE {s['parallel_efficiency']:.3f} "
          f"({lb * ce:.3f})")
want = {"allreduce": lambda r: {"collective": iters},
        "mixed": lambda r: {"barrier": iters, "wait": iters, "sendrecv": iters,
                            "recv": (np_ - 1) * iters if r == 0 else 0,
                            "send": 0 if r == 0 else iters, "collective": 3 * iters}}[mode]
for r in range(min(np_, len(s["per_rank"]))):
    got = s["per_rank"][r]["mpi_by_class"]
    for cls, v in got.items():
        w = want(r).get(cls, 0)
        if v["calls"] != w:
            errs.append(f"rank {r} {cls}: {v['calls']} calls, the program made {w}")
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
}

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	if [[ -z $why ]] && ! command -v python3 >/dev/null; then
		why="python3 not found (it reads the JSON)"
	fi
	for mode in allreduce mixed; do
		if [[ -n $why ]]; then
			echo "ok $((n += 1)) $f $mode # SKIP $why"
			continue
		fi
		rm -f "$tmp"/own.* "$tmp"/summary-*
		out=$(mpi_run "$f" 3 XSCHED_MPI_SUMMARY="$tmp/summary-%j.json" -- \
			"$build/tests/mpi/$f/imbalance" "$tmp/own" 20 4000 0.5 "$mode" 2>&1)
		s=$?
		json=$(ls "$tmp"/summary-*.json 2>/dev/null | head -n 1)
		if ((s != 0)); then
			result 0 "$f $mode" "mpirun: $(describe $s)" "$out"
		elif [[ -z $json || $json == *%j* ]]; then
			result 0 "$f $mode" "no summary with %j expanded in $tmp: $(ls "$tmp")" "$out"
		else
			chk=$(check_summary "$json" "$tmp/own" 3 20 "$mode" 2>&1)
			s=$?
			[[ $s == 0 ]] && grep '^#' <<<"$chk"
			result $((s == 0)) "$f $mode: summary agrees with the program's own times" \
				"$chk" "$(cat "$json")"
		fi
	done
done
exit $failed
