#!/bin/sh
# The convolution pair of tests/cases/ in the form most AI-written
# convolutions take (level-1 54-87 of KernelBench): a flat grid, each
# thread's (n, co, h, w) found by division and remainder by the sizes,
# input channels in chunks of 4, taps guarded by the padding; against a
# plain one with a block per (image, channel).  Correct; and a twin whose
# guard lets one row too many through: an out-of-bounds read past the
# input's end, which dexec names (PTX line, thread, byte offset).
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'conv-radix*'
run_cases 'conv3d-tile*'
test_expect_success 'conv-radix-oob-bug: the read past the end is named with its thread and offset' '
	dcat conv-radix-oob-bug.sym | jq -s -e "map(select(.t == \"finding\" and .class == \"oob-global\" and
		.off == 36864 and (.message | test(\"reads 4 bytes at byte offset 36864 of a 36864-byte buffer\")))) | length == 1"
'
test_done
