#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline:
# transcendental functions (rolled up from nvcc's idioms, fast-math forms
# equal to the exact ones), device-function calls and local arrays.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'sigmoid-*'
run_cases 'gelu-*'
run_cases 'softplus-*'   # softplus-threshold: within tolerance by the bounds of exp and log1p
run_cases 'masked-relu*'
test_done
