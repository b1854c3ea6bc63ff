#!/bin/sh
# dreplay on verdict streams made by dcheck from hand-written symbolic
# streams (tests/t/data/check-*.jsonl) and on hand-written witnesses:
# confirmation in float32, the report for people, exit statuses, bad input.
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
ver() { cat "$D/check-base.jsonl" "$D/check-opt-$1.jsonl" | dcat -r >"$1.sym" &&
	{ dcheck "$1.sym" >"$1.ver"; test $? -ne 2; }; }
field() { dcat "$1" | jq -r "select(.t==\"$2\") | .$3"; }

test_expect_success 'a wrong program: the witness is confirmed, exit 1' '
	ver differ &&
	test_status 1 dreplay differ.ver >out 2>report &&
	test "$(field out replay confirmed)" = true &&
	test "$(field out report result)" = buggy &&
	test "$(field out report confirmed)" = 1 &&
	grep "^witness 1: output 0 (c), element 0 (byte 0, f32)" report &&
	grep "written by: ref launch 0 (add_ref), opt launch 1 (add_opt)" report &&
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
	grep "noobl.ver: not an obligation stream" err
'

test_done
