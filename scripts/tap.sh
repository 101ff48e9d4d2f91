# SPDX-License-Identifier: MIT
#
# tap.sh - sourced by test scripts that print TAP.
#
#   result OK DESCRIPTION [DIAGNOSTIC...]
#       one TAP line, numbered from 1 in $n; on not ok, every non-empty
#       DIAGNOSTIC (each may span lines) is shown first as "# " comments,
#       and failed=1 (the script ends with: exit $failed)
#   describe STATUS
#       a phrase for a command's exit status: "exit status N", "timed out"
#       (124, 137: timeout(1)) or "killed by SIGNAME"

n=0 failed=0

result() {
	local ok=$1 what=$2 line
	shift 2
	n=$((n + 1))
	if ((ok)); then
		echo "ok $n $what"
		return
	fi
	for line in "$@"; do
		[[ -n $line ]] && printf '%s\n' "$line" | sed 's/^/# /'
	done
	echo "not ok $n $what"
	failed=1
}

describe() {
	local s=$1

	if ((s == 124 || s == 137)); then
		echo "timed out"
	elif ((s > 128)); then
		echo "killed by SIG$(kill -l $((s - 128)) 2>/dev/null || echo $((s - 128)))"
	else
		echo "exit status $s"
	fi
}
