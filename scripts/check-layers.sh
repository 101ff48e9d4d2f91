#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-layers.sh - the include rule of libxsched's layers.
#
#   scripts/check-layers.sh [ALLOWLIST]    (default scripts/layers.allow)
#
# libxsched/ has one folder per layer, in this order:
#
#   base < topo < queue < daemon < obs < core < affinity < loops
#
# 1. A file of libxsched/<layer>/ includes only headers of its own folder
#    and of the folders to its left (and system and include/ headers).
# 2. The extensions - libxsched/gomp/, libxsched/cuda/, libxsched/mpi/, tools/ - include
#    only include/ headers, libxsched/ext.h and their own files; ext.h
#    itself only include/ headers.
# 3. Only libxsched/base/atomics.h includes <stdatomic.h> (in libxsched/
#    and tools/).
#
# A quoted include is resolved as the compiler does with -Iinclude
# -Ilibxsched: next to the including file, then include/, then libxsched/.
# Every violation is printed as "FILE TARGET" (TARGET: the resolved path,
# <stdatomic.h>, or "NAME" when it does not resolve); the allowlist holds
# today's known ones, one per line, "FILE TARGET  # why", to be removed by
# the work that fixes them. Exit 1 on a violation not listed, and on a
# listed one that no longer occurs (the list only shrinks).

set -u
root=${XS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
allow=${1:-scripts/layers.allow}
layers=(base topo queue daemon obs core affinity loops)

# rank LAYER: its position in $layers, or nothing
rank() {
	local i
	for i in "${!layers[@]}"; do
		[[ ${layers[i]} == "$1" ]] && { echo "$i"; return; }
	done
}

# part PATH: the part of the tree a file belongs to: layer:<name>, ext,
# gomp, cuda, mpi, tools, public, top (a file directly in libxsched/), other
part() {
	case $1 in
	libxsched/ext.h) echo ext ;;
	libxsched/gomp/*) echo gomp ;;
	libxsched/cuda/*) echo cuda ;;
	libxsched/mpi/*) echo mpi ;;
	libxsched/*/*)
		local l=${1#libxsched/}
		l=${l%%/*}
		if [[ -n $(rank "$l") ]]; then echo "layer:$l"; else echo other; fi ;;
	libxsched/*) echo top ;;
	tools/*) echo tools ;;
	include/*) echo public ;;
	*) echo other ;;
	esac
}

# may FROM-PART TO-PART: whether the rule lets FROM include TO
may() {
	local from=$1 to=$2
	[[ $to == public ]] && return 0
	case $from in
	layer:*)
		[[ $to == layer:* ]] || return 1
		(($(rank "${to#layer:}") <= $(rank "${from#layer:}"))) ;;
	gomp | cuda | mpi | tools)
		[[ $to == ext || $to == "$from" ]] ;;
	*) return 1 ;;
	esac
}

violations=()
while IFS= read -r -d '' f; do
	from=$(part "$f")
	if [[ $from == top && $f != libxsched/ext.h ]]; then
		violations+=("$f (not in a layer folder)")
		continue
	fi
	dir=$(dirname "$f")
	while IFS= read -r inc; do
		if [[ $inc == '<'*'>' ]]; then
			[[ $inc == '<stdatomic.h>' && $f != libxsched/base/atomics.h ]] &&
				violations+=("$f $inc")
			continue
		fi
		name=${inc//\"/}
		if [[ -e $dir/$name ]]; then
			target=$(realpath -m --relative-to=. "$dir/$name")
		elif [[ -e include/$name ]]; then
			continue
		elif [[ -e libxsched/$name ]]; then
			target=libxsched/$name
		else
			violations+=("$f $inc")
			continue
		fi
		may "$from" "$(part "$target")" || violations+=("$f $target")
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$f")
done < <(find libxsched tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \
	-o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)

# The allowlist without comments and blank lines: "FILE TARGET" each.
mapfile -t allowed < <(sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' \
	-e 's/[[:space:]]\+/ /g' "$allow" 2>/dev/null)

bad=0
for v in "${violations[@]}"; do
	printf '%s\n' "${allowed[@]}" | grep -qxF -- "$v" && continue
	echo "check-layers: $v: breaks the include rule (scripts/check-layers.sh)"
	bad=1
done
for a in "${allowed[@]}"; do
	printf '%s\n' "${violations[@]}" | grep -qxF -- "$a" && continue
	echo "check-layers: $allow: '$a' no longer occurs: remove the line"
	bad=1
done
((bad)) || echo "check-layers: ${#violations[@]} known exceptions ($allow), no other"
exit $bad
