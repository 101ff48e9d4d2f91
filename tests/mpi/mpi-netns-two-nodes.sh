#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# An MPI job across two "nodes" on this machine: two network namespaces
# joined by a veth pair, with addresses of TEST-NET-1 (192.0.2.0/24, RFC
# 5737: documentation only, never routed; they exist only inside these
# namespaces; the veth's end is xsmpi0 in both). Open MPI runs over TCP
# between them: mpirun in node A starts its daemon in node B through an
# rsh agent that is `ip netns exec` (--mca plm_rsh_agent), out-of-band and
# BTL traffic on the veth only; then MPICH, whose mpiexec starts its proxy
# in node B through the same agent (-launcher-exec), on xsmpi0 (-iface).
# Each node has its own xsched runtime directory with its own xschedd
# (degraded mode, --verbose, started inside the node), and its own half of the CPUs
# where there are 4 or more. Four ranks, two a node. Checked: the
# program's results (it checks every message), the summary (two nodes of
# two ranks; load balance = intra-node x inter-node), that node B's
# launcher part was started inside node B, and that each rank lent to its
# own node's daemon only, reclaiming every lend. Skips, saying why, where namespaces cannot
# be made (not root, no ip, no veth). Every mpirun has a time limit.
# xs-test-timeout: 180
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 5

why=
[[ -z $why && ! -x $build/xschedd ]] && why="$build/xschedd not built (bpftool, clang, BTF)"
[[ -z $why ]] && ((EUID != 0)) && why="not root: network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN"
[[ -z $why ]] && ! command -v ip >/dev/null && why="no ip(8) (iproute2)"
[[ -z $why ]] && ! command -v python3 >/dev/null && why="python3 not found (it reads the JSON)"

A=xsmpiA$$ B=xsmpiB$$ va=xsa$$ vb=xsb$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	ip link del "$va" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if [[ -z $why ]]; then
	err=$( {
		ip netns add "$A" && ip netns add "$B" &&
			ip link add "$va" type veth peer name "$vb" &&
			ip link set "$va" netns "$A" && ip link set "$vb" netns "$B" &&
			ip -n "$A" link set "$va" name xsmpi0 && ip -n "$B" link set "$vb" name xsmpi0 &&
			ip -n "$A" addr add 192.0.2.1/24 dev xsmpi0 &&
			ip -n "$B" addr add 192.0.2.2/24 dev xsmpi0 &&
			ip -n "$A" link set lo up && ip -n "$B" link set lo up &&
			ip -n "$A" link set xsmpi0 up && ip -n "$B" link set xsmpi0 up
	} 2>&1) || why="cannot make the namespaces and their veth pair: ${err//$'\n'/ }"
fi
if [[ -n $why ]]; then
	echo "ok $((n += 1)) two namespaces joined by a veth pair # SKIP $why"
	for f in openmpi mpich; do
		echo "ok $((n += 1)) $f: mpirun across the two nodes # SKIP $why"
		echo "ok $((n += 1)) $f: each rank lends to its own node's daemon # SKIP $why"
	done
	exit 0
fi
result 1 "two namespaces joined by a veth pair (192.0.2.1, 192.0.2.2)"

# CPU sets: halves of the CPUs where there are 4 or more (a node needs 2
# for a rank to have one to lend), else every CPU for both.
cpus=$(nproc)
if ((cpus >= 4)); then
	set_a="taskset -c 0-$((cpus / 2 - 1))" set_b="taskset -c $((cpus / 2))-$((cpus - 1))"
else
	set_a= set_b=
	echo "# $cpus CPUs: both nodes use every CPU (4 are needed for a CPU set each)"
fi

# The agent: HOST COMMAND... (Open MPI's plm_rsh_agent; Hydra's
# -launcher-exec, which puts ssh options first) -> COMMAND inside that
# node's namespace, its CPU set, with that node's runtime directory.
cat >"$tmp/agent" <<SH
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
host=\$1
shift
case \$host in
192.0.2.1) ns=$A set="$set_a" rd="$tmp/nodeA" ;;
192.0.2.2) ns=$B set="$set_b" rd="$tmp/nodeB" ;;
*) echo "agent: unknown host \$host" >&2; exit 255 ;;
esac
echo "\$host \$ns \$*" >>"$tmp/agent.log"
export XSCHED_RUNTIME_DIR=\$rd
exec ip netns exec \$ns \$set sh -c "\$*"
SH
chmod +x "$tmp/agent"
printf '192.0.2.1 slots=2\n192.0.2.2 slots=2\n' >"$tmp/hosts"

