#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gcc 12's own libgomp testsuite (libgomp/testsuite/libgomp.c and
# libgomp.c-c++-common, from Debian's gcc-12-source tarball) passes on the
# drop-in as it does under the system libgomp.
#
# The two directories are extracted once into the per-user cache (nothing
# of gcc is in this repository). Every "run" test (dg-do run, or no dg-do:
# libgomp's default) is compiled with gcc -fopenmp and its options:
# dg-options replaces the default -O2, dg-additional-options and
# dg-additional-sources add to it, each only where its target selector
# holds on x86_64 Linux without offload devices. Tests that are not run
# tests, that need an offload device, or whose selector fails are skipped
# and say why. Binaries are cached by a hash of the compiler, the options
# and the sources they include, so a rerun only runs.
#
# Each test then runs under the system libgomp and on the drop-in (through
# build/xsched-run) at OMP_NUM_THREADS=1, 2 and 4, with its
# dg-set-target-env-var settings, within a time limit. A run passes when it
# exits 0 (non-zero for dg-shouldfail) and its output matches its
# dg-output patterns, as DejaGnu decides. A test that fails under the
# system libgomp at a thread count is not counted at that count (its
# verdict is cached too). A test is ok when every counted drop-in run
# passes. tests/libgomp-testsuite.xfail lists the expected failures with a
# reason each; they show as "# TODO" lines and do not fail the script, but
# one that fails differently (a hang or a crash) does.
#
# The last line is the summary:
#   # libgomp testsuite: N counted, P passed, F failed, X expected failures, ...
#
# Environment:
#   LIBGOMP_TESTSUITE_TESTS     space-separated globs of test names to run
#                               (libgomp.c/target-*.c, *detach*, ...)
#   LIBGOMP_TESTSUITE_THREADS   thread counts (default "1 2 4")
#   LIBGOMP_TESTSUITE_TIMEOUT   seconds per run (default 60)
#   LIBGOMP_TESTSUITE_JOBS      tests built and run at once (default 2)
#   LIBGOMP_TESTSUITE_TARBALL   the gcc source tarball
#                               (default /usr/src/gcc-12/gcc-12*.tar.*)
#   LIBGOMP_TESTSUITE_CACHE     cache directory
#                               (default ~/.cache/xsched/libgomp-testsuite)
#   XS_SRCDIR, XS_BUILDDIR, SANITIZE
#
# It builds about 500 programs and makes about 3000 runs: on 2 CPUs that is
# more than run-tests.sh's default limit.
# xs-test-timeout: 2400
set -uo pipefail

src=${XS_SRCDIR:-.}
src=$(realpath "$src")
build=$(realpath -m "${XS_BUILDDIR:-$src/build}")
run_tool=$build/xsched-run
dropin=$build/libxsched-gomp.so.1
cache=${LIBGOMP_TESTSUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xsched/libgomp-testsuite}
threads=${LIBGOMP_TESTSUITE_THREADS:-1 2 4}
limit=${LIBGOMP_TESTSUITE_TIMEOUT:-60}
jobs=${LIBGOMP_TESTSUITE_JOBS:-2}
xfail_list=$src/tests/libgomp-testsuite.xfail
self=$(realpath "$0")

die() {
	echo "libgomp-testsuite.sh: $*" >&2
	exit 2
}

[[ $limit =~ ^[1-9][0-9]*$ ]] || die "LIBGOMP_TESTSUITE_TIMEOUT='$limit' is not a number of seconds >= 1"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "LIBGOMP_TESTSUITE_JOBS='$jobs' is not a number >= 1"
for t in $threads; do
	[[ $t =~ ^[1-9][0-9]*$ ]] || die "LIBGOMP_TESTSUITE_THREADS='$threads': '$t' is not a thread count >= 1"
done

# Runs must not depend on the caller's OpenMP settings or preloads.
while read -r var; do
	unset "$var"
