#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every installed header (include/xsched.h, include/xsched/*.h) compiles on
# its own as strict C11 (gcc -std=c11 -pedantic) and as C++17 (g++ -Wall
# -Wextra): applications in either language include them from the -dev
# package, not only the C sources of this tree.
set -uo pipefail

src=${XS_SRCDIR:-.}
cc=${CC:-gcc} cxx=g++
[[ $cc == *clang* ]] && cxx=clang++
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

headers=("$src"/include/xsched.h "$src"/include/xsched/*.h)
echo "TAP version 13"
echo "1..$((2 * ${#headers[@]}))"
. "$src/scripts/tap.sh"

for h in "${headers[@]}"; do
	name=${h#"$src"/include/}
	printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$name" "$name" \
		>"$tmp/t.c"
	cp "$tmp/t.c" "$tmp/t.cc"
	"$cc" -std=c11 -pedantic -Wall -Wextra -Werror -I"$src/include" -c "$tmp/t.c" \
		-o "$tmp/t.o" 2>"$tmp/err"
	result $((!$?)) "$name compiles as C11 -pedantic, included twice" "$(cat "$tmp/err")"
	"$cxx" -std=c++17 -Wall -Wextra -Werror -I"$src/include" -c "$tmp/t.cc" \
		-o "$tmp/t.o" 2>"$tmp/err"
	result $((!$?)) "$name compiles as C++17" "$(cat "$tmp/err")"
done
exit $failed
