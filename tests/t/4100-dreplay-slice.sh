#!/bin/sh
# dreplay confirms witnesses by slice (dreplay(1), engine/slice.h): on
# the stencil pair of tests/cases (two launches through an intermediate
# buffer against one fused kernel with a shared-memory tile) only a few
# blocks run, and the location's values are those of the whole run;
# sampled locations of several pairs are compared bit for bit with the
# whole run (test-slice --compare); a write set that leaves out a load
# makes the slice stop and the whole programs run instead; --whole;
# --budget; bad options.
. "$(dirname "$0")/test-lib.sh"

have_nvcc || SKIP_ALL="nvcc not found"
command -v jq >/dev/null || SKIP_ALL="jq not found"
CASES=$ROOT/tests/cases
TS=$ROOT/$BUILD/tests/test-slice

# pipeline NAME: NAME.sym and NAME.ver from tests/cases/NAME.
pipeline() {
	build_cuda "$CASES/$1/ref.cu" "$1-ref" &&
	build_cuda "$CASES/$1/opt.cu" "$1-opt" &&
	dtrace-cuda --no-gpu --name ref -o "$1-ref.trace" -- "./$1-ref" 2>"$1.log" &&
	dtrace-cuda --no-gpu --name opt -o "$1-opt.trace" -- "./$1-opt" 2>>"$1.log" &&
	dmerge "$1-ref.trace" "$1-opt.trace" >"$1.obl" &&
	dexec "$1.obl" >"$1.sym"
	test $? -le 1 || return 1
	dcheck "$1.sym" >"$1.ver"
	test $? -le 1
}

# replay FILE: the first replay record as JSON.
replay() { dcat "$1" | jq -c 'select(.t=="replay")' | head -n 1; }

test_expect_success 'stencil-tile-bug: confirmed by slice, a few blocks of 3072' '
	pipeline stencil-tile-bug &&
	test_status 1 dreplay stencil-tile-bug.ver >bug.rep 2>bug.txt &&
	replay bug.rep >r.json &&
	jq -e ".confirmed and .ptx_run == \"slice\" and .blocks >= 2 and .blocks <= 8 and
		.blocks_all == 3072 and .ref_ptx != .opt_ptx and .ptx_ms > 0 and .slice_note == null" r.json &&
	grep "^  run by slice: [0-9]* of 3072 blocks, 0 of 0 op elements, [0-9]* ms" bug.txt &&
	grep "^  CONFIRMED" bug.txt
'

test_expect_success 'stencil-tile-bug: --whole runs every block and gives the same values' '
	test_status 1 dreplay --whole stencil-tile-bug.ver >whole.rep 2>whole.txt &&
	replay whole.rep >w.json &&
	jq -e ".ptx_run == \"whole\" and .blocks == null" w.json &&
	jq -c "[.index, .ref_ptx, .opt_ptx]" r.json >slice.vals &&
	jq -c "[.index, .ref_ptx, .opt_ptx]" w.json >whole.vals &&
	test_cmp whole.vals slice.vals &&
	grep "^  run whole, [0-9]* ms" whole.txt
'

test_expect_success 'stencil pairs: sampled locations of every output are the whole run bit for bit' '
	pipeline stencil-tile &&
	"$TS" --compare --strict --locations 24 stencil-tile-bug.sym stencil-tile.sym >tap &&
	! grep "^not ok" tap &&
	test $(grep -c "^ok .* output 0, program [01]: 27 of 27 locations exact" tap) = 4
'

for name in rowsum-odd-bug transpose-bug running-example-bug atomic-index-bug warp-sync-bug; do
	test_expect_success "$name: sampled locations are the whole run bit for bit" "
		pipeline $name &&
		\"\$TS\" --compare --strict --locations 16 $name.sym >$name.tap &&
		! grep '^not ok' $name.tap &&
		grep -q '^ok .*output 0, program 1: .* exact' $name.tap
	"
done