done < <(compgen -e | grep -E '^(OMP|GOMP|KMP|XSCHED)_')
unset LD_PRELOAD

# ---------------------------------------------------------------------------
# One test run, in a child: run-one BIN SPEC THREADS SYSTEM|DROPIN OUT
# SPEC holds the test's settings (see parse below). Prints pass or fail:why.
if [[ ${1:-} == --run-one ]]; then
	bin=$2 spec=$3 nthreads=$4 how=$5 out=$6
	env_args=("OMP_NUM_THREADS=$nthreads")
	shouldfail=0
	while IFS=$'\t' read -r key val; do
		case $key in
		env) env_args+=("$val") ;;
		shouldfail) shouldfail=1 ;;
		esac
	done <"$spec"
	cmd=("$bin")
	[[ $how == dropin ]] && cmd=("$run_tool" -- "$bin")
	dir=$(dirname "$bin")
	# The outer redirection keeps bash's own "Aborted" line out of the TAP.
	(
		cd "$dir" && timeout -k 5 "$limit" env "${env_args[@]}" "${cmd[@]}" </dev/null >"$out" 2>&1
		exit $?
	) 2>/dev/null
	status=$?
	if ((status == 124 || status == 137)); then
		echo "fail:timed out after ${limit}s"
		exit 0
	fi
	if ((shouldfail)); then
		((status != 0)) || { echo "fail:exit status 0, expected a failure (dg-shouldfail)"; exit 0; }
	elif ((status != 0)); then
		if ((status > 128)); then
			echo "fail:killed by SIG$(kill -l $((status - 128)) 2>/dev/null || echo $((status - 128)))"
		else
			echo "fail:exit status $status"
		fi
		exit 0
	fi
	# dg-output: the patterns, concatenated, are one Tcl regular expression
	# that must match somewhere in stdout and stderr together. The
	# patterns were Tcl double-quoted strings: \n, \r, \[, \], \\ and \"
	# are substituted first, as Tcl does; the rest of the syntax is shared.
	if grep -q '^output' "$spec"; then
		perl -e '
			open(my $s, "<", $ARGV[0]) or die; my $re = "";
			while (<$s>) {
				chomp; next unless s/^output\t//;
				s/\\(.)/$1 eq "n" ? "\n" : $1 eq "r" ? "\r" : $1 eq "t" ? "\t" : $1/ge;
				$re .= $_;
			}
			open(my $o, "<", $ARGV[1]) or die; local $/; my $out = <$o>;
			exit($out =~ /$re/s ? 0 : 1);' "$spec" "$out" ||
			{ echo "fail:output does not match its dg-output patterns"; exit 0; }
	fi
	echo pass
	exit 0
fi

# ---------------------------------------------------------------------------
# Compile one test: build-one SPEC BIN LOG
if [[ ${1:-} == --build-one ]]; then
	spec=$2 bin=$3 log=$4
	[[ -x $bin ]] && exit 0 # a concurrent run built it
	srcs=() flags=()
	while IFS=$'\t' read -r key val; do
		case $key in
		source) srcs+=("$val") ;;
		flags) read -ra flags <<<"$val" ;;
		esac
	done <"$spec"
	tmpd=$(mktemp -d "$bin.tmp.XXXXXX")
	# Dump files (-fdump-tree-*) land in the temporary directory.
	if (cd "$tmpd" && gcc "${srcs[@]}" -fopenmp "${flags[@]}" -lm -o "$tmpd/a.out") >"$log" 2>&1; then
		mv -f "$tmpd/a.out" "$bin"
	fi
	rm -rf "$tmpd"
	exit 0
fi

. "$src/tests/omp-preload-guard.sh"
. "$src/scripts/tap.sh"

[[ -x $run_tool && -f $dropin ]] ||
	die "$run_tool and $dropin are not built (make builds them)"

