#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-run --mpi --verbose names each GPU and network device with its PCI
# bus id and NUMA node, from libxsched's topology (hwloc's I/O objects):
# on the hwloc XML machine tests/machines/hwloc-2p-gpu-nic.xml the NIC
# eth0 hangs off node 0, the GPU cuda0 and the InfiniBand adapter mlx5_0
# off node 1, and the NVMe disk, neither GPU nor NIC, is not listed.
. "${XS_SRCDIR:-.}/tests/mpi-lib.sh"
mpi_begin 1

run=$build/xsched-run
name="xsched-run --mpi --verbose lists GPUs and NICs with their node"
why=$(mpi_skip_why openmpi)
[[ -z $why && ! -x $run ]] && why="$run not built"
if [[ -n $why ]]; then
	echo "ok 1 $name # SKIP $why"
	exit 0
fi

out=$(mpi_preload=0 mpi_run openmpi 1 HWLOC_XMLFILE="$src/tests/machines/hwloc-2p-gpu-nic.xml" \
	-- "$run" --mpi --verbose "$build/tests/mpi/openmpi/imbalance" "$tmp/own" 5 1000 1 2>&1)
s=$?
ok=0
[[ $s == 0 ]] &&
	grep -q "NIC eth0 at 0000:01:00.0: node 0, " <<<"$out" &&
	grep -q "GPU cuda0 at 0000:81:00.0: node 1, " <<<"$out" &&
	grep -q "NIC mlx5_0 at 0000:82:00.0: node 1, " <<<"$out" &&
	! grep -q nvme0n1 <<<"$out" && ok=1
result $ok "$name" "mpirun: $(describe $s)" "$out"
exit "$failed"
