#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make-seeds.sh [BUILD] - (re)write the seed corpora in tests/fuzz/corpus/.
#
# Seeds are real files where there are real files: requests as the library
# sends them, state files that xschedd published (its real machine in
# degraded mode and tests/machines/2s2n4c in BPF mode, 2 and 4 slots), a
# statistics page and a profile that a runtime wrote, the Matrix Market
# files of r-cran-matrix, the files of tests/machines/2s2n4c, and values
# taken from the README's option table and the OpenMP specification.
# Needs BUILD (default build/) with xschedd and tools, and root for
# xschedd; run from the top of the tree. Inputs that once crashed a target
# are added by hand as corpus/NAME/crash-WHAT and are never rewritten.
set -euo pipefail

b=${1:-build}
c=tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$c"/{daemon-request,daemon-state,top-pages,trace-json,mtx,options,omp-env,topology,affinity-files}

# daemon-request: HELLO, REGISTER and UNREGISTER of two tids, as sent.
python3 - "$c/daemon-request" <<'PY'
import struct, sys
d = sys.argv[1]
def req(kind, tids):
    t = list(tids) + [0] * (32 - len(tids))
    return struct.pack('<IHHII32I', 0x58534d31, 1, kind, 144, len(tids), *t)
open(d + '/hello', 'wb').write(req(1, []))
open(d + '/register', 'wb').write(req(2, [1234, 1235]))
open(d + '/unregister', 'wb').write(req(3, [1234]))
PY

# daemon-state and top-pages: state files xschedd published.
state() { # NAME NSLOTS ARGS...
	local name=$1 slots=$2 rt=$tmp/rt-$1
	shift 2
	mkdir -p "$rt"
	"$b/xschedd" --foreground --env-file /dev/null --runtime-dir "$rt" --slots "$slots" \
		--client-slots "$slots" "$@" 2>/dev/null &
	local pid=$!
	for _ in $(seq 50); do [[ -s $rt/state ]] && break; sleep 0.1; done
	sleep 0.5 # a few ticks: heartbeat, load, tables
	cp "$rt/state" "$tmp/state-$name"
	kill "$pid"
	wait "$pid" || true
	{ printf "$(printf '\\x%02x' "$slots")\0\0\0"; cat "$tmp/state-$name"; } >"$c/daemon-state/$name"
	{ printf '\x02'; cat "$tmp/state-$name"; } >"$c/top-pages/state-$name"
}
state 2s2n4c-bpf 4 --sysfs-root "$PWD/tests/machines/2s2n4c"
state real-degraded 2 --bpf off

# top-pages and trace-json: the page and the profile of a runtime's run.
XSCHED_PROFILE=$tmp/profile.json XSCHED_PROFILE_EVENTS=1024 XSCHED_WORKERS=2 \
	XSCHED_RUNTIME_DIR=$tmp XSCHED_STATS_PAGE=1 "$b/fuzz/seed-runtime" "$tmp/page"
{ printf '\x00'; cat "$tmp/page"; } >"$c/top-pages/page"
{ printf '\x01'; cat "$tmp/page"; } >"$c/top-pages/page-alive"
head -c 16384 "$tmp/profile.json" >"$c/trace-json/profile-head"
python3 - "$tmp/profile.json" "$c/trace-json/profile-small" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
if isinstance(t, dict) and 'traceEvents' in t:
    t['traceEvents'] = t['traceEvents'][:40]
json.dump(t, open(sys.argv[2], 'w'))
PY

# mtx: the Matrix Market files Debian ships (the small ones).
for f in jgl009 pores_1 wrong; do
	cp "/usr/lib/R/library/Matrix/external/$f.mtx" "$c/mtx/$f.mtx"
done

# options: one line per option, a good value each (index byte + value).
printf '\x00%s\n\x01%s\n\x02%s\n\x08%s\n\x09%s\n' 4 256 50 rp 2 >"$c/options/typical"
printf '\x00%s\n\x01%s\n\x0a%s\n' 9999 17 ws >"$c/options/bad"

# omp-env: the OpenMP specification's example values.
printf '\x00%s\n\x01%s\n\x09%s\n\x0a%s\n' 4,2 guided,4 spread,close 'cores(4)' >"$c/omp-env/typical"
printf '\x01%s\n\x07%s\n\x08%s\n\x03%s\n' nonmonotonic:dynamic 16M passive true >"$c/omp-env/more"

# topology: the key files of tests/machines/2s2n4c as records.
rec() { for f in "$@"; do printf '%s\0' "$f"; cat "tests/machines/2s2n4c/$f"; printf '\0'; done; }
rec cpu/online cpu/possible node/online >"$c/topology/lists"
rec node/node0/distance node/node1/distance node/node0/cpulist >"$c/topology/nodes"
rec cpu/cpu0/topology/core_id cpu/cpu0/topology/thread_siblings_list \
	cpu/cpu0/topology/physical_package_id >"$c/topology/cpu0"

# affinity-files: a graph xsched-affinity recorded from a small loop (256
# iterations reading a shared table) and the schedules it planned for 2
# workers here and 4 on 2s2n4c, behind the target's flags byte (bit 0:
# schedule; bit 1: seal) and a DenseRatio byte.
cat >"$tmp/aff.c" <<'EOF'
#include <stdint.h>
#include <sys/mman.h>
#include <xsched.h>
static double *x, *y;
static void body(void *arg, int64_t first, uint64_t count)
{
	(void)arg;
	for (int64_t i = first; i < first + (int64_t)count; i++)
		y[i] = x[(i * 7) % 512] + x[(i * 7 + 1) % 512];
}
int main(void)
{
	struct xs_runtime *rt;

	x = mmap(NULL, 512 * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	y = mmap(NULL, 256 * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	xs_affinity_region_add(x, 512 * 8);
	xs_affinity_region_add(y, 256 * 8);
	rt = xs_runtime_create(0);
	if (!rt || xs_parallel_for(rt, 0, 256, 1, NULL, body, NULL))
		return 1;
	xs_runtime_destroy(rt);
	return 0;
}
EOF
gcc -O1 -Iinclude "$tmp/aff.c" "$b/libxsched.a" -lnuma -lhwloc -pthread -o "$tmp/aff"
XSCHED_WORKERS=2 "$b/xsched-affinity" record -o "$tmp/graph" -- "$tmp/aff" >/dev/null
XSCHED_WORKERS=2 "$b/xsched-affinity" plan "$tmp/graph" -o "$tmp/s2" --force >/dev/null
XSCHED_SYSFS_ROOT=$PWD/tests/machines/2s2n4c XSCHED_WORKERS=4 \
	"$b/xsched-affinity" plan "$tmp/graph" -o "$tmp/s4" --force >/dev/null
{ printf '\x00\xe5'; cat "$tmp/graph"; } >"$c/affinity-files/graph"
{ printf '\x02\x40'; cat "$tmp/graph"; } >"$c/affinity-files/graph-sealed"
{ printf '\x01\x00'; cat "$tmp/s2"; } >"$c/affinity-files/schedule-2"
{ printf '\x03\x00'; cat "$tmp/s4"; } >"$c/affinity-files/schedule-2s2n4c-4"
