#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-readme-options.sh [--update] [PROGRAM [README]]
#
# The README's options table is the output of `PROGRAM --markdown`
# (build/xsched-options, generated from the options table in the library),
# placed between the lines <!-- options:begin --> and <!-- options:end -->.
# Without --update: exit 0 when they match, 1 with a diff when they drifted,
# 4 when PROGRAM is not built (a skip). With --update: rewrite the README.
set -euo pipefail

update=0
if [[ ${1:-} == --update ]]; then
	update=1
	shift
fi
src=${XS_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
prog=${1:-${XS_BUILDDIR:-$src/build}/xsched-options}
readme=${2:-$src/README.md}
begin='<!-- options:begin -->'
end='<!-- options:end -->'

if [[ ! -x $prog ]]; then
	echo "${prog#"$src"/} is not built yet (tools/xsched-options.c, tools-y in Kbuild)" >&2
	exit 4
fi
if [[ $(grep -cxF -e "$begin" -e "$end" "$readme") != 2 ]]; then
	echo "$readme: needs exactly one '$begin' and one '$end' line" >&2
	exit 1
fi

table=$("$prog" --markdown)
current=$(sed -n "\\|^$begin\$|,\\|^$end\$|{\\|^$begin\$|d;\\|^$end\$|d;p}" "$readme")
[[ $table == "$current" ]] && exit 0

if ((update)); then
	tmp=$(mktemp "$readme.XXXXXX")
	TABLE=$table awk -v b="$begin" -v e="$end" '
		$0 == b { print; print ENVIRON["TABLE"]; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$readme" >"$tmp"
	chmod --reference="$readme" "$tmp"
	mv "$tmp" "$readme"
	echo "  GEN     $readme (options table)"
	exit 0
fi
echo "$readme: the options table differs from '$prog --markdown' (run: make readme-options):" >&2
diff -u <(echo "$current") <(echo "$table") | tail -n +3 >&2
exit 1
