#!/bin/sh
# The program pairs of tests/cases/ that call a CUDA library: cuBLAS's
# matrix products, which the record-only runtime records as launches of
# dirigo's own gemm kernel (dtrace-cuda/shim/blas.c), checked against
# kernels of the programs' own.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'cublas-*'
test_done
