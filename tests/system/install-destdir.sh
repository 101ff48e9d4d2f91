#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make install DESTDIR=tmp puts exactly the expected files in place (the
# library with its SONAME links, headers, xsched.pc, tools, xschedd, the
# unit, /etc/default/xschedd, man pages, the drop-in in its private
# directory); a program built with `pkg-config --cflags --libs xsched`
# against that tree runs; the installed xsched-run finds the installed
# drop-in by itself, which the library directory alone does not reach;
# make uninstall leaves no file behind; the unit follows PREFIX (systemd's
# directory only for /usr).
set -uo pipefail

src=${XS_SRCDIR:-.}
build=${XS_BUILDDIR:-$src/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

echo "TAP version 13"
echo "1..9"
. "$src/scripts/tap.sh"

# The directories make uses by default (packaging/install.mk).
mk() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -C "$src" \
		O="$build" "$@"
}
dirs=$(mk install-dirs)
var() { sed -n "s|^$1=||p" <<<"$dirs"; }
prefix=$(var PREFIX) libdir=$(var LIBDIR) bindir=$(var BINDIR) unitdir=$(var UNITDIR)
compdir=$(var COMPLETIONSDIR)
major=$(sed -n 's/^#define XSCHED_VERSION_MAJOR *//p' "$src/include/xsched.h")
minor=$(sed -n 's/^#define XSCHED_VERSION_MINOR *//p' "$src/include/xsched.h")
[[ -n $libdir && -n $bindir && -n $unitdir ]] || {
	echo "Bail out! cannot read LIBDIR, BINDIR, UNITDIR from make -pn"
	exit 1
}

mk DESTDIR="$root" install >"$tmp/install.log" 2>&1
rc=$?
result $((rc == 0)) "make install DESTDIR=... succeeds" "$(tail -n 20 "$tmp/install.log")"

# Expected files, from the source tree's own lists.
{
	printf '%s\n' "$libdir/libxsched.so.$major.$minor" "$libdir/libxsched.so.$major" \
		"$libdir/libxsched.so" "$libdir/libxsched.a" "$libdir/pkgconfig/xsched.pc" \
		"$libdir/xsched/libxsched-gomp.so.1" "$libdir/xsched/libgomp.so.1" \
		"$prefix/include/xsched.h" "$prefix/include/xsched/abi.h" \
		"$prefix/include/xsched/proc_start.h" "$prefix/include/xsched/abi_pread.h" \
		"$prefix/include/xsched/stats_page_file.h" \
		"$prefix/include/xsched/stats_page.h" "$prefix/include/xsched/task_inline.h" \
		"$prefix/include/xsched/task_typed.h"
	for t in xsched-run xsched-top xsched-trace xsched-options xsched-affinity; do
		echo "$bindir/$t" "$compdir/$t"
	done | tr ' ' '\n'
	if [[ -x $build/xschedd ]]; then
		printf '%s\n' "$prefix/sbin/xschedd" "$unitdir/xschedd.service" \
			/etc/default/xschedd "$compdir/xschedd"
	fi
	if [[ -f $build/libxsched-cuda.so ]]; then
		printf '%s\n' "$libdir/libxsched-cuda.so" "$libdir/pkgconfig/xsched-cuda.pc" \
			"$prefix/include/xsched/cuda.h"
	fi
	for m in "$src"/man/*.[1378]; do
		[[ -e $m ]] && echo "$prefix/share/man/man${m##*.}/${m##*/}"
	done
} | sort >"$tmp/want"
(cd "$root" && find . -type f -o -type l) | sed 's|^\.||' | sort >"$tmp/got"
result $(cmp -s "$tmp/want" "$tmp/got" && echo 1 || echo 0) \
	"the installed files are exactly the expected ones" \
	"$(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | sed 's/^</missing:/;s/^>/unexpected:/')"

