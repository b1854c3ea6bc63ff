#!/bin/sh
# The program pairs of tests/cases/ that exercise the thread model: the
# paper's running example (shared-memory tree and warp-shuffle reduction),
# a layer norm by two block-wide shared-memory trees whose results every
# thread reads back (norm-tree: resolved once per block), and one
# buggy/fixed pair per finding class of Table 1.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'running-example*'
run_cases 'norm-tree*'
run_cases 'shared-race*'
run_cases 'fence-*'
run_cases 'warp-sync*'
run_cases 'barrier-*'
run_cases 'shfl-*'
run_cases 'oob-*'
run_cases 'uninit-shared*'
test_done
