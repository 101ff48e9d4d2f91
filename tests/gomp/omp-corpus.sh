#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The OpenMP corpus (tests/omp/*.c, one program per construct family; the
# entry points each one exercises are listed in tests/omp/README) gives the
# same output under the drop-in as under the system libgomp.
#
# Each program is compiled with gcc -fopenmp into $XS_BUILDDIR/tests/omp/
# (again only when its source, omp-check.h or this script is newer), then
# run six times:
#
#   system libgomp at OMP_NUM_THREADS=1     the reference output
#   system libgomp at 2 and 4               proves the program right
#   LD_PRELOAD=libxsched-gomp.so.1 at 1, 2, 4
#
# Under SANITIZE (make check SANITIZE=thread, or address,undefined; the
# drop-in in $XS_BUILDDIR is then instrumented) an instrumented drop-in
# cannot be preloaded into a plain program (ASan's runtime must come first,
# TSan loaded behind a plain program crashes and could not see its
# accesses anyway). So each program is compiled
# twice: plainly, for the reference run under the system libgomp at 1
# thread, and with -fsanitize=$SANITIZE -g, linked with -fopenmp and an
# rpath to $XS_BUILDDIR/gomp, where libgomp.so.1 is the instrumented
# drop-in, and run with that directory first on LD_LIBRARY_PATH too (the
# dynamic linker must resolve it there: checked with
# LD_TRACE_LOADED_OBJECTS). The instrumented program runs under the drop-in
# at OMP_NUM_THREADS=2 and 4 (under TSan with ASLR off); a sanitizer report
# makes the run fail (exit status, -fno-sanitize-recover=all) and is shown.
#
# Every run must exit 0 with stdout equal to the reference byte for byte.
# One TAP result per compilation and per run; a failure shows the exit
# status or signal, the start of the diff and the end of stderr (or the
# start of the sanitizer report).
#
# Environment: XS_SRCDIR, XS_BUILDDIR, SANITIZE; OMP_CORPUS_CC (default
# gcc); OMP_CORPUS_TIMEOUT, seconds per run (default 30, 120 under SANITIZE;
# every program takes well under 2 s under libgomp at 4 threads on 2 CPUs,
# about 3 s at most instrumented with TSan); OMP_CORPUS_PROGRAMS, a
# space-separated subset of the program names.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=$(realpath -m "${XS_BUILDDIR:-$src/build}")
san=${SANITIZE:-}
dropin=$build/libxsched-gomp.so.1
gompdir=$build/gomp
out=$build/tests/omp
cc=${OMP_CORPUS_CC:-gcc}
limit=${OMP_CORPUS_TIMEOUT:-$([[ -n $san ]] && echo 120 || echo 30)}
cflags=(-fopenmp -O2 -Wall -Wextra -Werror)
# The instrumented programs: as the library is built under SANITIZE (see the
# Makefile), and bound to the drop-in through their RUNPATH.
sflags=(-fopenmp -O1 -g -fno-omit-frame-pointer "-fsanitize=$san"
	-fno-sanitize-recover=all -Wall -Wextra -Werror "-Wl,-rpath,$gompdir")

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

# TSan maps its shadow at fixed addresses: run its programs with ASLR off
# (scripts/run-tests.sh already does so for the whole test; this is for
# running the script by hand).
wrapper=()
if [[ $san == *thread* ]] && setarch "$(uname -m)" -R true 2>/dev/null; then
	wrapper=(setarch "$(uname -m)" -R)
