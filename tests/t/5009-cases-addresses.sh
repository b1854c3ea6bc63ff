#!/bin/sh
# The program pairs of tests/cases/ whose addresses dexec decides by
# splitting or by cases: a load through a select between two pointers on
# a condition over the thread (`k < XS ? x[..] : h[..]`, the fused
# concatenation of an RNN cell: the bundle splits on the condition), and
# a float4 load that meets the thread's own earlier store at one element,
# which element depending on the thread (the store is forwarded where the
# offsets coincide, the older contents read elsewhere); and their twins
# (a wrong weight stride, the wrong element doubled: buggy, confirmed by
# replay).
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'concat-select*'
run_cases 'shared-own-float4*'
test_done
