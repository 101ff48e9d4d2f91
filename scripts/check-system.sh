#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-system.sh BUILDDIR - make check-system: the built .debs on a Debian
# 12 machine with systemd as PID 1, and the NUMA tests on a machine whose
# kernel sees 2 and 4 NUMA nodes. A QEMU guest (scripts/system/image.sh
# builds it once, cached in ~/.cache/xsched/system/), booted three times:
#
#   single  1 node   (2 CPUs, no -numa): the service tests of
#                    scripts/system/guest.sh, then the NUMA tests
#   numa2   2 nodes  (-numa node x2, distance 21): the NUMA tests
#   numa4   4 nodes  (two pairs, distances 16 and 22): the NUMA tests
#
# XS_SYSTEM_BOOTS="numa2 numa4" runs only those. The NUMA tests read the
# guest's own view (libnuma, sysfs, SLIT; the list below).
#
# The guest reads its work from a 9p share (guest.sh, the .debs, the test
# programs), writes TAP back there and powers off; each boot has a hard
# timeout (XS_SYSTEM_TIMEOUT, seconds). The kernel and initrd are the
# guest's own (linux-image-amd64), not the host's.
#
# Needs /dev/kvm; without it the suite SKIPs saying so, unless
# XS_SYSTEM_TCG=1 asks for QEMU's emulation (tens of minutes per boot on
# a loaded machine; QEMU runs at nice 19, the guest's tests get xs.scale=20
# times their time limits).
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
cache=${XS_SYSTEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xsched/system}

echo "TAP version 13"
skip() { echo "1..0 # SKIP $*"; exit 0; }
# scale: how much slower than the host the guest runs, for the tests'
# time limits (xs.scale=, tests/xs_test.h).
accel=kvm cpu=host scale=1
if [[ ! -w /dev/kvm ]]; then
	[[ ${XS_SYSTEM_TCG:-0} == 1 ]] ||
		skip "no /dev/kvm here: KVM is absent (XS_SYSTEM_TCG=1 runs the guest under QEMU's emulation, slowly)"
	accel=tcg cpu=max scale=20
fi
timeout_s=${XS_SYSTEM_TIMEOUT:-$((scale > 1 ? 3600 : 1500))}
# Not in scripts/deps.sh (make check does not need them): the packages.
for tool in qemu-system-x86_64:qemu-system-x86 mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs; do
	command -v "${tool%%:*}" >/dev/null || skip "${tool%%:*} not installed (apt install ${tool#*:})"
done
# XS_SYSTEM_BOOTS: which boots to run (default all three).
boots=" ${XS_SYSTEM_BOOTS:-single numa2 numa4} "
for b in $boots; do
	[[ " single numa2 numa4 " == *" $b "* ]] ||
		{ echo "Bail out! XS_SYSTEM_BOOTS: \"$b\" is not a boot (single, numa2, numa4)"; exit 1; }
done

# The packages of this tree (make deb), unless XS_SYSTEM_DEBS=keep reuses
# those already in BUILDDIR/deb.
if [[ ${XS_SYSTEM_DEBS:-} != keep ]]; then
	start=$SECONDS
	if ! make --no-print-directory -C "$src" O="$build" deb >"$build/deb.log" 2>&1; then
		tail -n 20 "$build/deb.log" | sed 's/^/# /'
		echo "Bail out! make deb failed ($build/deb.log)"
		exit 1
	fi
	echo "# make deb: $((SECONDS - start)) s"
