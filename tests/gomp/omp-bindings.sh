#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# An unmodified gcc -fopenmp program binds its GOMP_* and omp_* references
# to the drop-in, at the versions gcc recorded, both ways the drop-in is
# meant to be used:
#
#   LD_PRELOAD=$XS_BUILDDIR/libxsched-gomp.so.1
#   LD_LIBRARY_PATH=$XS_BUILDDIR/gomp     (gomp/libgomp.so.1 is the drop-in)
#
# The dynamic linker's own report (LD_DEBUG=bindings) is the evidence:
# GOMP_parallel binds at [GOMP_4.0], omp_get_thread_num at [OMP_1.0] and
# omp_set_lock at [OMP_3.0] (the 3.0 lock layout, not the 1.0 compat one),
# all to the drop-in; under LD_PRELOAD nothing but the system libgomp itself
# binds to the system libgomp, through LD_LIBRARY_PATH it is not loaded.
set -uo pipefail

. "${XS_SRCDIR:-.}/tests/omp-preload-guard.sh"

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
dropin=$build/libxsched-gomp.so.1
dir=$build/gomp
out=$build/tests/omp-bindings
cc=${OMP_CORPUS_CC:-gcc}

while read -r var; do
	unset "$var"
done < <(compgen -e | grep -E '^(OMP|GOMP|KMP)_')
unset LD_PRELOAD LD_DEBUG LD_DEBUG_OUTPUT

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

echo "TAP version 13"
echo "1..11"

. "${XS_SRCDIR:-.}/scripts/tap.sh"

cat >"$out/bindings.c" <<'EOF'
#include <omp.h>
#include <stdio.h>

int main(void)
{
	omp_lock_t lock;
	int sum = 0;

	omp_init_lock(&lock);
#pragma omp parallel num_threads(2)
	{
		omp_set_lock(&lock);
		sum += omp_get_thread_num() + 1;
		omp_unset_lock(&lock);
	}
	omp_destroy_lock(&lock);
	printf("sum %d\n", sum);
	return sum != 3;
}
EOF
bin=$out/bindings
"$cc" -fopenmp -O2 -Wall -Wextra -Werror -o "$bin" "$out/bindings.c" >"$tmp/cc" 2>&1
compiled=$((!$?))
result $compiled "bindings.c compiles" "$(head -n 10 "$tmp/cc")"

# The system libgomp, as the program finds it without help.
system=$(ldd "$bin" 2>/dev/null | sed -n 's/^[[:space:]]*libgomp\.so\.1 => \([^ ]*\) .*/\1/p')
system=$(realpath -e "$system" 2>/dev/null)
want=$(realpath -e "$dropin" 2>/dev/null)

# check MODE ENV...: five results for one way of loading the drop-in.
check() {
	local mode=$1 log status bound sym ver f
	shift
	local names=("$mode: program runs" "$mode: GOMP_parallel binds to the drop-in [GOMP_4.0]"
		"$mode: omp_get_thread_num binds to the drop-in [OMP_1.0]"
		"$mode: omp_set_lock binds to the drop-in [OMP_3.0]"
		"$mode: $([[ $mode == LD_PRELOAD ]] && echo "no other object binds to the system libgomp" ||
			echo "the system libgomp is not loaded")")
	local why=
	((compiled)) || why="bindings.c did not compile"
	[[ -z $why && -z $want ]] && why="$dropin was not built (it is part of make: build/libxsched-gomp.so.1)"
	[[ -z $why && $mode == LD_LIBRARY_PATH && ! -e $dir/libgomp.so.1 ]] &&
		why="$dir/libgomp.so.1 does not exist (a link to libxsched-gomp.so.1, part of make)"
	if [[ -n $why ]]; then
		for f in "${names[@]}"; do
			result 0 "$f" "$why"
		done
		return
	fi

	rm -f "$tmp"/ld.*
	(
		timeout -k 5 60 env "$@" LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" \
			OMP_NUM_THREADS=2 "$bin" </dev/null >"$tmp/stdout" 2>"$tmp/stderr"
		exit $?
	) 2>/dev/null
	status=$?
	log=$(cat "$tmp"/ld.* 2>/dev/null)
	result $((status == 0)) "${names[0]}" "exit status $status" "$(tail -n 5 "$tmp/stderr")"

	# "binding file PROG [0] to LIB [0]: normal symbol `SYM' [VER]"
	for sym in GOMP_parallel:GOMP_4.0 omp_get_thread_num:OMP_1.0 omp_set_lock:OMP_3.0; do
		ver=${sym#*:} sym=${sym%%:*}
		bound=$(grep -F "symbol \`$sym'" <<<"$log" | grep -F "binding file $bin " | head -n 1)
		local lib v ok=0
		lib=$(sed -n 's/.* to \([^ ]*\) \[[0-9]*\]: .*/\1/p' <<<"$bound")
		v=$(sed -n 's/.*\[\([^]]*\)\]$/\1/p' <<<"$bound")
		[[ -n $lib && $(realpath -e "$lib" 2>/dev/null) == "$want" && $v == "$ver" ]] && ok=1
		result $ok "$mode: $sym binds to the drop-in [$ver]" \
			"expected: $sym bound to $dropin [$ver]" "got: ${bound:-no binding of $sym in the LD_DEBUG log}"
	done

	# Under LD_PRELOAD the system libgomp is still loaded (the program
	# names it in DT_NEEDED) and binds its own OpenACC symbols to itself;
	# nothing else may bind to it. Through LD_LIBRARY_PATH it must not be
	# loaded at all.
	local stray= from to
	if [[ -n $system ]]; then
		while read -r from to; do
			[[ $(realpath -e "$to" 2>/dev/null) == "$system" ]] || continue
			[[ $mode == LD_PRELOAD && $(realpath -e "$from" 2>/dev/null) == "$system" ]] && continue
			stray+="$from -> $to; "
		done < <(sed -n 's/.*binding file \([^ ]*\) \[[0-9]*\] to \([^ ]*\) \[[0-9]*\]: .*/\1 \2/p' <<<"$log" | sort -u)
		if [[ $mode == LD_LIBRARY_PATH ]]; then
			while read -r from; do
				[[ $(realpath -e "$from" 2>/dev/null) == "$system" ]] && stray+="$from is loaded; "
			done < <(sed -n 's/.*binding file \([^ ]*\) \[[0-9]*\] to .*/\1/p' <<<"$log" | sort -u)
		fi
	fi
	[[ -n $log && -z $stray ]]
	result $((!$?)) "${names[4]}" "bindings to the system libgomp ($system): $stray"
}

check LD_PRELOAD "LD_PRELOAD=$dropin"
check LD_LIBRARY_PATH "LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exit $failed
