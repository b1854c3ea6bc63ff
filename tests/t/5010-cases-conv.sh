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
# correct and with a guard that lets the row past the input through (its
# continue past each tap outside the input merged, not split); the
# strided, dilated, grouped transposed convolution of level-1 75
# (convt2d-stride: taps found by a residue search, clamped by a min),
# correct and with the row taps one past the kernel; and the shared-tile
# depthwise convolution of level-1 84 (dwconv-tile), correct and with the
# patch one row short, whose last outputs read shared memory never
# written.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'conv-radix*'
run_cases 'conv3d-tile*'
run_cases 'conv3d-radix*'
run_cases 'convt2d-guard*'
run_cases 'convt2d-stride*'
run_cases 'dwconv-tile*'

# Pairs at the sizes of the level-1 programs they stand for, dexec alone
# (dcheck would spend its whole budget on millions of locations): every
# access bound decided, no unsupported launch, no finding.
#   conv3d-radix at 60's (an output of 64x62x60x58 per image): 27.6M
#     threads, each bound decided by the affine prover, where the solver
#     gave up;
#   convt2d-stride at 75's (two images): dexec ran out of its budget on
#     the taps' bounds;
#   dwconv-tile at 84's (one image): dexec ran out of its budget checking
#     the patch's reads against its writes.
at_sizes() {   # NAME PAIR SIDE DEFINE...
	n=$1 pair=$2 side=$3
	shift 3
	{ for d in "$@"; do echo "#define $d"; done
	  echo "#include \"$ROOT/tests/cases/$pair/$side.cu\""; } >"$n-$side.cu"
	build_cuda "$n-$side.cu" "$n-$side" &&
	dtrace-cuda --no-gpu --name "$side" -o "$n-$side.trace" -- "./$n-$side" 2>"$n-$side.log"
}
decided() {    # NAME
	dmerge "$1-ref.trace" "$1-opt.trace" >"$1.obl" &&
	dexec $case_budget "$1.obl" >"$1.sym" &&
	dcat "$1.sym" | jq -s -e "(map(select(.t == \"unsupported\" or .t == \"finding\")) | length == 0) and
		(map(select(.t == \"writes\")) | length == 2)"
}
test_expect_success 'conv3d-radix at level-1 60 sizes: every access bound decided, none left to the solver' '
	for s in ref opt; do at_sizes sixty conv3d-radix $s "CO 64" "D 64" "H 64" "W 64" || return 1; done &&
	decided sixty
'
test_expect_success 'convt2d-stride at level-1 75 sizes: every tap bound decided within the budget' '
	for s in ref opt; do at_sizes s75 convt2d-stride $s "N 2" "CI 32" "CO 64" "H 128" "W 256" || return 1; done &&
	decided s75
'
test_expect_success 'dwconv-tile at level-1 84 sizes: the patch reads checked within the budget' '
	for s in ref opt; do at_sizes s84 dwconv-tile $s "N 1" "C 3" "H 128" "W 256" || return 1; done &&
	decided s84
'
# The continue past each tap outside the input merges: one bundle, where
# splitting on each test made one per class of border threads (45).
test_expect_success 'convt2d-guard: the tests of the taps against the borders split no bundle' '
	dcat convt2d-guard.sym | jq -r "select(.t==\"writes\") | .bundles" >n &&
	test "$(sort -n n | tail -1)" -le 2
'
# (the row past the end is 24 floats: the offsets named lie in it)
test_expect_success 'conv-radix-oob-bug: the read past the end is named with its thread and offset' '
	dcat conv-radix-oob-bug.sym | jq -s -e "map(select(.t == \"finding\" and .class == \"oob-global\")) |
		length >= 1 and all(.off >= 36864 and .off < 36864 + 96 and
			(.message | test(\"reads 4 bytes at byte offset [0-9]+ of a 36864-byte buffer .* at thread \\\\([0-9]+,0,0\\\\) block \\\\([0-9]+,0,0\\\\)\")))"
'
test_done