# The write set of the first launch of the reference, with its value cut
# down to one of its loads: the slice does not compute what the kernel
# reads, the run stops, and the whole programs run instead.
test_expect_success 'a write set that misses a load: the slice stops, the whole run decides' '
	dcat stencil-tile-bug.ver >ver.jsonl &&
	jq -c "if .t == \"writes\" and .launch == 0 then
		(.exprs | to_entries | map(select(.value[0] == \"load\")) | .[0].key) as \$k |
		.writes[0].val = \$k else . end" ver.jsonl >cut.jsonl &&
	! cmp -s ver.jsonl cut.jsonl &&
	dcat -r cut.jsonl >cut.ver &&
	{ dreplay cut.ver >cut.rep 2>cut.txt; st=$?; test $st = 1 || test $st = 3; } &&
	replay cut.rep >c.json &&
	jq -e ".ptx_run == \"whole\" and (.slice_note | test(\"not computed|did not compute\"))" c.json &&
	jq -c "[.index, .ref_ptx, .opt_ptx]" c.json >cut.vals &&
	test_cmp whole.vals cut.vals &&
	grep "^  slice not used: " cut.txt
'

test_expect_success 'no kernel to run: the slice falls back, and the whole run says why' '
	cat "$ROOT/tests/t/data/check-base.jsonl" "$ROOT/tests/t/data/check-opt-differ.jsonl" |
		jq -c "if .t == \"module\" then .ptx = \".version 8.0\" else . end" | dcat -r >hand.sym &&
	test_must_fail --status=1 dcheck hand.sym >hand.ver &&
	test_must_fail --status=3 dreplay hand.ver >hand.rep 2>hand.txt &&
	replay hand.rep >h.json &&
	jq -e ".ptx_run == \"whole\" and (.slice_note | test(\"no kernel\")) and (.ptx_error | test(\"no kernel\")) and .confirmed == false" h.json
'

# The whole run of this pair takes 80-200 ms, so a budget of 20 ms runs
# out in it or before it (reading the stream, solving for the witness):
# whichever it is, the witness is a timeout and never confirmed.
test_expect_success 'a budget that runs out before the replay ends: a timeout, never confirmed, exit 3' '
	t0=$(date +%s%N) &&
	test_must_fail --status=3 dreplay --whole --budget 0.02 stencil-tile-bug.ver >b.rep 2>b.txt &&
	t1=$(date +%s%N) &&
	test $(( (t1 - t0) / 1000000 )) -lt 2020 &&
	replay b.rep >b.json &&
	jq -e ".timeout == true and .confirmed == false and .ref_ptx == null and (.message | test(\"budget\"))" b.json &&
	dcat b.rep | jq -s -e "map(select(.t == \"report\")) | .[0].result == \"timeout\"" &&
	grep "^verdict: timeout" b.txt &&
	grep "dreplay: timeout: 1 of 1 witnesses not replayed within the budget of 0.02 s" b.txt
'

test_expect_success 'bad --budget values are trouble; 0 replays nothing' '
	test_must_fail --status=3 dreplay --budget 0 stencil-tile-bug.ver >z.rep 2>err &&
	replay z.rep | jq -e ".timeout == true and .ref_ptx == null" &&
	test_must_fail --status=2 dreplay --budget -3 stencil-tile-bug.ver >out 2>err &&
	grep "bad number" err &&
	test_must_fail --status=2 dreplay --budget soon stencil-tile-bug.ver >out 2>err &&
	grep "bad number .soon." err
'

test_expect_success 'a rerun on its own output replaces the replay records' '
	test_must_fail --status=1 dreplay bug.rep >again.rep 2>/dev/null &&
	test $(dcat again.rep | jq -c "select(.t==\"replay\")" | wc -l) = $(dcat bug.rep | jq -c "select(.t==\"replay\")" | wc -l) &&
	replay again.rep | jq -e ".ptx_run == \"slice\"" >/dev/null
'

test_done