fi
# A caller's LD_LIBRARY_PATH (a toolchain's runtimes) stays, behind the
# drop-in's directory, which it would otherwise override the RUNPATH with.
slibpath=("LD_LIBRARY_PATH=$gompdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# The runs of each program: "RUNTIME THREADS"; the first is the reference.
if [[ -n $san ]]; then
	runs=("libgomp 1" "xsched-gomp 2" "xsched-gomp 4")
	per_prog=$((2 + ${#runs[@]}))
else
	runs=("libgomp 1" "libgomp 2" "libgomp 4" "xsched-gomp 1" "xsched-gomp 2" "xsched-gomp 4")
	per_prog=$((1 + ${#runs[@]}))
fi

echo "TAP version 13"
echo "1..$((per_prog * ${#progs[@]}))"
if [[ -n $san ]]; then
	echo "# SANITIZE=$san: the instrumented drop-in runs in instrumented programs:"
	echo "# $cc ${sflags[*]}"
fi

. "$src/scripts/tap.sh"

# result_files OK NAME [DIAGNOSTIC-FILE...]: result, with the non-empty
# files as the diagnostics of a failure.
result_files() {
	local ok=$1 name=$2 f diags=()
	shift 2
	for f in "$@"; do
		[[ -s $f ]] && diags+=("$(cat "$f")")
	done
	result "$ok" "$name" "${diags[@]}"
}

# build BIN SOURCE FLAGS...: compile when the program, the shared header or
# this script changed; 0 on success, else the compiler's first lines are in
# $tmp/cc.head.
build() {
	local bin=$1 c=$2
	shift 2
	[[ -x $bin && ! $c -nt $bin && ! $src/tests/omp/omp-check.h -nt $bin &&
		! ${BASH_SOURCE[0]} -nt $bin ]] && return 0
	if "$cc" "$@" -o "$bin.tmp" "$c" >"$tmp/cc" 2>&1; then
		mv -f "$bin.tmp" "$bin"
		return 0
	fi
	rm -f "$bin.tmp"
	head -n 20 "$tmp/cc" >"$tmp/cc.head"
	return 1
}

# stderr_excerpt: what of a failed run's stderr to show, in $tmp/stderr.tail:
# the start of the first sanitizer report, else the last lines.
stderr_excerpt() {
	local first
	first=$(grep -n -m1 -E 'Sanitizer|runtime error:' "$tmp/stderr" | cut -d: -f1)
	if [[ -n $first ]]; then
		echo "stderr (sanitizer report, first lines):"
		tail -n "+$first" "$tmp/stderr" | head -n 60
	elif [[ -s $tmp/stderr ]]; then
		echo "stderr (last lines):"
		tail -n 5 "$tmp/stderr"
	fi
}

for p in "${progs[@]}"; do
	c=$src/tests/omp/$p.c
	bin=$out/$p
	sbin=$out/$p.$(tr , - <<<"$san")

	compiled=1
	build "$bin" "$c" "${cflags[@]}" || compiled=0
	result_files $compiled "$p compiles ($cc ${cflags[*]})" "$tmp/cc.head"
	rm -f "$tmp/cc.head"
	scompiled=1
	if [[ -n $san ]]; then
		if [[ ! -f $dropin || ! -e $gompdir/libgomp.so.1 ]]; then
			echo "$dropin or $gompdir/libgomp.so.1 was not built (make SANITIZE=$san lib)" >"$tmp/cc.head"
			scompiled=0
		elif ! build "$sbin" "$c" "${sflags[@]}"; then
			scompiled=0
		else
			# The instrumented program must get the drop-in, not the
			# system libgomp, as its libgomp.so.1.
			got=$(env "${slibpath[@]}" LD_TRACE_LOADED_OBJECTS=1 "$sbin" 2>&1 |
				sed -n 's/^[[:space:]]*libgomp\.so\.1 => \([^ ]*\).*/\1/p')
			if [[ $(realpath -m "${got:-/nonexistent}") != "$(realpath "$dropin")" ]]; then
				echo "libgomp.so.1 resolves to '${got:-nothing}', not to $gompdir/libgomp.so.1" >"$tmp/cc.head"
				scompiled=0
			fi
		fi
		name="$p compiles instrumented (-fsanitize=$san, libgomp.so.1 from $gompdir)"
		result_files $scompiled "$name" "$tmp/cc.head"
		rm -f "$tmp/cc.head"
	fi
	ref=
	for run in "${runs[@]}"; do
		read -r runtime t <<<"$run"
		name="$p $runtime OMP_NUM_THREADS=$t"
		exe=("$bin")
		if [[ $runtime == xsched-gomp ]]; then
			if [[ -n $san ]]; then
				name="$p $runtime (SANITIZE=$san) OMP_NUM_THREADS=$t"
				exe=("${slibpath[@]}" "${wrapper[@]}" "$sbin")
				if ((!scompiled)); then
					echo "$p did not compile instrumented" >"$tmp/diag"
					result_files 0 "$name" "$tmp/diag"
					continue
				fi
			elif [[ ! -f $dropin ]]; then
				echo "$dropin was not built (it is part of make: build/libxsched-gomp.so.1)" >"$tmp/diag"
				result_files 0 "$name" "$tmp/diag"
				continue
			else
				exe=("LD_PRELOAD=$dropin" "$bin")
			fi
		fi
		if ((!compiled)); then
			echo "$p did not compile" >"$tmp/diag"
			result_files 0 "$name" "$tmp/diag"
			continue
		fi
		# The subshell keeps bash's "Segmentation fault" job
		# message out of the TAP stream; the status says it.
		(
			timeout -k 5 "$limit" env OMP_NUM_THREADS=$t "${exe[@]}" \
				</dev/null >"$tmp/stdout" 2>"$tmp/stderr"
			exit $?
		) 2>/dev/null
		rc=$?
		{
			if ((rc == 124 || rc == 137)); then
				echo "$name: timed out after ${limit}s"
			elif ((rc)); then
				echo "$name: $(describe $rc)"
			fi
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
		: >"$tmp/stderr.tail"
		((!ok)) && stderr_excerpt >"$tmp/stderr.tail"
		result_files $ok "$name" "$tmp/diag" "$tmp/stderr.tail"
	done
	rm -f "$tmp/reference"
done
exit $failed
