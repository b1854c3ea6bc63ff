#!/bin/sh
# The convolution pair of tests/cases/ in the form most AI-written
# convolutions take (level-1 54-87 of KernelBench): a flat grid, each
# thread's (n, co, h, w) found by division and remainder by the sizes,
# input channels in chunks of 4, taps guarded by the padding; against a
# plain one with a block per (image, channel).  Correct; and a twin whose
# guard lets one row too many through: an out-of-bounds read past the
# input's end, which dexec names (PTX line, thread, byte offset).  And
# the 5-D form of level-1 60 (conv3d-radix: each coordinate straight from
# the flat index), correct and with rows strided one too far; and the
# guarded gather of level-1 65's transposed convolution (convt2d-guard),
# correct and with a guard that lets the row past the input through.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'conv-radix*'
run_cases 'conv3d-tile*'
run_cases 'conv3d-radix*'
run_cases 'convt2d-guard*'

# conv3d-radix at level-1 60's sizes (an output of 64x62x60x58 per image):
# 27.6M threads, each access bound decided by the affine prover, where the
# solver gave up.  dexec alone: dcheck would spend its whole budget on the
# 27.6M locations.
sixty() {   # SIDE
	{ echo '#define CO 64'; echo '#define D 64'; echo '#define H 64'; echo '#define W 64'
	  echo "#include \"$ROOT/tests/cases/conv3d-radix/$1.cu\""; } >"sixty-$1.cu"
	build_cuda "sixty-$1.cu" "sixty-$1" &&
	dtrace-cuda --no-gpu --name "$1" -o "sixty-$1.trace" -- "./sixty-$1" 2>"sixty-$1.log"
}
test_expect_success 'conv3d-radix at level-1 60 sizes: every access bound decided, none left to the solver' '
	sixty ref && sixty opt &&
	dmerge sixty-ref.trace sixty-opt.trace >sixty.obl &&
	dexec sixty.obl >sixty.sym &&
	dcat sixty.sym | jq -s -e "(map(select(.t == \"unsupported\" or .t == \"finding\")) | length == 0) and
		(map(select(.t == \"writes\")) | length == 2)"
'
test_expect_success 'conv-radix-oob-bug: the read past the end is named with its thread and offset' '
	dcat conv-radix-oob-bug.sym | jq -s -e "map(select(.t == \"finding\" and .class == \"oob-global\" and
		.off == 36864 and (.message | test(\"reads 4 bytes at byte offset 36864 of a 36864-byte buffer\")))) | length == 1"
'
test_done
