#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The OpenMP corpus (tests/omp/*.c, one program per construct family; the
# entry points each one exercises are listed in tests/omp/README) gives the
# same output under the drop-in as under the system libgomp.
#
# Each program is compiled with gcc -fopenmp into $XS_BUILDDIR/tests/omp/
# (again only when its source is newer), then run six times:
#
#   system libgomp at OMP_NUM_THREADS=1     the reference output
#   system libgomp at 2 and 4               proves the program right
#   LD_PRELOAD=libxsched-gomp.so.1 at 1, 2, 4
#
# Every run must exit 0 with stdout equal to the reference byte for byte.
# One TAP result per compilation and per run; a failure shows the exit
# status or signal, the start of the diff and the end of stderr.
#
# Environment: XS_SRCDIR, XS_BUILDDIR; OMP_CORPUS_CC (default gcc);
# OMP_CORPUS_TIMEOUT, seconds per run (default 30; every program takes well
# under 2 s under libgomp at 4 threads on 2 CPUs); OMP_CORPUS_PROGRAMS, a
# space-separated subset of the program names.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
dropin=$build/libxsched-gomp.so.1
out=$build/tests/omp
cc=${OMP_CORPUS_CC:-gcc}
limit=${OMP_CORPUS_TIMEOUT:-30}
cflags=(-fopenmp -O2 -Wall -Wextra -Werror)

if [[ -n ${OMP_CORPUS_PROGRAMS:-} ]]; then
	read -ra progs <<<"$OMP_CORPUS_PROGRAMS"
else
	progs=()
	for c in "$src"/tests/omp/*.c; do
		p=${c##*/}
		progs+=("${p%.c}")
	done
fi

# Runs must not depend on the caller's OpenMP settings or preloads.
while read -r var; do
	unset "$var"
done < <(compgen -e | grep -E '^(OMP|GOMP|KMP)_')
unset LD_PRELOAD

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

echo "TAP version 13"
echo "1..$((7 * ${#progs[@]}))"

n=0 failed=0

# result OK NAME [DIAGNOSTIC-FILE...]: one TAP line; the files, if any, are
# shown as comments when the result is a failure.
result() {
	local ok=$1 name=$2
	shift 2
	n=$((n + 1))
	if ((ok)); then
		echo "ok $n $name"
		return
	fi
	local f
	for f in "$@"; do
		[[ -s $f ]] && sed 's/^/# /' "$f"
	done
	echo "not ok $n $name"
	failed=1
}

# why RC: a phrase for a run's exit status, empty for 0.
why() {
	local rc=$1
	if ((rc == 124 || rc == 137)); then
		echo "timed out after ${limit}s"
	elif ((rc > 128)); then
		echo "killed by signal SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
	elif ((rc != 0)); then
		echo "exit status $rc"
	fi
}

for p in "${progs[@]}"; do
	c=$src/tests/omp/$p.c
	bin=$out/$p

	# Compile when the program or the shared header changed.
	compiled=1
	if [[ ! -x $bin || $c -nt $bin || $src/tests/omp/omp-check.h -nt $bin ]]; then
		if "$cc" "${cflags[@]}" -o "$bin.tmp" "$c" >"$tmp/cc" 2>&1; then
			mv -f "$bin.tmp" "$bin"
		else
			compiled=0
			rm -f "$bin.tmp"
			head -n 20 "$tmp/cc" >"$tmp/cc.head"
		fi
	fi
	result $compiled "$p compiles ($cc ${cflags[*]})" "$tmp/cc.head"
	ref=
	for runtime in libgomp xsched-gomp; do
		for t in 1 2 4; do
			name="$p $runtime OMP_NUM_THREADS=$t"
			if ((!compiled)); then
				echo "$p did not compile" >"$tmp/diag"
				result 0 "$name" "$tmp/diag"
				continue
			fi
			preload=()
			if [[ $runtime == xsched-gomp ]]; then
				if [[ ! -f $dropin ]]; then
					echo "$dropin was not built (it is part of make: build/libxsched-gomp.so.1)" >"$tmp/diag"
					result 0 "$name" "$tmp/diag"
					continue
				fi
				preload=("LD_PRELOAD=$dropin")
			fi
			# The subshell keeps bash's "Segmentation fault" job
			# message out of the TAP stream; the status says it.
			(
				timeout -k 5 "$limit" env OMP_NUM_THREADS=$t "${preload[@]}" "$bin" \
					</dev/null >"$tmp/stdout" 2>"$tmp/stderr"
				exit $?
			) 2>/dev/null
			rc=$?
			{
				w=$(why $rc)
				[[ -n $w ]] && echo "$name: $w"
			} >"$tmp/diag"
			ok=$((rc == 0))
			if [[ -z $ref ]]; then
				# The first run, libgomp at 1 thread, is the reference.
				if ((ok)); then
					ref=$tmp/reference
					cp "$tmp/stdout" "$ref"
				fi
			elif [[ $ref == none ]]; then
				echo "no reference output: $p failed under libgomp at 1 thread" >>"$tmp/diag"
				ok=0
			elif ! cmp -s "$ref" "$tmp/stdout"; then
				echo "stdout differs from libgomp at OMP_NUM_THREADS=1:" >>"$tmp/diag"
				diff "$ref" "$tmp/stdout" | head -n 8 >>"$tmp/diag"
				ok=0
			fi
			[[ -z $ref ]] && ref=none
			tail -n 5 "$tmp/stderr" >"$tmp/stderr.tail"
			if ((!ok)) && [[ -s $tmp/stderr.tail ]]; then
				sed -i '1i stderr (last lines):' "$tmp/stderr.tail"
			fi
			result $ok "$name" "$tmp/diag" "$tmp/stderr.tail"
		done
	done
	rm -f "$tmp/cc.head"
done
exit $failed