# pkg-config against the tree, as a sysroot.
pc() {
	PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root$libdir/pkgconfig pkg-config "$@"
}
flags=$(pc --cflags --libs xsched 2>"$tmp/pc.err")
gcc -std=c11 -Wall -Werror -o "$tmp/fib" "$src/tests/install/fib.c" $flags 2>"$tmp/cc.err"
rc=$?
out=$(LD_LIBRARY_PATH=$root$libdir "$tmp/fib" 20 2>&1)
lib=$(LD_LIBRARY_PATH=$root$libdir ldd "$tmp/fib" | sed -n 's/.*libxsched.so.[0-9]* => \([^ ]*\).*/\1/p')
result $((rc == 0)) "a program builds with pkg-config --cflags --libs xsched ($flags)" \
	"$(cat "$tmp/pc.err" "$tmp/cc.err")"
# Under SANITIZE the installed libraries are instrumented and the programs
# here are not: ASan refuses to start ("runtime does not come first"), TSan
# dies at start-up. The two runs are skipped there; the files, pkg-config,
# the private drop-in directory and uninstall are still checked.
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP SANITIZE=$SANITIZE: instrumented libraries, uninstrumented programs"
}
if [[ -n ${SANITIZE:-} ]]; then
	skip "it runs on the installed libxsched.so.$major"
else
	[[ $out == "fib(20) = 6765 on 2 workers" && $lib == "$root$libdir/libxsched.so.$major" ]]
	result $((!$?)) "it runs on the installed libxsched.so.$major" "output: $out" \
		"libxsched: $lib"
fi

# The drop-in: gcc -fopenmp program through the installed xsched-run.
gcc -fopenmp -O2 -o "$tmp/omp" "$src/tests/install/omp-tasks.c" 2>"$tmp/cc.err" || {
	echo "Bail out! cannot compile tests/install/omp-tasks.c: $(cat "$tmp/cc.err")"
	exit 1
}
if [[ -n ${SANITIZE:-} ]]; then
	skip "the installed xsched-run preloads the installed drop-in"
else
	out=$(env -u LD_PRELOAD -u LD_LIBRARY_PATH "$root$bindir/xsched-run" -v --stats -n 3 -- \
		"$tmp/omp" 2>"$tmp/err")
	preload=$(sed -n 's/^xsched-run: LD_PRELOAD=//p' "$tmp/err")
	[[ $out == "team 3 sum 499500" ]] && grep -q '^total' "$tmp/err" &&
		[[ $(realpath "$preload") == "$(realpath "$root$libdir/xsched/libxsched-gomp.so.1")" ]]
	result $((!$?)) "the installed xsched-run preloads the installed drop-in" \
		"output: $out" "LD_PRELOAD=$preload" "$(tail -n 5 "$tmp/err")"
fi

# Private: the public library directory does not hand out the drop-in as
# libgomp.so.1; the private one does, when asked for explicitly.
pub=$(LD_LIBRARY_PATH=$root$libdir ldd "$tmp/omp" | sed -n 's/.*libgomp.so.1 => \([^ ]*\).*/\1/p')
priv=$(LD_LIBRARY_PATH=$root$libdir/xsched ldd "$tmp/omp" |
	sed -n 's/.*libgomp.so.1 => \([^ ]*\).*/\1/p')
[[ $pub != "$root"* && $priv == "$root$libdir/xsched/libgomp.so.1" ]]
result $((!$?)) "libgomp.so.1 comes from $libdir/xsched only when asked for" \
	"with LD_LIBRARY_PATH=libdir: $pub" "with LD_LIBRARY_PATH=libdir/xsched: $priv"

mk DESTDIR="$root" uninstall >"$tmp/uninstall.log" 2>&1
rc=$?
result $((rc == 0)) "make uninstall DESTDIR=... succeeds" "$(tail -n 20 "$tmp/uninstall.log")"
left=$(cd "$root" && find . -type f -o -type l)
result $([[ -z $left ]] && echo 1 || echo 0) "make uninstall leaves no file behind" "left: $left"

opt=$(mk PREFIX=/opt/xs install-dirs | sed -n 's|^UNITDIR=||p')
usr=$(mk PREFIX=/usr install-dirs | sed -n 's|^UNITDIR=||p')
sd=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
result $([[ $unitdir == "$prefix/lib/systemd/system" && $opt == /opt/xs/lib/systemd/system && $usr == "$sd" ]] &&
	echo 1 || echo 0) "the unit follows PREFIX: $unitdir, $opt; systemd's own for /usr: $usr"
exit $failed
