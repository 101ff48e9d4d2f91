#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# image.sh DIR [PACKAGE...] - build, once, the Debian 12 guest of make
# check-system in DIR (outside git: ~/.cache/xsched/system/<key>):
# rootfs.img (ext4), vmlinuz and initrd.img of the guest's own
# linux-image-amd64.
#
# mmdebstrap from the apt mirror this machine uses (/etc/apt/sources.list*),
# minbase plus systemd as PID 1, a kernel, gcc and pkg-config (the guest
# builds the test programs), numactl, and the PACKAGEs: check-system.sh
# passes the dependencies of the xsched packages (dpkg -i needs no network
# then), and a change of them makes a new image. At boot the unit
# xsched-guest.service mounts the host's 9p share "xs" on /mnt/xs, runs
# /mnt/xs/guest.sh there and powers the guest off.
set -euo pipefail

dir=$1
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p; s/^deb \(http[^ ]*debian\) bookworm .*/\1/p' \
	/etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

pkgs=(systemd systemd-sysv udev dbus linux-image-amd64 initramfs-tools kmod procps
      gcc libc6-dev pkg-config libgomp1 numactl libnuma1 libnuma-dev libbpf1 liburing2
      libcap2 libncursesw6 libtinfo6 bash coreutils grep sed gawk "${@:2}")
list=$(IFS=,; echo "${pkgs[*]}")

mmdebstrap --variant=minbase --include="$list" \
	--customize-hook='echo xsched-guest >"$1/etc/hostname"' \
	--customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
	--customize-hook='passwd --root "$1" -d root' \
	--customize-hook='chroot "$1" systemctl mask serial-getty@ttyS0.service getty@tty1.service \
		systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer' \
	--customize-hook='cat >"$1/etc/systemd/system/xsched-guest.service" <<UNIT
[Unit]
Description=xsched check-system: run /mnt/xs/guest.sh from the host, then power off
After=multi-user.target
[Service]
Type=oneshot
StandardOutput=journal+console
StandardError=journal+console
ExecStartPre=/bin/mkdir -p /mnt/xs
ExecStartPre=/bin/mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xs /mnt/xs
ExecStart=/bin/bash /mnt/xs/guest.sh
ExecStopPost=/bin/systemctl --no-block poweroff
TimeoutStartSec=infinity
[Install]
WantedBy=multi-user.target
UNIT' \
	--customize-hook='chroot "$1" systemctl enable xsched-guest.service' \
	--customize-hook='cp "$1"/boot/vmlinuz-* '"$tmp"'/vmlinuz && cp "$1"/boot/initrd.img-* '"$tmp"'/initrd.img' \
	bookworm "$tmp/root" "$mirror"

chmod 0644 "$tmp/vmlinuz" "$tmp/initrd.img"
mkfs.ext4 -q -L xsched -d "$tmp/root" "$tmp/rootfs.img" 3G
mv "$tmp/vmlinuz" "$tmp/initrd.img" "$tmp/rootfs.img" "$dir/"
