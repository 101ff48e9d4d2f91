#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The README's pictures of xsched-top (docs/img/xsched-top-80x24.png and
# -200x50.png): xsched-top in tmux at 80x24 and 200x50 against statistics
# pages forged for four live processes (sleep(1) under the programs'
# names), with xschedd's per-CPU view when build/xschedd can start here;
# the panes' text rendered with ImageMagick (label: text, as its default
# security policy forbids label:@file). Usage: from the top of the tree,
#   scripts/xsched-top-screenshots.sh [BUILD_DIR]   (CONVERT=path/to/convert)
set -euo pipefail

build=${1:-build}
out=docs/img
convert=${CONVERT:-convert}
tmp=$(mktemp -d)
sock=xsched-top-shots-$$
pids=()
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[[ -n ${daemon:-} ]] && kill "$daemon" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/shm" "$tmp/run" "$out"

# forge DIR PID COMM WORKERS TASKS/S STEALS_L/S STEALS_R/S IDLE% DLB: one
# page (include/xsched/stats_page.h) created at 1 s, published at 2 s, so
# the first rates xsched-top shows are the counters.
forge() {
	python3 - "$@" <<'PY'
import os, struct, sys
d, pid, comm, nw, tasks, sl, sr, idle, dlb = sys.argv[1:]
pid, nw, tasks, sl, sr, idle, dlb = int(pid), int(nw), int(tasks), int(sl), int(sr), float(idle), int(dlb)
hdr = struct.pack("<QIIQIIII Q II II 16s Q 40x", 0x3154535343535856, 1, 256, 256 + 256 * nw,
                  256, 256, nw, pid, 0, os.getuid(), 0, 1, 256, comm.encode()[:15], 10**9)
hdr += struct.pack("<QQQQIIII80x", 1, 2 * 10**9, 10**8, 7, dlb, 0, 0, 0)
ws = b""
for i in range(nw):
    t = tasks // nw
    imm = t // 3
    w = [t, t, t // 2, t // 4, t // 8, imm, t - imm, 0, sl // nw * 3, sl // nw * 3,
         (sl + sr) // nw, 0, 0, sl // nw, sr // nw, 12, 0, int(idle * 1e7), i % 5]
    ws += struct.pack("<19Q4I88x", *w, pid + i, i, 0, 0)
assert len(hdr) == 256
with open(f"{d}/xsched-stats.{pid}.0", "wb") as f:
    f.write(hdr + ws)
PY
}

# A live process named NAME (argv[0]; the kernel's comm is its first 15).
sleeper() {
	bash -c "exec -a '$1' sleep 600" &
	pids+=($!)
}
sleeper lulesh2.0
forge "$tmp/shm" "${pids[-1]}" lulesh2.0 16 251400000 1830000 210000 3.2 1
sleeper nbody-barnes-hut-simulation-3d
forge "$tmp/shm" "${pids[-1]}" nbody-barnes-hut-simulation-3d 8 12300000 96000 1200 11.5 3
sleeper sparselu-solver-blocked-cholesky
forge "$tmp/shm" "${pids[-1]}" sparselu-solver-blocked-cholesky 8 845000 5100 880 37.0 2
sleeper fib
forge "$tmp/shm" "${pids[-1]}" fib 2 2500 14 0 96.4 1
sleep 0.2

rt="$tmp/none"
if [[ -x $build/xschedd && $(id -u) == 0 ]]; then
	"$build/xschedd" --foreground --runtime-dir "$tmp/run" >"$tmp/xschedd.log" 2>&1 &
	daemon=$!
	for _ in $(seq 50); do [[ -e $tmp/run/state ]] && break; sleep 0.1; done
	[[ -e $tmp/run/state ]] && rt="$tmp/run"
	# A real program beside the forged ones, so that the daemon gives it
	# a CPU share (the forged processes hold no worker slots): fib on
	# xsched, every task counted. Its serial runs take the first 5 s
	# (--budget), its xsched runs the next 5, when the pictures are taken.
	if [[ $rt == "$tmp/run" ]]; then
		XSCHED_RUNTIME_DIR=$tmp/run "$build/xsched-bench" --only fib --n 32 \
			--runtime xsched --threads 2 --repeat 1000 --budget 5 >/dev/null 2>&1 &
		pids+=($!)
		sleep 6
	fi
	sleep 1.5 # a few ticks of per-CPU loads
fi

shot() { # COLS ROWS
	local name=xsched-top-$1x$2
	tmux -L "$sock" -f /dev/null new-session -d -x "$1" -y "$2" \
		"TERM=xterm '$build/xsched-top' -d 5 --runtime-dir '$rt' --shm-dir '$tmp/shm'"
	sleep 1
	tmux -L "$sock" capture-pane -p >"$tmp/$name.txt"
	tmux -L "$sock" kill-server
	# The pane's text, on a canvas of the pane's size: COLS x ROWS cells
	# of the font (measured on 100 M's and 10 lines), 8 pixels of border.
	# Eight lines a label, appended: ImageMagick 6.9 refuses a label of
	# more than about 1200 bytes ("width or height exceeds limit").
	local m=(-font DejaVu-Sans-Mono -pointsize 13) cw ch labels=() chunk
	cw=$("$convert" "${m[@]}" "label:$(printf 'M%.0s' $(seq 100))" -format '%w' info:)
	ch=$("$convert" "${m[@]}" "label:$(printf 'M\n%.0s' $(seq 10))M" -format '%h' info:)
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/$name.txt" |
		sed 's/\\/\\\\/g; s/%/%%/g; s/^$/\xc2\xa0/' | split -l 8 - "$tmp/$name.part."
	for chunk in "$tmp/$name.part."*; do
		labels+=("label:$(cat "$chunk")")
	done
	"$convert" -background '#1e1e1e' -fill '#d0d0d0' "${m[@]}" "${labels[@]}" -append \
		-gravity northwest -extent "$(($1 * cw / 100))x$(($2 * ch / 11))" \
		-bordercolor '#1e1e1e' -border 8 "$out/$name.png"
	echo "$out/$name.png"
}
shot 80 24
shot 200 50
