#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xsched-bench --dgemm --json: one JSON object per row and line, nothing
# else on stdout, the same rows as the table (every implementation at
# every size and load), numbers where the table has numbers.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
bench=$build/xsched-bench
. "$src/scripts/tap.sh"

if [[ ! -x $bench ]]; then
	echo "1..0 # SKIP $bench not built (make)"
	exit 4
fi
echo "1..2"

json=$(timeout 120 "$bench" --dgemm --quick --json --threads 1 --repeat 1 2>/dev/null)
s=$?
table=$(timeout 120 "$bench" --dgemm --quick --threads 1 --repeat 1 2>/dev/null)
num='-?[0-9.]+(e[-+]?[0-9]+)?'
row="^\\{\"bench\":\"dgemm\",\"threads\":1,\"n\":[0-9]+,\"load\":\"(quiet|noisy)\",\"impl\":\"[^\"]+\",\"gflops\":$num,\"eff\":$num,\"t_c\":($num|null),\"t_r\":($num|null)\\}\$"
bad=$(grep -vE "$row" <<<"$json")
result $((s == 0 && ${#json} > 0)) "--json exits 0 with output" "$(describe $s)"
rows=$(grep -cE '^ +[0-9]+ (quiet|noisy) ' <<<"$table")
objs=$(grep -cE "$row" <<<"$json")
result $([[ -z $bad && $objs == "$rows" && $rows -gt 0 ]] && echo 1 || echo 0) \
	"every line is a row object, as many as the table's rows ($objs, $rows)" "not a row: $bad"
exit $failed
