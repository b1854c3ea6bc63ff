#!/bin/sh
# The program pairs of tests/cases/ whose kernels load global memory that
# other threads of the same launch store to (dexec/gread.c,
# engine/resolve-global.c): partial sums read back by thread 0 after a
# barrier, a tree reduction in global memory, the mirrored element of a
# block read after a barrier, a work buffer doubled in place, a thread's
# own store read back through another address, a scratch buffer filled by
# one launch and read by the next; and their twins: the barrier missing
# (a global-race in one epoch), blocks reading each other's stores in one
# launch (a global-race: no grid-wide barrier), wrong sums and a read
# before the store (buggy, confirmed by replay).
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'global-*'
test_done
