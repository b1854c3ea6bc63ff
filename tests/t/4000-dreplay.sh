#!/bin/sh
# dreplay on verdict streams made by dcheck from hand-written symbolic
# streams (tests/t/data/check-*.jsonl) and on hand-written witnesses:
# confirmation in float32, the report for people, exit statuses, bad input.
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
ver() { cat "$D/check-base.jsonl" "$D/check-opt-$1.jsonl" | dcat -r >"$1.sym" &&
	{ dcheck "$1.sym" >"$1.ver"; test $? -ne 2; }; }
field() { dcat "$1" | jq -r "select(.t==\"$2\") | .$3"; }

test_expect_success 'a wrong program: the witness is confirmed by running both programs, exit 1' '
	ver differ &&
	test_status 1 dreplay differ.ver >out 2>report &&
	test "$(field out replay confirmed)" = true &&
	test "$(field out report result)" = buggy &&
	test "$(field out report confirmed)" = 1 &&
	grep "^witness 1: output 0 (c), element 0 (byte 0, f32)" report &&
	grep "written by: ref launch 0 (add_ref), opt launch 1 (sub_opt)" report &&
	grep "inputs: .*a\[0\] = " report &&
	grep "^  CONFIRMED" report
'

test_expect_success 'the replayed values are those of the witness inputs' '
	dcat out | jq -s -e "(map(select(.t==\"witness\"))[0].inputs | map({key: (.input|tostring), value: .value}) | from_entries) as \$in |
		map(select(.t==\"replay\"))[0] as \$r |
		((\$r.ref_f64 - (\$in[\"0\"] + \$in[\"1\"])) | fabs) < 1e-12 and
		((\$r.opt_f64 - (\$in[\"0\"] - \$in[\"1\"])) | fabs) < 1e-12 and
		((\$r.diff - ((\$r.opt_f32 - \$r.ref_f32) | fabs)) | fabs) < 1e-12" >/dev/null
'

test_expect_success 'every record passes through, replay and report are appended' '
	dcat differ.ver | tail -n +2 | sed "\$d" >in.jsonl &&
	dcat out >all.jsonl &&
	head -n 1 all.jsonl | jq -e ".stream == \"replay\"" >/dev/null &&
	tail -n +2 all.jsonl | head -n $(wc -l <in.jsonl) >head.jsonl &&
	test_cmp in.jsonl head.jsonl &&
	tail -n 3 all.jsonl | jq -r .t >types &&
	printf "replay\nreport\nend\n" >expect &&
	test_cmp expect types
'

test_expect_success 'a witness within a wider tolerance is not confirmed: exit 3' '
	test_status 3 dreplay --atol 100 differ.ver >out 2>report &&
	test "$(field out replay confirmed)" = false &&
	test "$(field out report result)" = unknown &&
	grep "^  NOT CONFIRMED" report &&
	! grep "^  CONFIRMED" report
'

test_expect_success 'a checked-correct verdict: exit 0, no replay' '
	ver equal &&
	test_status 0 dreplay equal.ver >out 2>report &&
	test "$(field out report result)" = checked-correct &&
	! dcat out | grep -q "\"t\":\"replay\"" &&
	grep "^verdict: checked-correct" report
'

# A made-up witness at c[3] with a[3] = 1.5, b[3] = 2.5: both programs give 4.
test_expect_success 'a false witness is never reported as a bug; long input lists are cut' '
	dcat equal.ver | grep -v -e "\"t\":\"verdict\"" -e "\"t\":\"end\"" -e "\"t\":\"location\"" >fake.jsonl &&
	for i in 0 1; do
		for off in $(seq 0 4 60); do
			printf "{\"input\":%d,\"off\":%d,\"type\":\"f32\",\"value\":%s}\n" $i $off $((i + 1)).5
		done
	done | paste -sd, - >inputs &&
	echo "{\"t\":\"location\",\"output\":0,\"index\":3,\"off\":12,\"type\":\"f32\",\"result\":\"differ\",\"how\":\"smt\"}" >>fake.jsonl &&
	printf "{\"t\":\"witness\",\"output\":0,\"index\":3,\"off\":12,\"type\":\"f32\",\"how\":\"smt\",\"inputs\":[%s],\"ref\":1.0,\"opt\":2.0}\n" \
		"$(cat inputs)" >>fake.jsonl &&
	echo "{\"t\":\"verdict\",\"result\":\"buggy\",\"checked\":1,\"equal\":0,\"differ\":1,\"unknown\":0,\"findings\":0,\"message\":\"made up\"}" >>fake.jsonl &&
	echo "{\"t\":\"end\"}" >>fake.jsonl &&
	dcat -r fake.jsonl >fake.ver &&
	test_status 3 dreplay fake.ver >out 2>report &&
	test "$(field out replay confirmed)" = false &&
	test "$(field out replay ref_f32)" = 4 &&
	test "$(field out replay opt_f32)" = 4 &&
	grep "^  NOT CONFIRMED" report &&
	grep "inputs: a\[0\] = 1.5, .*, \.\.\. and 12 more" report
'

test_expect_success 'a finding upstream: exit 1 and the report shows where' '
	ver finding &&
	test_status 1 dreplay finding.ver >out 2>report &&
	test "$(field out report result)" = buggy &&
	grep "^finding 1: oob-global in kernel add_opt (opt, launch 1)" report &&
	grep "at PTX line 14, opt.cu:6" report &&
	grep "thread (3,0,0) of block (0,0,0)" report &&
	grep "store of 4 bytes at byte 64" report
'

test_expect_success 'an output reading never-written memory: exit 1' '
	ver uninit &&
	test_status 1 dreplay uninit.ver >out 2>report &&
	grep "^uninit-output: output 0 (c), element 8 (byte 32)" report
'

test_expect_success 'an unsupported verdict: exit 3' '
	ver unsupported &&
	test_status 3 dreplay unsupported.ver >out 2>report &&
	test "$(field out report result)" = unsupported
'

test_expect_success '--report writes the report to a file' '
	test_status 1 dreplay --report rep.txt differ.ver >out 2>err &&
	test ! -s err &&
	grep "CONFIRMED" rep.txt
'

test_expect_success 'a stream without a verdict is trouble' '
	test_must_fail --status=2 dreplay differ.sym >out 2>err &&
	grep "dreplay: differ.sym: record 0 (header): a symbolic stream, not a verdict stream; run dcheck first" err
'

test_expect_success 'a witness outside its output is trouble and names the record' '
	dcat differ.ver | sed "/\"t\":\"witness\"/s/\"output\":0/\"output\":5/" | dcat -r >bad.ver &&
	test_must_fail --status=2 dreplay bad.ver >out 2>err &&
	grep "bad.ver: record [0-9]* (witness): location outside output 5" err
'

test_expect_success 'a malformed witness is trouble and names the record' '
	dcat differ.ver | sed "/\"t\":\"witness\"/s/\"inputs\":\[/\"inputs\":[7,/" | dcat -r >bad2.ver &&
	test_must_fail --status=2 dreplay bad2.ver >out 2>err &&
	grep "bad2.ver: record [0-9]* (witness): input 0 is malformed" err
'

test_expect_success 'a truncated stream is trouble' '
	head -c 900 differ.ver >trunc.ver &&
	test_must_fail --status=2 dreplay trunc.ver >out 2>err &&
	grep "trunc.ver: record [0-9]*" err
'

test_expect_success 'a stream without an obligation is trouble' '
	printf "%s\n" "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"verdict\"}" \
		"{\"t\":\"end\"}" | dcat -r >noobl.ver &&
	test_must_fail --status=2 dreplay noobl.ver 2>err &&
	grep "noobl.ver: record 1 (end): not an obligation stream" err
'

# Confirmation needs a run of both programs: the model evaluated again is
# the model that made the witness (issue 9).
test_expect_success 'programs that cannot be run on the witness: not confirmed, exit 3, says why' '
	dcat differ.ver | sed "/\"t\":\"launch\",\"launch\":1/s/\"kernel\":\"sub_opt\"/\"kernel\":\"gone\"/" |
		dcat -r >norun.ver &&
	test_status 3 dreplay norun.ver >out 2>report &&
	test "$(field out replay confirmed)" = false &&
	test "$(field out replay shown)" = model-only &&
	field out replay ptx_error | grep "opt: .*gone" &&
	test "$(field out report result)" = unknown &&
	field out report message | grep "differs in the model only; the programs could not be run on it" &&
	grep "^  NOT CONFIRMED (a difference in the model only)" report &&
	! grep "^  CONFIRMED" report
'

test_expect_success 'a confirmed replay says the programs showed it' '
	test_status 1 dreplay differ.ver >out 2>/dev/null &&
	test "$(field out replay shown)" = programs &&
	test "$(field out replay ref_ptx)" != null
'

test_expect_success 'an uninit location naming an output the stream does not hold: exit 2, named' '
	dcat uninit.ver | sed "/\"result\":\"uninit\"/s/\"output\":0/\"output\":7/" | dcat -r >bad3.ver &&
	test_must_fail --status=2 dreplay bad3.ver >out 2>err &&
	grep "bad3.ver: record [0-9]* (location): location outside output 7 (the stream holds 1 outputs)" err
'

test_expect_success 'a location beyond the end of its output: exit 2, named' '
	dcat uninit.ver | sed "/\"result\":\"uninit\"/s/\"off\":[0-9]*/\"off\":64/" | dcat -r >bad4.ver &&
	test_must_fail --status=2 dreplay bad4.ver >out 2>err &&
	grep "bad4.ver: record [0-9]* (location): location outside output 0 (64 bytes)" err
'

test_expect_success 'a verdict whose counts do not add up: exit 2, named' '
	dcat equal.ver | sed "/\"t\":\"verdict\"/s/\"equal\":16/\"equal\":15/" | dcat -r >bad5.ver &&
	test_must_fail --status=2 dreplay bad5.ver >out 2>err &&
	grep "bad5.ver: record [0-9]* (verdict): field .equal. says 15, the stream holds 16" err
'

test_expect_success 'checked-correct from no location at all: exit 2' '
	dcat equal.ver | grep -v "\"t\":\"location\"" |
		sed "/\"t\":\"verdict\"/s/\"checked\":16,\"equal\":16/\"checked\":0,\"equal\":0/" | dcat -r >bad6.ver &&
	test_must_fail --status=2 dreplay bad6.ver >out 2>err &&
	grep "bad6.ver: record [0-9]* (verdict): checked-correct with 0 locations decided equal" err
'

test_expect_success 'a witness without its location, a location after the verdict: exit 2' '
	dcat differ.ver | grep -v "\"t\":\"location\"" | dcat -r >bad7.ver &&
	test_must_fail --status=2 dreplay bad7.ver >out 2>err &&
	grep "bad7.ver: record [0-9]* (witness): a witness for output 0 index 0 without its location" err &&
	dcat equal.ver | jq -c "select(.t == \"location\")" | head -1 >loc &&
	{ dcat equal.ver | sed "\$d" && cat loc && echo "{\"t\":\"end\"}"; } | dcat -r >bad8.ver &&
	test_must_fail --status=2 dreplay bad8.ver >out 2>err &&
	grep "bad8.ver: record [0-9]* (location): a location record after the verdict" err
'

test_expect_success 'a witness input at an offset that wraps around is not written anywhere' '
	dcat differ.ver | sed "/\"t\":\"witness\"/s/\"input\":0,\"off\":0,/\"input\":0,\"off\":18446744073709551612,/" |
		sed "s/\"off\":18446744073709551612,/\"off\":{\"\$u64\":\"18446744073709551612\"},/" | dcat -r >wrap.ver &&
	test_status 3 dreplay wrap.ver >out 2>report &&
	test "$(field out replay confirmed)" = false &&
	field out replay ptx_error | grep "a witness element lies outside its input"
'

# found by the mutation campaign under ASan (bench/fuzz-stages.sh): a
# verdict stream (the rowmax-shared-bug case's, one byte of its PTX
# changed) whose witness location reads through a chain of some 2000
# shared-memory reads; resolving it recursed past the main thread's stack
# (a stack overflow with ASan's 8 MB, a segfault with ulimit -s 1024)
test_expect_success 'a chain of shared reads thousands deep: no stack overflow' '
	dcat -r "$D/replay-deep-shared.jsonl" >deep.ver &&
	(ulimit -s 1024 && test_must_fail --status=3 dreplay --budget 2 deep.ver >deep.rep 2>deep.err) &&
	grep -q "the budget ran out resolving a read of shared byte" deep.err
'

test_done
