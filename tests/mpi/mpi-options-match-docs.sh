#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# docs/mpi.md's options table and libxsched-mpi's options table
# (libxsched/mpi/options.c) cannot drift: every option of the code is a row
# of the page with the same default and range, and the page has no other
# XSCHED_MPI_* integer option.
set -uo pipefail
src=${XS_SRCDIR:-.}
. "$src/scripts/tap.sh"
echo "TAP version 13"
echo "1..1"

# Code: { "NAME", def, min, max, (possibly split over lines).
code=$(tr '\n\t' '  ' <"$src/libxsched/mpi/options.c" |
	grep -o '{ "XSCHED_MPI_[A-Z_]*", *-*[0-9]*, *-*[0-9]*, *-*[0-9]*' |
	sed 's/[{",]//g' | awk '{ print $1, $2, $3 ".." $4 }' | sort)
# Page: | `NAME` | def | min..max | meaning |
page=$(grep '^| `XSCHED_MPI_[A-Z_]*` | -*[0-9]' "$src/docs/mpi.md" |
	awk -F'|' '{ gsub(/[ `]/, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); print $2, $3, $4 }' | sort)
ok=0
[[ -n $code && $code == "$page" ]] && ok=1
result $ok "docs/mpi.md lists every XSCHED_MPI_* option with options.c's default and range" \
	"$(diff <(echo "$code") <(echo "$page") | sed -n 's/^< /in options.c, not in the page: /p;s/^> /in the page, not in options.c: /p')"
exit $failed
