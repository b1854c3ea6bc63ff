#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: branches
# on data whose arms rejoin (ELU with its expf in a real branch, a running
# maximum updated by hand, a max tree in shared memory whose steps select
# between two addresses, float4 GELU with four interleaved erff), each
# with a buggy twin whose witness dreplay confirms.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'elu-branch*'
run_cases 'rowmax-branch*'
run_cases 'rowmax-shared*'
run_cases 'gelu4-*'
test_done
