#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make check-system decides KVM, TCG or SKIP by probing, within its limits
# (scripts/check-system.sh). A stand-in emulator plays the machines:
#
#   silent KVM, TCG too slow  /dev/kvm is there, its guest never reaches
#                             init (the console stops at the BIOS' "Probing
#                             EDD" as on nested hosts): SKIP with the reason
#                             within the probe limit, no boot attempted
#   silent KVM, TCG fits      the same, TCG answers and fits the budget: the
#                             boots run under TCG and their TAP is counted
#   working KVM               the probe answers: the boots run under KVM
#   a boot that stalls        the probe answers, the boot never ends: it is
#                             stopped at its limit from the budget, not ok
#
# The stand-in writes to the serial file QEMU was given and, for a boot,
# the guest's TAP into the 9p share, as guest.sh does.
set -uo pipefail

src=${XS_SRCDIR:-.}
. "$src/scripts/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The machine: a /dev/kvm stand-in, an image (contents unused), one .deb.
: >"$tmp/kvm"
mkdir -p "$tmp/image" "$tmp/build/deb" "$tmp/cache"
: >"$tmp/image/vmlinuz" ; : >"$tmp/image/initrd.img" ; : >"$tmp/image/rootfs.img"
: >"$tmp/build/deb/xsched_0_amd64.deb"

# The emulator: XS_FAKE_KVM and XS_FAKE_TCG say how each accelerator
# behaves: "silent" (BIOS line, then nothing), "boots" (init answers; a
# boot writes its TAP and ends), "stalls" (init answers; a boot never ends).
cat >"$tmp/qemu" <<'EOF'
#!/usr/bin/env bash
accel= serial= share= append=
while (($#)); do
	case $1 in
	-machine) accel=${2##*accel=}; shift ;;
	-serial) serial=${2#file:}; shift ;;
	-virtfs) share=${2#local,path=}; share=${share%%,*}; shift ;;
	-append) append=$2; shift ;;
	esac
	shift
done
mode=XS_FAKE_${accel^^}
mode=${!mode}
echo "Probing EDD (edd=off to disable)... ok" >>"$serial"
[[ $mode == silent ]] && exec sleep 1000
echo "[    0.500000] Run /init as init process" >>"$serial"
echo "Loading, please wait..." >>"$serial"
[[ $append == *root=* ]] || exec sleep 1000
[[ $mode == stalls ]] && exec sleep 1000
guest=$(sed -n 's/.*xs\.mode=\([a-z]*\).*/\1/p' <<<"$append")
printf 'TAP version 13\nok 1 the guest ran (%s)\n1..1\n' "$accel" >"$share/out/$guest.tap"
EOF
chmod +x "$tmp/qemu"

# run KVM TCG BUDGET: check-system.sh against the stand-ins; sets out, rc
# and took (seconds).
run() {
	local start=$SECONDS
	out=$(XS_FAKE_KVM=$1 XS_FAKE_TCG=$2 XS_SYSTEM_BUDGET=$3 \
		XS_SYSTEM_KVM_DEV="$tmp/kvm" XS_SYSTEM_QEMU="$tmp/qemu" \
		XS_SYSTEM_IMAGE="$tmp/image" XS_SYSTEM_DEBS=keep XS_SYSTEM_CACHE="$tmp/cache" \
		XS_SYSTEM_PROBE_S=3 XS_SYSTEM_TCG_BOOT_S=5 XS_SYSTEM_TICK_S=2 \
		XS_SYSTEM_BOOTS="single numa2" \
		timeout 120 "$src/scripts/check-system.sh" "$tmp/build" 2>&1)
	rc=$?
	took=$((SECONDS - start))
}

echo "1..4"

# KVM is silent for its probe (3 s); 3 s of the budget are left, less than
# a TCG boot (5 s): SKIP, saying both, without probing TCG or booting.
run silent boots 6
skip_ok=$((rc == 0 && took <= 3 + 5))
[[ $out == *"1..0 # SKIP KVM ($tmp/kvm) did not boot the guest's init"*"Probing EDD"*"TCG does not fit"* ]] ||
	skip_ok=0
[[ $out == *"probe TCG"* || $out == *booting* ]] && skip_ok=0
result $skip_ok "silent KVM, no time for TCG: SKIP with the reason within the probe limit ($took s)" \
	"$out" "exit $rc"

run silent boots 60
fallback=$((rc == 0 && took <= 30))
[[ $out == *"falling back to TCG"*"ok 1 single: the guest ran (tcg)"*"ok 2 numa2: the guest ran (tcg)"*"1..2"* ]] ||
	fallback=0
result $fallback "silent KVM, working TCG: the boots run under TCG ($took s)" "$out" "exit $rc"

run boots silent 60
kvm=$((rc == 0))
[[ $out == *"probe KVM: answered"*"ok 1 single: the guest ran (kvm)"*"ok 2 numa2: the guest ran (kvm)"* ]] ||
	kvm=0
[[ $out == *"probe TCG"* ]] && kvm=0
result $kvm "working KVM: the boots run under KVM, TCG not probed" "$out" "exit $rc"

# Budget 20: after the probe, each of the two boots gets half of what is
# left; both stall and are stopped there.
run stalls silent 20
stall=$((rc == 1 && took <= 20 + 25))
[[ $out == *"not ok 1 single: the guest did not finish within its limit"* &&
	$out == *"numa2: the guest did not finish within its limit"* &&
	$out == *"single: "*" s, console: "* ]] || stall=0
result $stall "a stalled boot is stopped at its share of the budget ($took s), progress shown" \
	"$out" "exit $rc"

exit $failed
