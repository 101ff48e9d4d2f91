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
# programs), writes TAP back there and powers off. The kernel and initrd
# are the guest's own (linux-image-amd64), not the host's.
#
# Which accelerator, decided by probing, never by the device node alone:
# a /dev/kvm that exists (nested virtualization) may not boot a guest at
# all. Each candidate boots the guest's kernel and initrd with no root
# device and must show a line from the guest's own init on the serial
# console within XS_SYSTEM_PROBE_S seconds (default 60; 4 times that for
# TCG). KVM is tried when /dev/kvm is writable; TCG (QEMU's emulation) when
# KVM fails its probe or XS_SYSTEM_TCG=1 asks for it, and only if the
# budget left fits a boot (XS_SYSTEM_TCG_BOOT_S, default 600 s); otherwise
# the suite SKIPs, saying why.
#
# XS_SYSTEM_BUDGET (seconds, default 2400) bounds the whole suite: the
# packages, the image, the probes and the boots. Each boot's limit is the
# budget left shared among the boots left (at most XS_SYSTEM_TIMEOUT when
# that is set); a boot that does not fit is skipped, saying so. Each phase
# prints one line with the time since the start, and a running boot prints
# the last line of its console every XS_SYSTEM_TICK_S seconds (default 60).
#
# For the suite's own test: XS_SYSTEM_KVM_DEV (default /dev/kvm),
# XS_SYSTEM_QEMU (default qemu-system-x86_64) and XS_SYSTEM_IMAGE (a
# directory with vmlinuz, initrd.img and rootfs.img: no image build).
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
cache=${XS_SYSTEM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xsched/system}
kvm_dev=${XS_SYSTEM_KVM_DEV:-/dev/kvm}
qemu=${XS_SYSTEM_QEMU:-qemu-system-x86_64}
budget=${XS_SYSTEM_BUDGET:-2400}
probe_s=${XS_SYSTEM_PROBE_S:-60}
tcg_boot_s=${XS_SYSTEM_TCG_BOOT_S:-600}
tick_s=${XS_SYSTEM_TICK_S:-60}

echo "TAP version 13"
skip() { echo "1..0 # SKIP $*"; exit 0; }
bail() { echo "Bail out! $*"; exit 1; }
for v in budget probe_s tcg_boot_s tick_s; do
	[[ ${!v} =~ ^[1-9][0-9]{0,5}$ ]] ||
		bail "XS_SYSTEM_${v^^}: \"${!v}\" is not a number of seconds (1 to 999999)"
done
t0=$SECONDS
phase() { printf '# [%5d s] %s\n' $((SECONDS - t0)) "$*"; }
left() { echo $((budget - (SECONDS - t0))); }

want_tcg=${XS_SYSTEM_TCG:-0}
if [[ ! -w $kvm_dev && $want_tcg != 1 ]]; then
	skip "no $kvm_dev here: KVM is absent (XS_SYSTEM_TCG=1 runs the guest under QEMU's emulation, slowly)"
fi
# Not in scripts/deps.sh (make check does not need them): the packages.
for tool in "$qemu":qemu-system-x86 mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs; do
	[[ -n ${XS_SYSTEM_IMAGE:-} && ${tool%%:*} != "$qemu" ]] && continue
	command -v "${tool%%:*}" >/dev/null || skip "${tool%%:*} not installed (apt install ${tool#*:})"
done
# XS_SYSTEM_BOOTS: which boots to run (default all three).
boots=" ${XS_SYSTEM_BOOTS:-single numa2 numa4} "
for b in $boots; do
	[[ " single numa2 numa4 " == *" $b "* ]] ||
		bail "XS_SYSTEM_BOOTS: \"$b\" is not a boot (single, numa2, numa4)"
done
nboots=$(wc -w <<<"$boots")

# $(timed SECONDS CMD...): CMD under a limit of SECONDS, and of the budget.
timed() {
	local limit=$1
	shift
	(($(left) < limit)) && limit=$(left)
	((limit > 0)) || return 124
	timeout --kill-after=10 "$limit" "$@"
}

