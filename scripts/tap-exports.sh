# SPDX-License-Identifier: MIT
#
# tap-exports.sh - sourced by the tests that check a shared library's
# exported symbols against its public header (TAP output).
#
#   result OK DESCRIPTION [DIAGNOSTIC...]   from tap.sh
#   check_exports SO HEADER NODE            three results: every dynamic symbol
#                                           is xs_*@@NODE, every function of
#                                           HEADER is exported, nothing else is

. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

check_exports() {
	local so=$1 header=$2 node=$3 exported bad public names missing extra

	# Defined dynamic symbols as name@@version, minus the version node itself.
	exported=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v "^${node%%_[0-9]*}_[0-9]")
	bad=$(grep -v "^xs_[a-z0-9_]*@@${node//./\\.}\$" <<<"$exported")
	result $((${#bad} == 0)) only-versioned-xs-symbols "exported outside the map:" $bad

	# Functions declared at the top level of the public header.
	# Also the thread-local variables they declare (extern __thread);
	# static inline functions are not symbols.
	public=$( (grep -E '^[a-z].*[^A-Za-z0-9_]xs_[a-z0-9_]+\(' "$header" | grep -v '^static' |
		sed -E 's/.*[^A-Za-z0-9_](xs_[a-z0-9_]+)\(.*/\1/'
		grep -E '^extern __thread .*[^A-Za-z0-9_]xs_[a-z0-9_]+;' "$header" |
		sed -E 's/.*[^A-Za-z0-9_](xs_[a-z0-9_]+);.*/\1/') | sort -u)
	names=$(sed 's/@.*//' <<<"$exported" | sort -u)
	missing=$(comm -23 <(echo "$public") <(echo "$names"))
	[[ -n $public ]] || missing="(no function found in $header)"
	result $((${#missing} == 0)) public-api-exported "declared in $header but not exported:" $missing

	extra=$(comm -13 <(echo "$public") <(echo "$names"))
	result $((${#extra} == 0)) no-internal-exported "exported but not in $header:" $extra
}
