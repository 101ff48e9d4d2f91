#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# man-options.sh XSCHED_OPTIONS PAGE - rewrite the option entries of PAGE's
# ENVIRONMENT section (man/xsched.7) from the options table, as printed by
# `xsched-options --markdown`: one .TP/.B entry per variable, in the
# table's order. The section's first paragraph (up to the first .TP) and
# the paragraphs after the entries are kept. `make man-options` runs it;
# tests/system/man-pages.sh checks that the names agree.
set -euo pipefail

tool=$1 page=$2
entries=$("$tool" --markdown | awk -F' [|] ' 'NR > 2 {
	name = $1; sub(/^[|] `/, "", name); sub(/`$/, "", name)
	doc = $4; sub(/ [|]$/, "", doc)
	doc = toupper(substr(doc, 1, 1)) substr(doc, 2)
	gsub(/-/, "\\-", doc); gsub(/-/, "\\-", $3); gsub(/-/, "\\-", $2)
	printf ".TP\n.B %s\n%s.\nAccepted: %s; default: %s.\n", name, doc, $3, $2
}')
# The entries run from the section's first .TP to its first .PP (or the
# next .SH): what comes before and after them is kept.
ENTRIES=$entries awk '
	function flush() { if (skipping) { print ENVIRON["ENTRIES"]; skipping = 0; done = 1 } }
	/^\.SH / { flush(); insec = 0 }
	/^\.SH ENVIRONMENT/ { insec = 1 }
	insec && !done && /^\.TP/ { skipping = 1 }
	insec && /^\.PP/ { flush() }
	!skipping { print }
	END { flush() }
' "$page" >"$page.tmp"
mv "$page.tmp" "$page"
