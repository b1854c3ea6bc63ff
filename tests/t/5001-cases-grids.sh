#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: 2D grids,
# kernel chains (a stencil through an intermediate buffer against a fused
# shared-memory tile), loops, unsupported programs, stores under one
# guard that no corner thread meets.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'matadd-*'
run_cases 'transpose-*'
run_cases 'relu-*'
run_cases 'rowsum-*'
run_cases 'datadep-*'
run_cases 'stencil-*'
run_cases 'guarded-*'
# 64 unrolled stores under one guard (tid.x == 5) that no corner thread
# meets: dcheck's path-condition coverage asks the solver once for them
# all (40_LayerNorm asked 16,384 times and spent its budget before the
# first location)
test_expect_success 'guarded-unroll: one solver question for the 64 writes under one guard' '
	dcheck -v guarded-unroll.sym 2>err >/dev/null &&
	grep -q "path-condition coverage: 1 solver question for 64 writes no corner thread performs" err
'
test_done
