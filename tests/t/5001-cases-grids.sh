#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: 2D grids,
# kernel chains (a stencil through an intermediate buffer against a fused
# shared-memory tile), loops, unsupported programs.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'matadd-*'
run_cases 'transpose-*'
run_cases 'relu-*'
run_cases 'rowsum-*'
run_cases 'datadep-*'
run_cases 'stencil-*'
test_done
