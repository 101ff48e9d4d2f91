#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-trace plot draws a timeline: on a trace in the Chrome array form
# with B/E and X events, where worker 0 runs one task for the whole 1 ms
# and worker 1 starts 0.5 ms late, stalls 0.1 ms and then runs a task, the
# PNG (decoded here with Python's zlib, not the tool's code) is W x H and
# has, in each lane --layout reports, the colours at the times they
# happened: lane 0 green from start to end; lane 1 background before
# 0.5 ms (or the grid), red (STALL) in 0.5..0.6 ms, green after. The summary of the same
# file counts the B/E pairs. A plot to an unwritable path is named. The
# output's extension picks the format: .svg and .pdf (any case) write an
# SVG and a PDF of the same lanes; another extension is refused, naming it.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..6"
. "$src/scripts/tap.sh"

cat >"$tmp/t.json" <<'JSON'
[
{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"worker 0"}},
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"worker 1"}},
{"ph":"B","pid":1,"tid":0,"name":"TASK","ts":0},
{"ph":"E","pid":1,"tid":0,"name":"TASK","ts":1000},
{"ph":"B","pid":1,"tid":1,"name":"STALL","ts":500},
{"ph":"E","pid":1,"tid":1,"ts":600},
{"ph":"X","pid":1,"tid":1,"name":"TASK","ts":600,"dur":400}
]
JSON

"$build/xsched-trace" summary --json "$tmp/t.json" >"$tmp/sum" 2>&1
rc=$?
ok=0
[[ $rc == 0 ]] && python3 - "$tmp/sum" <<'PY' && ok=1
import json, sys
s = json.load(open(sys.argv[1]))
rows = {t["tid"]: t for t in s["threads"]}
assert rows[0]["exclusive_ns"]["TASK"] == 1000000, rows[0]
assert rows[1]["exclusive_ns"]["STALL"] == 100000, rows[1]
assert rows[1]["exclusive_ns"]["TASK"] == 400000, rows[1]
PY
result $ok "summary of the array form with B/E events" "$(describe $rc)" "$(cat "$tmp/sum")"

"$build/xsched-trace" plot "$tmp/t.json" -o "$tmp/t.png" --width 800 --height=300 --layout \
	>"$tmp/layout" 2>&1
rc=$?
ok=0
[[ $rc == 0 ]] && python3 - "$tmp/t.png" "$tmp/layout" >"$tmp/why" 2>&1 <<'PY' && ok=1
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0], kind
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr[:4]
assert (w, h, depth) == (800, 300, 8), ihdr
bpp = {2: 3, 6: 4}[ctype]
raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line

def px(x, y):
    return tuple(rows[y][x * bpp:x * bpp + 3])

lay = [l.split() for l in open(sys.argv[2])]
plot = [l for l in lay if l[0] == "plot"][0]
x0, x1, t0, t1 = int(plot[1]), int(plot[2]), int(plot[3]), int(plot[4])
lanes = {int(l[1]): tuple(map(int, l[3:7])) for l in lay if l[0] == "thread"}
assert (t0, t1) == (0, 1000000), plot
assert sorted(lanes) == [0, 1], lanes
GREEN, RED, WHITE = (0x2c, 0xa0, 0x2c), (0xd6, 0x27, 0x28), (255, 255, 255)

def x_at(us):
    return x0 + (us * 1000 - t0) * (x1 - x0 + 1) / (t1 - t0)

GRID = (0xdd, 0xdd, 0xdd)  # shows where no event is drawn

def expect(tid, us_from, us_to, colour):
    lx0, lx1, ly0, ly1 = lanes[tid]
    y = (ly0 + ly1) // 2
    ok = (colour, GRID) if colour == WHITE else (colour,)
    for x in range(int(x_at(us_from)) + 2, int(x_at(us_to)) - 2):
        assert px(x, y) in ok, "lane %d at x %d (%.0f us): %s, want %s" % (
            tid, x, us_from, px(x, y), colour)

expect(0, 0, 1000, GREEN)
expect(1, 0, 500, WHITE)
expect(1, 500, 600, RED)
expect(1, 600, 1000, GREEN)
assert lanes[0][3] < lanes[1][2], "lanes overlap"
PY
result $ok "plot: a timeline, each lane's colours at their times" "$(describe $rc)" \
	"$(cat "$tmp/layout" "$tmp/why")"

"$build/xsched-trace" plot "$tmp/t.json" -o "$tmp/t.png" --width 10 >"$tmp/out" 2>&1
rc=$?
ok=0
[[ $rc == 2 ]] && grep -q -- "--width '10': expected an integer in \[240, 8192\]" "$tmp/out" && ok=1
result $ok "plot --width 10: exit 2 with the range" "$(describe $rc)" "$(cat "$tmp/out")"

"$build/xsched-trace" plot "$tmp/t.json" -o /nonexistent-dir/x.png >"$tmp/out" 2>&1
rc=$?
ok=0
[[ $rc == 1 ]] && grep -q "/nonexistent-dir/x.png: cannot write" "$tmp/out" && ok=1
result $ok "plot to an unwritable path: exit 1 naming it" "$(describe $rc)" "$(cat "$tmp/out")"

ok=1 why=""
for f in t.svg t.PDF; do
	"$build/xsched-trace" plot "$tmp/t.json" -o "$tmp/$f" >"$tmp/out" 2>&1 || { ok=0; why+=" $f: $(cat "$tmp/out")"; }
done
head -c 400 "$tmp/t.svg" 2>/dev/null | grep -q '<svg' || { ok=0; why+=" t.svg is not an SVG;"; }
[[ $(head -c 5 "$tmp/t.PDF" 2>/dev/null) == %PDF- ]] || { ok=0; why+=" t.PDF is not a PDF;"; }
result $ok "plot -o x.svg and -o x.PDF write an SVG and a PDF" "$why"

"$build/xsched-trace" plot "$tmp/t.json" -o "$tmp/t.gif" >"$tmp/out" 2>&1
rc=$?
ok=0
[[ $rc == 2 && ! -e $tmp/t.gif ]] && grep -q "t.gif: the format comes from the extension: .png, .svg or .pdf" "$tmp/out" && ok=1
result $ok "plot -o x.gif: exit 2, the extensions named, no file" "$(describe $rc)" "$(cat "$tmp/out")"
exit $failed
