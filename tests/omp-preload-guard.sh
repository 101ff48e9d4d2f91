# SPDX-License-Identifier: MIT
# Sourced by the tests that LD_PRELOAD the drop-in into programs built
# without sanitizers: under SANITIZE the drop-in is instrumented, and an
# instrumented library cannot be preloaded into an uninstrumented program
# (ASan: "runtime does not come first"; TSan dies at start-up). Such a test
# reports one skip; omp-corpus.sh runs the corpus instrumented instead.
if [[ -n ${SANITIZE:-} ]]; then
	echo "TAP version 13"
	echo "1..1"
	echo "ok 1 $(basename "$0" .sh) # SKIP SANITIZE=$SANITIZE: an instrumented drop-in cannot be preloaded into uninstrumented programs (omp-corpus runs instrumented)"
	exit 0
fi