# ---------------------------------------------------------------------------
# The testsuite, extracted once.
suite=$cache/src
if [[ ! -f $suite/.done ]]; then
	tarball=${LIBGOMP_TESTSUITE_TARBALL:-}
	if [[ -z $tarball ]]; then
		for f in /usr/src/gcc-12/gcc-12*.tar.*; do
			[[ -f $f ]] && tarball=$f
		done
	fi
	if [[ -z $tarball || ! -f $tarball ]]; then
		echo "TAP version 13"
		echo "1..0 # SKIP no gcc 12 source tarball in /usr/src/gcc-12 (package gcc-12-source, scripts/deps.sh)"
		exit 4
	fi
	echo "# extracting libgomp's testsuite from $tarball" >&2
	mkdir -p "$cache"
	tmpx=$(mktemp -d "$cache/src.tmp.XXXXXX")
	tar -xf "$tarball" -C "$tmpx" --wildcards --strip-components=3 \
		'*/libgomp/testsuite/libgomp.c/*' '*/libgomp/testsuite/libgomp.c-c++-common/*' ||
		{ rm -rf "$tmpx"; die "cannot extract libgomp's testsuite from $tarball"; }
	[[ -d $tmpx/libgomp.c && -d $tmpx/libgomp.c-c++-common ]] ||
		{ rm -rf "$tmpx"; die "$tarball has no libgomp/testsuite/libgomp.c"; }
	touch "$tmpx/.done"
	rm -rf "$suite"
	mv "$tmpx" "$suite" 2>/dev/null || rm -rf "$tmpx" # a concurrent run won
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$cache/bin" "$tmp/spec" "$tmp/res"

# ---------------------------------------------------------------------------
# Directives. For every test, $tmp/spec/<id> gets lines KEY<TAB>VALUE:
#   skip R | source FILE | flags F | env VAR=VALUE | shouldfail 1 | output RE
have_avx=0
grep -qw avx /proc/cpuinfo && have_avx=1

perl - "$suite" "$tmp/spec" "$have_avx" "$(gcc -dumpfullversion 2>/dev/null)" <<'PERL' >"$tmp/tests"
use strict; use warnings;
use Digest::SHA qw(sha256_hex);
my ($suite, $specdir, $avx, $gccv) = @ARGV;
# Effective-target keywords true here: x86_64 Linux, C, lp64, no offload.
my %true = map { $_ => 1 } qw(c *-*-linux* *-*-gnu* *-*-* x86_64-*-* i?86-*-* lp64
    sse2_runtime tls_runtime tls lto __float128 vect_simd_clones size32plus
    sync_int_long shared large_long_double fpic);
$true{avx_runtime} = 1 if $avx;

