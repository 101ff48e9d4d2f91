#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check.sh - verify the Promela models of tests/models/ with spin.
#
# For each model: the correct configurations must verify with 0 errors
# (exhaustive search: safety, assertions and invalid end states, i.e.
# deadlocks), and each mutation, a -D flag that selects the broken variant
# a plausible code bug would give, must make spin report an error. A
# mutation that verifies means the model no longer checks the rule.
# Prints TAP; exits non-zero on any failure. Run by `make check-models`.
#
# Each model states its properties and maps itself to the code line by
# line in its opening comment.
set -uo pipefail

src=$(cd "$(dirname "$0")" && pwd)
. "$src/../../scripts/tap.sh"

command -v spin >/dev/null || { echo "1..0 # SKIP spin not installed (scripts/deps.sh)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# model|flags|expect (verify or error)
runs=(
	"park||verify"
	"park|-DSYMMETRIC|verify"
	"park|-DMUT_CHECK_FIRST|error"
	"park|-DMUT_NO_FENCE|error"
	"dlb||verify"
	"dlb|-DNTHIEVES=1|verify"
	"dlb|-DMUT_POP_FIRST|error"
	"dlb|-DMUT_NO_BUMP|error"
	"barrier||verify"
	"barrier|-DMUT_TWO_COUNTER|error"
	"barrier|-DMUT_STALE_DOWN|error"
	# Who runs a plain single (gomp/ws.c xg_single()).
	"single||verify"
	"single|-DMUT_FETCH_ADD|error"
	"single|-DMUT_LOAD_STORE|error"
	# The work-first split deque's steal path (deque.c, task_inline.h).
	"deque||verify"
	"deque|-DNTHIEVES=1|verify"
	"deque|-DMUT_STORE_TS|error"
	"deque|-DMUT_RECLAIM_BLIND|error"
	# ... the join's take of a share per CAS and the pop-down's one store
	# per run of taken frames (eighth session)
	"deque|-DMUT_TAKE_PAST_SPLIT|error"
	"deque|-DMUT_BATCH_WAIT_ONE|error"
	"deque|-DMUT_SKIP_NO_MARK|error"
	"deque|-DRESCUE -DNTHIEVES=1 -DTRIES=3 -DMUT_BATCH_WAIT_ONE|error"
	# ... with the rescue of a stranded owner (deque_rescue.c). The full
	# -DRESCUE (3 frames, 2 thieves: 3e7 states) takes minutes; these
	# bounds keep the rescuer/thief race and the owner's every step.
	"deque|-DRESCUE -DN=2|verify"
	"deque|-DRESCUE -DNTHIEVES=1 -DTRIES=3|verify"
	"deque|-DRESCUE -DNTHIEVES=1 -DTRIES=3 -DMUT_CHECK_FIRST|error"
	"deque|-DRESCUE -DNTHIEVES=1 -DTRIES=3 -DMUT_NO_BACKUP|error"
	# ... joined as typed tasks are (task_typed.h): newest first, popped
	# by a top store and the rescue check, run without a claim.
	"deque|-DTYPED|verify"
	"deque|-DTYPED -DRESCUE -DN=2|verify"
	"deque|-DTYPED -DRESCUE -DNTHIEVES=1 -DTRIES=3|verify"
	"deque|-DTYPED -DRESCUE -DNTHIEVES=1 -DTRIES=3 -DMUT_TYPED_NO_CHECK|error"
	# The elastic loop's join/leave/close word (loops/loop.c).
	"loop||verify"
	"loop|-DNH=1|verify"
	"loop|-DMUT_JOIN_BLIND|error"
	"loop|-DMUT_NO_WAIT|error"
	"loop|-DMUT_NOTIFY_OPEN|error"
	# ... its static block loops: blocks taken in the word, stamped pieces.
	"loop-blocks||verify"
	"loop-blocks|-DNH=1|verify"
	"loop-blocks|-DMUT_CLOSE_UNTAKEN|error"
	"loop-blocks|-DMUT_NO_STAMP|error"
	"loop-blocks|-DMUT_CLOSE_GUESS|error"
	"loop-blocks|-DMUT_RESCUE_MINE|error"
	# The drop-in's futex mutex: critical, atomic, omp locks (gomp/lock.c).
	"mutex||verify"
	"mutex|-DNT=4 -DROUNDS=1|verify"
	"mutex|-DMUT_TAKE_ONE|error"
	"mutex|-DMUT_UNLOCK_SPLIT|error"
	"mutex|-DMUT_PEEK_STORE|error"
)
echo "1..${#runs[@]}"
for r in "${runs[@]}"; do
	IFS='|' read -r model flags expect <<<"$r"
	dir=$tmp/$model$flags
	mkdir -p "$dir"
	what="$model.pml ${flags:-(as the code)}: $expect"
	if ! (cd "$dir" && spin -a $flags "$src/$model.pml" >spin.log 2>&1 &&
		cc -O2 -w -DCOLLAPSE -o pan pan.c >cc.log 2>&1); then
		result 0 "$what" "$(cat "$dir"/*.log)"
		continue
	fi
	(cd "$dir" && ./pan -m200000 >pan.log 2>&1)
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$dir/pan.log")
	states=$(sed -n 's/^ *\([0-9e+.]*\) states, stored.*/\1/p' "$dir/pan.log")
	complete=1
	grep -q 'Search not completed' "$dir/pan.log" && [[ $errors == 0 ]] && complete=0
	grep -q 'max search depth too small' "$dir/pan.log" && complete=0
	case $expect in
	verify) ok=$(( errors == 0 && complete )) ;;
	error) ok=$(( ${errors:-0} > 0 )) ;;
	esac
	result "$ok" "$what ($states states, $errors errors)" \
		"$(grep -E 'pan:|errors|depth' "$dir/pan.log")"
done
exit $failed
