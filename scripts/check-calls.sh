#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-calls.sh - the call rule of libxsched's layers, read from the
# objects the build made.
#
#   scripts/check-calls.sh [ALLOWLIST]    (default scripts/calls.allow)
#
# The include rule (check-layers.sh) says what a file may see; this says
# what it calls. For every object of build/libxsched/<layer>/, nm lists the
# symbols it defines and those it needs; a needed symbol defined in another
# file of libxsched/ is an edge FILE -> DEFINER. Two rules:
#
# 1. Down only. A file calls (or reads the variables of) files of its own
#    layer and of the layers to its left, never to its right: a lower
#    layer that calls up is a circle through the layers.
# 2. No circle inside a layer. An edge A -> B of one layer is on a circle
#    when B reaches A back through that layer's edges: then neither file
#    can be read, tested or replaced without the other.
#
# Only what crosses files is seen: a static inline function of a header is
# part of its includer. Every violation is printed as "FILE -> TARGET
# (symbols)"; the allowlist holds today's known ones, "FILE -> TARGET  # why",
# to be removed by the work that fixes them. Exit 1 on a violation not
# listed and on a listed one that no longer occurs (the list only shrinks).

set -u
root=${XS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
build=${XS_BUILDDIR:-build}
allow=${1:-scripts/calls.allow}
layers="base topo queue daemon obs core affinity loops"

objects=$(cd "$build" && find libxsched -mindepth 2 -maxdepth 2 -name '*.o' | sort)
for layer in $layers; do
	for src in libxsched/"$layer"/*.c; do
		[[ -e $src ]] || continue
		o=${src%.c}.o
		[[ -e $build/$o ]] || { echo "check-calls: $build/$o is missing: build first (make lib)"; exit 2; }
	done
done

# "D file symbol" and "U file symbol" lines for the layers' objects.
table=$(for o in $objects; do
	layer=${o#libxsched/}
	layer=${layer%%/*}
	[[ " $layers " == *" $layer "* ]] || continue
	nm "$build/$o" | awk -v f="${o%.o}.c" '
		NF == 3 && $2 ~ /^[TDBRV]$/ { print "D", f, $3 }
		NF == 2 && $1 == "U"        { print "U", f, $2 }'
done)

violations=$(awk -v layers="$layers" '
	function layer(f,   p) { split(f, p, "/"); return p[2] }
	BEGIN { n = split(layers, L, " "); for (i = 1; i <= n; i++) rank[L[i]] = i }
	$1 == "D" { def[$3] = $2; next }
	$1 == "U" { need[++nu] = $2 SUBSEP $3 }
	END {
		for (i = 1; i <= nu; i++) {
			split(need[i], p, SUBSEP)
			from = p[1]; sym = p[2]
			if (!(sym in def) || def[sym] == from)
				continue
			to = def[sym]
			if (!((from, to) in edge))
				edge[from, to] = sym
			else if (index(" " edge[from, to] " ", " " sym " ") == 0)
				edge[from, to] = edge[from, to] " " sym
			files[from] = files[to] = 1
		}
		# reach[a, b]: b reachable from a inside a layer (Floyd-Warshall).
		for (e in edge) {
			split(e, p, SUBSEP)
			if (layer(p[1]) == layer(p[2]))
				reach[p[1], p[2]] = 1
		}
		for (k in files) for (a in files) if ((a, k) in reach)
			for (b in files) if ((k, b) in reach)
				reach[a, b] = 1
		for (e in edge) {
			split(e, p, SUBSEP)
			syms = edge[e]
			if (rank[layer(p[2])] > rank[layer(p[1])])
				print p[1] " -> " p[2] " (calls up: " syms ")"
			else if (layer(p[1]) == layer(p[2]) && (p[2], p[1]) in reach)
				print p[1] " -> " p[2] " (on a circle: " syms ")"
		}
	}' <<<"$table" | sort)

# The allowlist without comments and blank lines: "FILE -> TARGET" each.
allowed=$(sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' -e 's/[[:space:]]\+/ /g' \
	"$allow" 2>/dev/null)

bad=0 known=0
while IFS= read -r v; do
	[[ -n $v ]] || continue
	key=${v%% (*}
	if grep -qxF -- "$key" <<<"$allowed"; then
		known=$((known + 1))
		continue
	fi
	echo "check-calls: $v: breaks the call rule (scripts/check-calls.sh)"
	bad=1
done <<<"$violations"
while IFS= read -r a; do
	[[ -n $a ]] || continue
	grep -q -- "^$a (" <<<"$violations" && continue
	echo "check-calls: $allow: '$a' no longer occurs: remove the line"
	bad=1
done <<<"$allowed"
((bad)) || echo "check-calls: $known known exceptions ($allow), no other"
exit $bad