# The packages of this tree (make deb), unless XS_SYSTEM_DEBS=keep reuses
# those already in BUILDDIR/deb.
if [[ ${XS_SYSTEM_DEBS:-} != keep ]]; then
	phase "make deb"
	if ! timed "$budget" make --no-print-directory -C "$src" O="$build" deb >"$build/deb.log" 2>&1; then
		tail -n 20 "$build/deb.log" | sed 's/^/# /'
		(($(left) > 0)) || skip "make deb did not finish within the budget (XS_SYSTEM_BUDGET=$budget s)"
		bail "make deb failed ($build/deb.log)"
	fi
fi
debs=$(ls "$build"/deb/*.deb 2>/dev/null | grep -v dbgsym)
[[ -n $debs ]] || skip "no .debs in $build/deb (make deb)"

if [[ -n ${XS_SYSTEM_IMAGE:-} ]]; then
	image=$XS_SYSTEM_IMAGE
	for f in vmlinuz initrd.img rootfs.img; do
		[[ -f $image/$f ]] || bail "XS_SYSTEM_IMAGE: $image/$f is not a file"
	done
else
	# The guest has no network: its image holds what the .debs depend on
	# (the first of each alternative, without versions, not our own
	# packages), and the image's key covers that list.
	deps=$(for d in $debs; do dpkg-deb -f "$d" Depends; echo; done | tr ',' '\n' |
		sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' |
		grep -v -e '^$' -e '^libxsched' -e '^xsched' | sort -u | paste -sd ' ')
	key=$({ cat "$src/scripts/system/image.sh"; echo "$deps"; } | sha256sum | cut -c1-12)
	image=$cache/bookworm-$key
	mkdir -p "$cache"
	if [[ ! -f $image/rootfs.img ]]; then
		phase "building the guest image in $image (once), with: $deps"
		# shellcheck disable=SC2086 # one package a word
		if ! timed "$budget" "$src/scripts/system/image.sh" "$image" $deps >"$cache/image.log" 2>&1; then
			tail -n 20 "$cache/image.log" | sed 's/^/# /'
			(($(left) > 0)) || skip "the guest image was not built within the budget (XS_SYSTEM_BUDGET=$budget s)"
			bail "the guest image could not be built ($cache/image.log)"
		fi
	fi
	phase "guest image $image"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# probe ACCEL CPU LIMIT: does the guest's own init write to the serial
# console within LIMIT seconds? No root device: the initramfs starts and
# waits for one, which is all the probe needs. Success is initramfs-tools'
# first line, or any line after the kernel hands over to /init that is not
# a kernel message (those start with a "[ time]" stamp).
probe() {
	local accel=$1 cpu=$2 limit=$3 console=$tmp/probe.$1 pid waited=0
	(($(left) < limit)) && limit=$(left)
	((limit > 0)) || return 1
	: >"$console"
	"$qemu" -machine q35,accel="$accel" -cpu "$cpu" -m 1024 -smp 1 \
		-kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
		-append "console=ttyS0 earlyprintk=ttyS0 panic=-1 rootdelay=600" \
		-display none -serial file:"$console" -monitor none -no-reboot \
		>"$tmp/qemu-probe.$accel" 2>&1 &
	pid=$!
	while ((waited < limit)); do
		if grep -q 'Loading, please wait' "$console" ||
			sed -n '/Run \/init as init process/,$p' "$console" | grep -qv '^\[\|^$\|init as init'; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			probe_took=$waited
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
		waited=$((waited + 1))
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	probe_took=$waited
	probe_last=$(tr -d '\r' <"$console" | grep -v '^$' | tail -n 1 | cut -c1-100)
	probe_last=${probe_last:-nothing}
	[[ -s $tmp/qemu-probe.$accel ]] && probe_last+="; qemu: $(tail -n 1 "$tmp/qemu-probe.$accel" | cut -c1-100)"
	return 1
}

# The accelerator: KVM when it answers, else TCG when it answers and a
# boot fits, else SKIP. scale: how much slower than the host the guest
# runs, for the tests' time limits (xs.scale=, tests/xs_test.h).
accel=""
why=""
if [[ -w $kvm_dev ]]; then
	phase "probe KVM: the guest's init on the console within $probe_s s"
	if probe kvm host "$probe_s"; then
		accel=kvm cpu=host scale=1
		phase "probe KVM: answered in $probe_took s"
	else
		why="KVM ($kvm_dev) did not boot the guest's init in $probe_took s (console: $probe_last)"
		phase "probe KVM: $why"
	fi
else
	why="no $kvm_dev here"
fi
if [[ -z $accel ]]; then
	if (($(left) < tcg_boot_s)); then
		skip "$why; TCG does not fit: $(left) s of the budget left, a boot under TCG needs about $tcg_boot_s s (XS_SYSTEM_BUDGET, XS_SYSTEM_TCG_BOOT_S)"
	fi
	phase "probe TCG: the guest's init on the console within $((4 * probe_s)) s"
	if probe tcg max $((4 * probe_s)); then
		accel=tcg cpu=max scale=20
		phase "probe TCG: answered in $probe_took s; falling back to TCG ($why)"
	else
		skip "$why; TCG did not boot the guest's init either in $probe_took s (console: $probe_last)"
	fi
fi

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

n=0 failed=0 boots_left=$nboots
boot() { # boot NAME MODE QEMU-NUMA-ARGS...
	local name=$1 mode=$2 start=$SECONDS rc limit pid next
	shift 2
	limit=$(($(left) / boots_left))
	boots_left=$((boots_left - 1))
	[[ -n ${XS_SYSTEM_TIMEOUT:-} ]] && ((XS_SYSTEM_TIMEOUT < limit)) && limit=$XS_SYSTEM_TIMEOUT
	if [[ $accel == tcg ]] && ((limit < tcg_boot_s)); then
		limit=$(left)
		if ((limit < tcg_boot_s)); then
			n=$((n + 1))
			echo "ok $n $name # SKIP under TCG a boot needs about $tcg_boot_s s, $limit s of the budget left"
			return
		fi
	fi
	phase "$name: booting (accel=$accel, limit $limit s)"
	timeout --kill-after=10 "$limit" nice -n 19 "$qemu" -machine q35,accel=$accel -cpu $cpu \
		-m 2048 "$@" -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 xs.mode=$mode xs.scale=$scale xs.limit=$limit" \
		-drive file="$image/rootfs.img",if=virtio,format=raw -snapshot \
		-virtfs local,path="$share",mount_tag=xs,security_model=none,id=xs \
		-display none -serial file:"$tmp/console.$name" -monitor none -no-reboot \
		>"$tmp/qemu.$name" 2>&1 &
	pid=$!
	# Progress, not silence: the console's last line every tick.
	next=$((SECONDS + tick_s))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if ((SECONDS >= next)); then
			phase "$name: $((SECONDS - start)) s, console: $(tr -d '\r' <"$tmp/console.$name" 2>/dev/null |
				sed 's/\x1b\[[0-9;]*[a-zA-Z]//g' | grep -v '^$' | tail -n 1 | cut -c1-100)"
			next=$((SECONDS + tick_s))
		fi
	done
	wait "$pid"
	rc=$?
	phase "$name: guest ran $((SECONDS - start)) s (accel=$accel, qemu $rc)"
	if [[ ! -s $share/out/$mode.tap ]] || ((rc)); then
		n=$((n + 1))
		if ((rc == 124 || rc == 137)); then
			echo "not ok $n $name: the guest did not finish within its limit of $limit s"
		else
			echo "not ok $n $name: the guest ran to its end (qemu $rc)"
		fi
		tail -n 30 "$tmp/console.$name" "$tmp/qemu.$name" | sed 's/^/# /'
		# The test that was running when the boot ended: its log so far.
		running=$(ls -t "$share"/out/$mode.*.log 2>/dev/null | head -n 1)
		[[ -n $running ]] && tail -n 40 "$running" | sed "s|^|# ${running##*/}: |"
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
	done < <(cat "$share/out/$mode.tap" 2>/dev/null)
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

phase "done: accel=$accel${why:+ ($why)}"
echo "1..$n"
exit $failed