# A selector: a word, or a braced list (any) or expression (&&, ||, !).
sub sel {
	my ($s) = @_;
	$s =~ s/^\s+|\s+$//g;
	while ($s =~ /^\{(.*)\}$/s && balanced($1)) { $s = $1; $s =~ s/^\s+|\s+$//g; }
	my @t = top($s);
	for my $op ('||', '&&') {
		my @parts; my $cur = '';
		for (@t) { if ($_ eq $op) { push @parts, $cur; $cur = ''; } else { $cur .= " $_"; } }
		next unless @parts;
		push @parts, $cur;
		return $op eq '||' ? (grep { sel($_) } @parts) ? 1 : 0
				   : (grep { !sel($_) } @parts) ? 0 : 1;
	}
	return !sel(join ' ', @t[1..$#t]) if @t && $t[0] eq '!';
	return 1 if @t == 1 && $t[0] !~ /^\{/ && $true{$t[0]};
	return 0 if @t == 1 && $t[0] !~ /^\{/;
	for (@t) { return 1 if sel($_); }
	return 0;
}
sub slurp { my $h; open($h, '<', $_[0]) or return ''; local $/; return scalar <$h>; }
sub balanced { my $d = 0; for (split //, $_[0]) { $d++ if $_ eq '{'; $d-- if $_ eq '}'; return 0 if $d < 0; } $d == 0 }
sub top {
	my ($s) = @_; my @t; my $d = 0; my $cur = '';
	for my $c (split //, $s) {
		if ($c =~ /\s/ && !$d) { push @t, $cur if length $cur; $cur = ''; next; }
		$d++ if $c eq '{'; $d-- if $c eq '}'; $cur .= $c;
	}
	push @t, $cur if length $cur;
	return @t;
}
# "target SEL" or "SEL" (dg-skip-if) after the arguments.
sub target_ok {
	my ($rest) = @_;
	return 1 unless defined $rest && $rest =~ /\S/;
	$rest =~ s/^\s*\{\s*target\s+(.*)\}\s*$/$1/s or return sel($rest);
	return sel($1);
}

my $id = 0;
for my $dir ('libgomp.c', 'libgomp.c-c++-common') {
	opendir(my $dh, "$suite/$dir") or die "$suite/$dir: $!";
	for my $f (sort grep { /\.c$/ } readdir $dh) {
		my $path = "$suite/$dir/$f";
		open(my $fh, '<', $path) or die "$path: $!";
		my $text = do { local $/; <$fh> };
		my (@skip, @add, @env, @out, @srcs);
		my ($opts, $do, $shouldfail) = ('-O2', 'run', 0);
		while ($text =~ /\{\s*(dg-[a-z-]+)\s+(.*?)\}\s*(?:\*\/|$)/mg) {
			my ($d, $args) = ($1, $2);
			# Arguments: a quoted string or a word, then the rest.
			my ($a1, $rest) = $args =~ /^\s*(?:"((?:[^"\\]|\\.)*)"|(\S+))\s*(.*)$/s
			    ? (defined $1 ? $1 : $2, $3) : ('', '');
			if ($d eq 'dg-do') {
				$a1 =~ s/"//g;
				if ($a1 ne 'run') { $do = $a1; }
				elsif ($rest =~ /\S/ && !target_ok($rest)) { push @skip, "dg-do run only for $rest"; }
			} elsif ($d eq 'dg-options') {
				$opts = $a1 if target_ok($rest);
			} elsif ($d eq 'dg-additional-options') {
				push @add, $a1 if target_ok($rest);
			} elsif ($d eq 'dg-require-effective-target') {
				push @skip, "needs $a1" unless sel($a1);
			} elsif ($d eq 'dg-skip-if') {
				my ($sel) = $rest =~ /^\s*(\{.*\})/s;
				push @skip, "dg-skip-if $sel" if defined $sel && sel($sel);
			} elsif ($d eq 'dg-set-target-env-var') {
				my ($var, $val) = $args =~ /^\s*(\S+)\s+"((?:[^"\\]|\\.)*)"/s;
				push @env, "$var=$val" if defined $val;
			} elsif ($d eq 'dg-additional-sources') {
				push @srcs, "$suite/$dir/$_" for split ' ', $a1;
			} elsif ($d eq 'dg-shouldfail') {
				$shouldfail = 1 if target_ok($rest);
			} elsif ($d eq 'dg-output') {
				push @out, $a1 if target_ok($rest);
			}
		}
		push @skip, "dg-do $do: not a run test" if $do ne 'run';
		push @skip, "needs an offload device" if grep { /offload/ } @skip;
		# The binary's key: compiler, options, sources and their quoted
		# includes.
		my $flags = join(' ', $opts, @add);
		my $key = "$gccv\n$flags\n";
		for my $file ($path, @srcs) {
			my $t = slurp($file);
			$key .= $t;
			(my $d = $file) =~ s{/[^/]*$}{};
			for my $inc ($t =~ /^\s*#\s*include\s*"([^"]+)"/mg) {
				$key .= slurp("$d/$inc");
			}
		}
		$id++;
		open(my $s, '>', "$specdir/$id") or die;
		print $s "key\t" . substr(sha256_hex($key), 0, 16) . "\n";
		print $s "skip\t$skip[-1]\n" if @skip;
		print $s "source\t$_\n" for ($path, @srcs);
		print $s "flags\t$flags\n";
		print $s "env\t$_\n" for @env;
		print $s "shouldfail\t1\n" if $shouldfail;
		print $s "output\t$_\n" for @out;
		close $s;
		print "$id\t$dir/$f\n";
	}
}
PERL
(($? == 0)) || die "cannot read the testsuite's directives in $suite"

# The subset to run.
patterns=()
[[ -n ${LIBGOMP_TESTSUITE_TESTS:-} ]] && read -ra patterns <<<"$LIBGOMP_TESTSUITE_TESTS"
ids=() names=()
while IFS=$'\t' read -r id name; do
	if ((${#patterns[@]})); then
		keep=0
		for p in "${patterns[@]}"; do
			# shellcheck disable=SC2053
			[[ $name == $p || ${name#*/} == $p ]] && keep=1
		done
		((keep)) || continue
	fi
	ids+=("$id") names+=("$name")
done <"$tmp/tests"
((${#ids[@]})) || die "LIBGOMP_TESTSUITE_TESTS='${LIBGOMP_TESTSUITE_TESTS:-}' names no test"

# The expected failures: "NAME REASON" lines.
declare -A xfail=()
if [[ -f $xfail_list ]]; then
	while read -r name reason; do
		[[ -z $name || $name == \#* ]] && continue
		[[ -n $reason ]] || die "$xfail_list: $name has no reason"
		xfail[$name]=$reason
	done <"$xfail_list"
fi

# ---------------------------------------------------------------------------
# Build what is not cached: the key hashes the compiler, the options and
# every source and quoted include of the test.
sysgomp=$(gcc -print-file-name=libgomp.so.1)
syskey=$(stat -L -c %s-%Y "$sysgomp" 2>/dev/null)
declare -A bin=() skipwhy=()
: >"$tmp/build.list"
for i in "${!ids[@]}"; do
	id=${ids[i]} spec=$tmp/spec/${ids[i]}
	key=
	while IFS=$'\t' read -r k v; do
		case $k in
		key) key=$v ;;
		skip) skipwhy[$id]=$v ;;
		esac
	done <"$spec"
	[[ -n ${skipwhy[$id]:-} ]] && continue
	b=${names[i]##*/}
	b=$cache/bin/${b%.c}-$key
	bin[$id]=$b
	[[ -x $b || -f $b.log ]] || printf '%s\t%s\n' "$spec" "$b" >>"$tmp/build.list"
done
if [[ -s $tmp/build.list ]]; then
	echo "# building $(wc -l <"$tmp/build.list") tests" >&2
	while IFS=$'\t' read -r spec b; do
		printf '%s\0%s\0%s.log\0' "$spec" "$b" "$b"
	done <"$tmp/build.list" |
		xargs -0 -n 3 -P "$jobs" nice -n 5 "$self" --build-one
fi

# ---------------------------------------------------------------------------
# Run: for each test and thread count, the system libgomp's verdict
# (cached beside the binary, keyed by the system library) and the drop-in's.
run_test() {
	local id=$1 b=$2 spec=$tmp/spec/$1 t v sysf
	for t in $threads; do
		sysf=$b.sys-$syskey-$t
		if [[ ! -f $sysf ]]; then
			v=$("$self" --run-one "$b" "$spec" "$t" system "$tmp/res/$id.sys$t.out")
			echo "$v" >"$sysf"
		fi
		read -r v <"$sysf"
		echo "$v" >"$tmp/res/$id.sys$t"
		[[ $v == pass ]] || continue
		"$self" --run-one "$b" "$spec" "$t" dropin "$tmp/res/$id.xs$t.out" >"$tmp/res/$id.xs$t"
	done
	touch "$tmp/res/$id.done"
}
export -f run_test
export self tmp threads syskey limit run_tool
for id in "${ids[@]}"; do
	b=${bin[$id]:-}
	[[ -n $b && -x $b ]] && printf '%s\0%s\0' "$id" "$b"
done | xargs -0 -n 2 -P "$jobs" bash -c 'run_test "$@"' run_test

# ---------------------------------------------------------------------------
# Report.
echo "TAP version 13"
echo "1..${#ids[@]}"
counted=0 passed=0 nfail=0 nxfail=0 nxpass=0 skipped=0 sysfail=0 buildfail=0
declare -A tpass=() tcount=()
for i in "${!ids[@]}"; do
	id=${ids[i]} name=${names[i]} spec=$tmp/spec/${ids[i]}
	if [[ -n ${skipwhy[$id]:-} ]]; then
		skipped=$((skipped + 1))
		n=$((n + 1))
		echo "ok $n $name # SKIP ${skipwhy[$id]}"
		continue
	fi
	b=${bin[$id]}
	if [[ ! -x $b ]]; then
		buildfail=$((buildfail + 1))
		n=$((n + 1))
		echo "ok $n $name # SKIP does not build here: $(grep -m1 -E 'error|fatal' "$b.log" | cut -c1-160)"
		continue
	fi
	diag=() counted_here=0 ok=1 sysdiag=()
	for t in $threads; do
		v="fail:not run"
		[[ -f $tmp/res/$id.sys$t ]] && read -r v <"$tmp/res/$id.sys$t"
		if [[ $v != pass ]]; then
			sysdiag+=("${t}T: ${v#fail:}")
			continue
		fi
		counted_here=1
		tcount[$t]=$((${tcount[$t]:-0} + 1))
		v="fail:not run"
		[[ -f $tmp/res/$id.xs$t ]] && read -r v <"$tmp/res/$id.xs$t"
		if [[ $v == pass ]]; then
			tpass[$t]=$((${tpass[$t]:-0} + 1))
		else
			ok=0
			diag+=("OMP_NUM_THREADS=$t: ${v#fail:}" "$(tail -n 4 "$tmp/res/$id.xs$t.out" 2>/dev/null)")
		fi
	done
	if ((!counted_here)); then
		sysfail=$((sysfail + 1))
		n=$((n + 1))
		echo "ok $n $name # SKIP fails under the system libgomp (${sysdiag[*]})"
		continue
	fi
	counted=$((counted + 1))
	if [[ -n ${xfail[$name]:-} ]]; then
		n=$((n + 1))
		if ((ok)); then
			nxpass=$((nxpass + 1))
			echo "ok $n $name # listed as an expected failure but passes: take it off the list"
		else
			nxfail=$((nxfail + 1))
			for d in "${diag[@]}"; do [[ -n $d ]] && printf '%s\n' "$d" | sed 's/^/# /'; done
			echo "ok $n $name # SKIP expected failure: ${xfail[$name]}"
		fi
		continue
	fi
	if ((ok)); then
		passed=$((passed + 1))
	else
		nfail=$((nfail + 1))
	fi
	result $ok "$name" "${diag[@]}"
done
per=
for t in $threads; do per+=" ${t}T ${tpass[$t]:-0}/${tcount[$t]:-0}"; done
echo "# libgomp testsuite: ${#ids[@]} tests, $counted counted, $passed passed, $nfail failed," \
	"$nxfail expected failures ($nxpass of them passing); not counted: $skipped skipped," \
	"$buildfail do not build, $sysfail fail under the system libgomp; drop-in runs passed:$per"
xmax=$((counted / 50))
if ((${#xfail[@]} > xmax && ${#patterns[@]} == 0)); then
	echo "# $xfail_list lists ${#xfail[@]} tests, more than 2% of the $counted counted ($xmax)"
	failed=1
fi
exit $failed
