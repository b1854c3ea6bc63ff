#!/bin/sh
# The program pairs of tests/cases/ that index with integers the host
# copies in (labels, as cross entropy's): dexec reads the recorded bytes
# as constants (a select over the table for a thread-dependent index), so
# the address is decided, not "data-dependent"; and the twin that reads
# x[label * n + k] for x[k * c + label] (buggy, confirmed by replay).
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'label-pick*'
test_done
