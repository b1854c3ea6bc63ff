#!/bin/sh
# The program pairs of tests/cases/ with atomics (dexec/atomic.c,
# engine/resolve-atomic.c): block sums with atomicAdd in global and in
# shared memory, a float atomicMax through the compare-and-swap loop, a
# wrong index, a used atomic result (unsupported), and an accumulator
# never zeroed, whose sums read memory no one wrote ("uninit").  Plain
# stores beside atomics: zeroed by one thread of the block before a
# barrier (correct; a wrong start value, buggy and confirmed by replay;
# no barrier, a global-race), zeroed by another launch (correct) or by
# block 0 alone (a global-race), and shared bins zeroed, accumulated,
# read, stored to and accumulated again (correct; a wrong store, buggy;
# no barrier after the zeroing, a shared-race).
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"

run_cases 'atomic-blocksum'
run_cases 'atomic-index-bug'
run_cases 'atomic-max-cas'
run_cases 'atomic-shared-sum'
run_cases 'atomic-result-used'
run_cases 'atomic-global-block*'
run_cases 'atomic-global-grid*'
run_cases 'atomic-shared-bins*'
# The global-race of atomic-global-grid-bug: its two threads, the .cu lines
# of the store and of the atomicAdd (not the CUDA header's), and SARIF.
test_expect_success 'global-race: the two threads, the lines, SARIF' '
	dcat atomic-global-grid-bug.sym | jq -e -s "map(select(.t==\"finding\" and .class==\"global-race\"))[0] |
		.tid == [0,0,0] and .ctaid == [0,0,0] and .ctaid2[0] > 0 and .off == 0 and .src_line == 11 and
		(.message | test(\"opt.cu:13\"))" >/dev/null &&
	test_status 1 dreplay --sarif g.sarif atomic-global-grid-bug.ver >/dev/null 2>&1 &&
	jq -e ".runs[0].tool.driver.rules[] | select(.id==\"global-race\") | .shortDescription.text |
		test(\"no barrier\")" g.sarif >/dev/null
'
run_cases 'atomic-blocksum-nomemset-bug'
test_done
