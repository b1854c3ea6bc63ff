#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: elementwise.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'vecadd-*'
run_cases 'saxpy-*'
run_cases 'leaky-*'
test_done