for f in openmpi mpich; do
	why=$(mpi_skip_why "$f")
	if [[ -n $why ]]; then
		echo "ok $((n += 1)) $f: mpirun across the two nodes # SKIP $why"
		echo "ok $((n += 1)) $f: each rank lends to its own node's daemon # SKIP $why"
		continue
	fi
	# Each node: its runtime directory and its xschedd.
	rm -rf "$tmp/nodeA" "$tmp/nodeB" "$tmp/agent.log" "$tmp/sum.json"
	for node in A B; do
		ns=$A
		[[ $node == B ]] && ns=$B
		ip netns exec "$ns" "$build/xschedd" --foreground --env-file /dev/null \
			--runtime-dir "$tmp/node$node" --bpf off --verbose 1 2>"$tmp/log$node" &
		pids+=($!)
	done
	for _ in $(seq 100); do [[ -S $tmp/nodeA/socket && -S $tmp/nodeB/socket ]] && break; sleep 0.1; done
	prog=("$build/tests/mpi/$f/imbalance" "$tmp/own" 20 2000 1 mixed)
	if [[ $f == openmpi ]]; then
		proxy=orted
		out=$(XSCHED_RUNTIME_DIR="$tmp/nodeA" ip netns exec "$A" $set_a \
			timeout -k 5 "$mpi_timeout" mpirun.openmpi --allow-run-as-root -np 4 \
			--hostfile "$tmp/hosts" --map-by node --bind-to none --oversubscribe \
			--mca plm_rsh_agent "$tmp/agent" --mca oob_tcp_if_include 192.0.2.0/24 \
			--mca btl tcp,self --mca btl_tcp_if_include 192.0.2.0/24 \
			-x LD_PRELOAD="$build/libxsched-mpi-$f.so" -x XSCHED_MPI_SUMMARY="$tmp/sum.json" \
			-x XSCHED_MPI_LEND=1 -x XSCHED_MPI_SPIN_US=100 "${prog[@]}" 2>&1)
	else
		# -genvnone: mpiexec's environment (node A's runtime directory)
		# must not reach node B's ranks; what they need is passed.
		proxy=hydra_pmi_proxy
		out=$(XSCHED_RUNTIME_DIR="$tmp/nodeA" ip netns exec "$A" $set_a \
			timeout -k 5 "$mpi_timeout" mpiexec.hydra -hosts 192.0.2.1:2,192.0.2.2:2 \
			-launcher ssh -launcher-exec "$tmp/agent" -iface xsmpi0 -localhost 192.0.2.1 \
			-np 4 -bind-to none -genvnone -genv PATH "$PATH" \
			-genv LD_PRELOAD "$build/libxsched-mpi-$f.so" \
			-genv XSCHED_MPI_SUMMARY "$tmp/sum.json" -genv XSCHED_MPI_LEND 1 \
			-genv XSCHED_MPI_SPIN_US 100 "${prog[@]}" 2>&1)
	fi
	s=$?
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=()
	# Four ranks, two a node: the summary's nodes are the namespaces, and
	# its load balance is the product of its intra- and inter-node parts.
	# Prints each node's pids: the node of rank 0 (A), then the other (B).
	nodes=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))
assert s["ranks"] == 4 and s["nodes"] == 2, "ranks/nodes " + str((s["ranks"], s["nodes"]))
assert abs(s["load_balance_intra_node"] * s["load_balance_inter_node"] - s["load_balance"]) < 1e-5
a = [r["pid"] for r in s["per_rank"] if r["node"] == 0]
b = [r["pid"] for r in s["per_rank"] if r["node"] != 0]
assert len(a) == 2 and len(b) == 2, "ranks per node " + str((a, b))
print(" ".join(map(str, sorted(a))) + " ")
print(" ".join(map(str, sorted(b))) + " ")' "$tmp/sum.json" 2>&1)
	py=$?
	ok=0
	[[ $s == 0 && $py == 0 ]] && grep -q "^192.0.2.2 $B .*$proxy" "$tmp/agent.log" && ok=1
	result $ok "$f: 4 ranks across the two nodes over TCP: right results, summarized as two nodes of two, node B's started inside it" \
		"mpirun: $(describe $s)" "summary: $nodes" "agent: $(cat "$tmp/agent.log" 2>&1)" "$out"

	# Each rank's HELLO and lends reached its own node's daemon, and only it.
	wanta=$(sed -n 1p <<<"$nodes") wantb=$(sed -n 2p <<<"$nodes")
	connected() { sed -n 's/.*: pid \([0-9]*\) uid [0-9]* connected$/\1/p' "$1" | sort -n -u | tr '\n' ' '; }
	ina=$(connected "$tmp/logA") inb=$(connected "$tmp/logB")
	# a lease that ended with its connection: a lend never reclaimed
	open=$(cat "$tmp/logA" "$tmp/logB" | grep 'lease ended')
	lends=$(cat "$tmp/logA" "$tmp/logB" | grep -c '): lends [0-9]* of')
	ok=0
	[[ $py == 0 && $ina == "$wanta" && $inb == "$wantb" && -z $open ]] && ((lends > 0)) && ok=1
	((cpus < 2)) && ok=1 && echo "# 1 CPU: nothing to lend, not checked"
	((ok)) && echo "# $f: node A's daemon saw ranks $wanta, node B's $wantb; $lends lends, all reclaimed"
	result $ok "$f: each rank lends to its own node's daemon only, and reclaims" \
		"node A saw: $ina(want $wanta)" "node B saw: $inb(want $wantb)" "$open" "$lends lends" \
		"$(cat "$tmp/logA" "$tmp/logB")"
done
exit $failed
