#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bash completion (packaging/completions/xsched): for every installed tool,
# "TOOL --<TAB>" offers every long option its --help names; the values
# written out in the completion (--dlb, --sort, --bind, ...) are the ones
# the tool's --help lists; subcommands complete; xsched-run completes the
# program after its own options.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
. "$src/scripts/tap.sh"

tools="xsched-run xsched-top xsched-trace xsched-options xsched-affinity xschedd"
for t in $tools; do
	if [[ ! -x $build/$t ]]; then
		echo "1..0 # SKIP $build/$t not built (make)"
		exit 4
	fi
done
echo "1..4"
export PATH="$build:$PATH"
. "$src/packaging/completions/xsched"

# complete WORDS...: COMPREPLY for the last word, one per line.
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_xsched
	printf '%s\n' "${COMPREPLY[@]}"
}

missing=""
for t in $tools; do
	got=$(complete_line "$t" --)
	for opt in $("$t" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qx -- "$opt" <<<"$got" || missing+=" $t:$opt"
	done
done
result $([[ -z $missing ]] && echo 1 || echo 0) "every long option of every tool's --help completes" \
	"missing:$missing"

# Each value list of the completion against the tool's --help line.
bad=""
check_values() { # TOOL OPTION VALUE...
	local tool=$1 opt=$2 line got v
	shift 2
	line=$("$tool" --help 2>&1 | grep -- "$opt")
	got=$(complete_line "$tool" "$opt" "" | sort | paste -sd ' ')
	[[ $got == "$(printf '%s\n' "$@" | sort | paste -sd ' ')" ]] || bad+=" $tool $opt offers '$got';"
	for v in "$@"; do
		grep -qw -- "$v" <<<"$line" || bad+=" $tool $opt: '$v' not in its --help line;"
	done
}
check_values xsched-run --dlb slb ws rp auto
check_values xsched-run --push auto rr local
check_values xsched-run --bind none compact scatter
check_values xsched-top --sort tasks steals idle pid command
check_values xschedd --bpf auto on off
result $([[ -z $bad ]] && echo 1 || echo 0) "option values complete as each --help lists them" "$bad"

sub=$(complete_line xsched-trace "" | paste -sd ' ')
aff=$(complete_line xsched-affinity "" | paste -sd ' ')
result $([[ $sub == "summary plot otf2" && $aff == "record plan show" ]] && echo 1 || echo 0) \
	"subcommands complete: xsched-trace ($sub), xsched-affinity ($aff)"

prog=$(complete_line xsched-run -n 2 --dlb ws xsched-option)
args=$(cd "$src" && complete_line xsched-run -n 2 -- ls Makefil)
result $([[ $prog == *xsched-options* && $args == Makefile ]] && echo 1 || echo 0) \
	"xsched-run completes the program after its options, then the program's files" \
	"program: $prog" "argument: $args"
exit $failed
