#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# OMPT on the drop-in: a tool attaches to an unmodified gcc -fopenmp
# program and sees the events OpenMP 5.1 requires, in a valid order.
#
#   events    tests/ompt/record-tool.c, a shared object named by
#             OMP_TOOL_LIBRARIES, records tests/ompt/events.c at 4 threads
#             (barrier, for, single, sections, tasks with dependences,
#             taskwait, taskgroup, taskloop, locks, nest locks, critical, a
#             combined parallel for) and checks pairing, ids and order as the events
#             come; the counts must be the ones the constructs imply.
#             Without the hooks (or under the system libgomp, which has no
#             OMPT) the tool never starts and prints nothing: the test fails.
#   in program  the same tool linked into the program: found through
#             dlsym(RTLD_DEFAULT, "ompt_start_tool") with no variable set.
#   OMP_TOOL=disabled  no tool starts.
#   OMP_TOOL_VERBOSE_INIT=stdout, =FILE  the start-up log names the library.
#   OMP_TOOL=bogus  a diagnostic names the variable, no tool, exit 0.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
dropin=$build/libxsched-gomp.so.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD OMP_NUM_THREADS OMP_TOOL OMP_TOOL_LIBRARIES OMP_TOOL_VERBOSE_INIT

echo "TAP version 13"
. "$src/scripts/tap.sh"

hdr=$(ls /usr/include/omp-tools.h /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h 2>/dev/null |
	head -n1)
if [[ -z $hdr ]]; then
	echo "1..0 # SKIP omp-tools.h not found (Debian: libomp-14-dev)"
	exit 0
fi
echo "1..6"
mkdir -p "$tmp/inc"
ln -s "$hdr" "$tmp/inc/omp-tools.h"
if ! gcc -shared -fPIC -O2 -I"$tmp/inc" -o "$tmp/tool.so" "$src/tests/ompt/record-tool.c" \
	2>"$tmp/cc.err" ||
	! gcc -fopenmp -O2 -o "$tmp/events" "$src/tests/ompt/events.c" 2>>"$tmp/cc.err" ||
	! gcc -fopenmp -O2 -I"$tmp/inc" -o "$tmp/events-tool" "$src/tests/ompt/events.c" \
		"$src/tests/ompt/record-tool.c" -Wl,--export-dynamic 2>>"$tmp/cc.err"; then
	sed 's/^/# /' "$tmp/cc.err"
	echo "Bail out! cannot compile the tool or the program"
	exit 1
fi

want="ompt: errors=0 threads=5 parallel=2 implicit=6 tasks=9 deps=3 dep_entries=4"
want+=" barrier=12 barrier_ws=8 barrier_par=6 taskwait=1 taskgroup=2 loop=6 sections=4"
want+=" single_exec=2 single_other=6 taskloop=1 lock=4 nest=4 nest_again=4 critical=8"
want+=" lock_init=2 waits=29"

run() { # ENV... -- PROGRAM
	env OMP_NUM_THREADS=4 LD_PRELOAD="$dropin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

run OMP_TOOL_LIBRARIES="$tmp/tool.so" timeout 120 "$tmp/events"
got=$(grep '^ompt:' "$tmp/out")
result $((rc == 0 && ${#got} > 0)) "OMP_TOOL_LIBRARIES: the tool starts, the program runs" \
	"$(describe $rc)" "$(cat "$tmp/out" "$tmp/err")"
result $([[ $got == "$want" ]] && echo 1 || echo 0) \
	"events of known constructs: ordered, paired, counted as required" \
	"want: $want" "got:  $got" "$(cat "$tmp/err")"

run timeout 120 "$tmp/events-tool"
got=$(grep '^ompt:' "$tmp/out")
result $([[ $got == "$want" ]] && echo 1 || echo 0) \
	"the program's own ompt_start_tool is found (dlsym RTLD_DEFAULT)" \
	"want: $want" "got:  $got" "$(cat "$tmp/err")"

run OMP_TOOL=disabled OMP_TOOL_LIBRARIES="$tmp/tool.so" timeout 120 "$tmp/events-tool"
result $((rc == 0 && $(grep -c '^ompt:' "$tmp/out") == 0)) "OMP_TOOL=disabled: no tool starts" \
	"$(describe $rc)" "$(cat "$tmp/out" "$tmp/err")"

run OMP_TOOL_VERBOSE_INIT=stdout OMP_TOOL_LIBRARIES="/nonexistent/x.so:$tmp/tool.so" \
	timeout 120 "$tmp/events"
ok=0
grep -q "START LOGGING OF TOOL REGISTRATION" "$tmp/out" &&
	grep -q "Opening /nonexistent/x.so... Failed" "$tmp/out" &&
	grep -q "Opening $tmp/tool.so... Success" "$tmp/out" &&
	grep -q "Tool was started" "$tmp/out" && grep -q "^ompt: errors=0" "$tmp/out" && ok=1
run OMP_TOOL_VERBOSE_INIT="$tmp/log" OMP_TOOL_LIBRARIES="$tmp/tool.so" timeout 120 "$tmp/events"
grep -q "Tool was started" "$tmp/log" 2>/dev/null || ok=0
result $ok "OMP_TOOL_VERBOSE_INIT logs each library tried, to stdout or a file" \
	"$(cat "$tmp/out" "$tmp/err" "$tmp/log" 2>/dev/null)"

run OMP_TOOL=bogus OMP_TOOL_LIBRARIES="$tmp/tool.so" timeout 120 "$tmp/events"
ok=0
((rc == 0)) && grep -q "OMP_TOOL=bogus" "$tmp/err" && ! grep -q '^ompt:' "$tmp/out" && ok=1
result $ok "OMP_TOOL=bogus: a diagnostic names it, no tool starts" \
	"$(describe $rc)" "$(cat "$tmp/out" "$tmp/err")"
exit $failed
