#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The options table in README.md is exactly what `xsched-options --markdown`
# prints from the library's options table (scripts/check-readme-options.sh).
echo "TAP version 13"
echo "1..1"
out=$("${XS_SRCDIR:-.}/scripts/check-readme-options.sh" 2>&1)
case $? in
0) echo "ok 1 readme-options-match" ;;
4) echo "ok 1 readme-options-match # SKIP $out" ;;
*) sed 's/^/# /' <<<"$out"; echo "not ok 1 readme-options-match"; exit 1 ;;
esac
