#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The man pages (man/) format without a single groff warning (-ww), every
# function libxsched exports (libxsched/libxsched.map) has its man3 page,
# xsched(7) documents exactly the XSCHED_* options of the library's table,
# xschedd(8) every XSCHEDD_* setting, and every installed program its page.
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
if ! command -v groff >/dev/null; then
	echo "1..0 # SKIP groff not installed (scripts/deps.sh installs groff-base)"
	exit 0
fi
pages=("$src"/man/*.[1-8])
echo "1..$((${#pages[@]} + 5))"
. "$src/scripts/tap.sh"

# .so links name man3/page.3, as installed: give soelim that tree.
ln -s "$(cd "$src/man" && pwd)" "$tmp/man3"
for p in "${pages[@]}"; do
	name=${p##*/}
	out=$(cd "$src/man" && LC_ALL=C.UTF-8 groff -man -ww -z -I "$tmp" -Tutf8 "$name" 2>&1)
	rc=$?
	first=$(head -n 1 "$p")
	if [[ $first == .so\ * && ! -f $tmp/${first#.so } ]]; then
		out="links to a page that is not there: $first"
		rc=1
	fi
	result $((rc == 0 && ${#out} == 0)) "man/$name formats without warnings" "$out"
done

missing=
for f in $(sed -n 's/^[[:space:]]*\(xs_[a-z0-9_]*\);$/\1/p' "$src/libxsched/libxsched.map"); do
	[[ -f $src/man/$f.3 ]] || missing+=" $f"
done
result $([[ -z $missing ]] && echo 1 || echo 0) \
	"every function in libxsched.map has man/NAME.3" "without a page:$missing"

if [[ -x $build/xsched-options ]]; then
	"$build/xsched-options" | awk '{ print $1 }' | sort >"$tmp/table"
	sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$src/man/xsched.7" |
		sed -n 's/^\.B \(XSCHED_[A-Z0-9_]*\)$/\1/p' | sort >"$tmp/page"
	result $(cmp -s "$tmp/table" "$tmp/page" && echo 1 || echo 0) \
		"xsched(7) ENVIRONMENT lists exactly the options table" \
		"$(diff "$tmp/table" "$tmp/page" | sed -n 's/^< /not in the page: /p;s/^> /not in the table: /p')"
else
	result 1 "xsched(7) ENVIRONMENT lists exactly the options table # SKIP xsched-options not built"
fi

if [[ -x $build/xschedd ]]; then
	"$build/xschedd" --help | grep -o 'XSCHEDD_[A-Z_]*' | sort -u >"$tmp/table"
	sed -n 's/^\.B \(XSCHEDD_[A-Z_]*\)$/\1/p' "$src/man/xschedd.8" | sort -u >"$tmp/page"
	result $(cmp -s "$tmp/table" "$tmp/page" && echo 1 || echo 0) \
		"xschedd(8) documents every setting of xschedd --help" \
		"$(diff "$tmp/table" "$tmp/page" | sed -n 's/^< /not in the page: /p;s/^> /not in --help: /p')"
else
	result 1 "xschedd(8) documents every setting # SKIP xschedd not built"
fi

missing=
for t in xsched-run.1 xsched-top.1 xsched-trace.1 xsched-options.1 xsched-affinity.1 xschedd.8 xsched.7; do
	[[ -f $src/man/$t ]] || missing+=" $t"
done
result $([[ -z $missing ]] && echo 1 || echo 0) "every installed program has its page" \
	"missing:$missing"

# Each page's NAME line names the page (what mandb and apropos index).
bad=
for p in "${pages[@]}"; do
	name=${p##*/}
	name=${name%.*}
	head -n 1 "$p" | grep -q '^\.so ' && continue
	sed -n '/^\.SH NAME/{n;p;}' "$p" | sed 's/\\-/-/g' | grep -qw -- "$name" || bad+=" $name"
done
result $([[ -z $bad ]] && echo 1 || echo 0) "every page's NAME section names it" "wrong:$bad"
exit $failed
