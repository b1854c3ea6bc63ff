#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: degrade,
# don't give up.  The float bit idioms are exact (sign clear, copysign,
# the order-preserving key of float atomicMax), warpSize is WARP_SZ = 32,
# a __constant__ table with an initialiser is read by thread; a hand-written
# exp on the bits of a float is an opaque value: the locations that depend
# on it are unknown, the others checked, and an out-of-bounds store after
# it is still found.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'bits-*'
run_cases 'opaque-*'
run_cases 'warpsize'
run_cases 'const-table*'
test_done