fi
debs=$(ls "$build"/deb/*.deb 2>/dev/null | grep -v dbgsym)
[[ -n $debs ]] || skip "no .debs in $build/deb (make deb)"

# The guest has no network: its image holds what the .debs depend on (the
# first of each alternative, without versions, not our own packages), and
# the image's key covers that list.
deps=$(for d in $debs; do dpkg-deb -f "$d" Depends; echo; done | tr ',' '\n' |
	sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' |
	grep -v -e '^$' -e '^libxsched' -e '^xsched' | sort -u | paste -sd ' ')
key=$({ cat "$src/scripts/system/image.sh"; echo "$deps"; } | sha256sum | cut -c1-12)
image=$cache/bookworm-$key
mkdir -p "$cache"
if [[ ! -f $image/rootfs.img ]]; then
	echo "# building the guest image in $image (once), with: $deps"
	start=$SECONDS
	# shellcheck disable=SC2086 # one package a word
	if ! "$src/scripts/system/image.sh" "$image" $deps >"$cache/image.log" 2>&1; then
		tail -n 20 "$cache/image.log" | sed 's/^/# /'
		echo "Bail out! the guest image could not be built ($cache/image.log)"
		exit 1
	fi
	echo "# guest image built in $((SECONDS - start)) s"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
share=$tmp/share
mkdir -p "$share/debs" "$share/src" "$share/build/tests" "$share/tests" "$share/out"
cp $debs "$share/debs/"
cp "$src/scripts/system/guest.sh" "$src/scripts/tap.sh" "$share/"
cp "$src"/tests/install/*.c "$share/src/"
# The NUMA tests: those that read the machine the kernel shows (topology,
# victim rows, DLB, the daemon's published nodes: libnuma, sysfs, SLIT)
# and the daemon's BPF-mode tests on the guest's kernel. The tests of the
# synthetic machines (tests/machines, xsched-mksysfs) run in make check:
# an emulated guest would only run them slower.
numa_tests="topology-real-machine numa-victims-follow-kernel
	numa-dlb-steals-follow-kernel-nodes xschedd-publishes-kernel-nodes
	xschedd-heartbeat-advances xschedd-client-registers-uses-table
	xschedd-worker-off-cpu xschedd-degraded-mode"
for t in $numa_tests; do
	[[ -x $build/tests/$t ]] && cp "$build/tests/$t" "$share/build/tests/"
done
[[ -x $build/xschedd ]] && cp "$build/xschedd" "$share/build/"

n=0 failed=0
boot() { # boot NAME MODE QEMU-NUMA-ARGS...
	local name=$1 mode=$2 start=$SECONDS rc
	shift 2
	timeout "$timeout_s" nice -n 19 qemu-system-x86_64 -machine q35,accel=$accel -cpu $cpu \
		-m 2048 "$@" -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 quiet xs.mode=$mode xs.scale=$scale" \
		-drive file="$image/rootfs.img",if=virtio,format=raw -snapshot \
		-virtfs local,path="$share",mount_tag=xs,security_model=none,id=xs \
		-display none -serial file:"$tmp/console.$name" -monitor none -no-reboot \
		>"$tmp/qemu.$name" 2>&1
	rc=$?
	echo "# $name: guest ran $((SECONDS - start)) s (accel=$accel)"
	if [[ ! -s $share/out/$mode.tap ]] || ((rc)); then
		n=$((n + 1))
		echo "not ok $n $name: the guest ran to its end (qemu $rc)"
		tail -n 30 "$tmp/console.$name" "$tmp/qemu.$name" | sed 's/^/# /'
		failed=1
	fi
	# The guest's TAP, renumbered into ours, prefixed with the boot.
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			[[ $line == not* ]] && failed=1
			sed -E "s/^(not ok|ok) [0-9]+ /\\1 $n $name: /" <<<"$line" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$share/out/$mode.tap"
	sed 's/^/# /' "$share/out/$mode.topology" 2>/dev/null
	mkdir -p "$build/check-system"
	cp "$share/out/$mode.tap" "$build/check-system/$name.tap" 2>/dev/null
	cp "$share/out/$mode.topology" "$build/check-system/$name.topology" 2>/dev/null
	for log in "$share"/out/$mode.*.log; do
		[[ -f $log ]] && mv "$log" "$build/check-system/$name.${log##*/$mode.}"
	done
	rm -f "$share/out/$mode.tap" "$share/out/$mode.topology"
}


[[ $boots == *" single "* ]] &&
	boot single service -smp 2,sockets=1,cores=2,threads=1

mem2="-object memory-backend-ram,id=m0,size=1G -object memory-backend-ram,id=m1,size=1G"
[[ $boots == *" numa2 "* ]] &&
	boot numa2 numa -smp 4,sockets=2,cores=2,threads=1 $mem2 \
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
	-numa dist,src=0,dst=1,val=21

mem4=""
for i in 0 1 2 3; do mem4+=" -object memory-backend-ram,id=m$i,size=512M"; done
dist4=""
for p in 0:1:16 0:2:22 0:3:22 1:2:22 1:3:22 2:3:16; do
	IFS=: read -r a b d <<<"$p"
	dist4+=" -numa dist,src=$a,dst=$b,val=$d"
done
[[ $boots == *" numa4 "* ]] &&
	boot numa4 numa -smp 4,sockets=4,cores=1,threads=1 $mem4 \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-numa node,nodeid=2,cpus=2,memdev=m2 -numa node,nodeid=3,cpus=3,memdev=m3 $dist4

echo "1..$n"
exit $failed
