#!/bin/sh
# A stream says that it is complete (dirigo(7), STREAMS): every stage ends
# its output with an end record only when it succeeded, and every stage
# refuses, naming the stage that failed upstream, a stream that stops
# before its end record.  No verdict from nothing: a stream without output
# records never reaches a verdict.
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
command -v jq >/dev/null 2>&1 || SKIP_ALL="jq is not installed"

# cut FILE: the stream as a stage killed after writing its records leaves it
cut_end() { dcat "$1" | sed '$d' | dcat -r; }

test_expect_success 'set-up: a complete stream out of every stage' '
	dcat -r "$D/trace-ref.jsonl" >ref.trace &&
	dcat -r "$D/trace-opt.jsonl" >opt.trace &&
	dmerge ref.trace opt.trace >dmerge.out &&
	cat "$D/check-base.jsonl" "$D/check-opt-differ.jsonl" | dcat -r | dexec >dexec.out &&
	{ dcheck dexec.out >dcheck.out; test $? = 1; } &&
	{ dreplay dcheck.out >dreplay.out 2>/dev/null; test $? = 1; } &&
	for s in dmerge dexec dcheck dreplay; do
		dcat $s.out | tail -1 | jq -e ".t == \"end\" and .records > 0" >/dev/null || exit 1
	done
'

test_expect_success 'the end record counts the records before it, by type' '
	dcat dcheck.out >all.jsonl &&
	n=$(($(wc -l <all.jsonl) - 1)) &&
	tail -1 all.jsonl | jq -e ".records == $n and .counts.location == 1 and .counts.witness == 1 and
		.counts.verdict == 1 and .counts.header == 1" >/dev/null
'

# the next stage of each: what it is given, what it takes
next_of() { case $1 in dmerge) echo dexec;; dexec) echo dcheck;; dcheck) echo dreplay;; dreplay) echo dreplay;; esac; }

for s in dmerge dexec dcheck dreplay; do
	n=$(next_of $s)
	test_expect_success "$s killed after writing its records: $n refuses, names $s" "
		cut_end $s.out >cut.$s &&
		test_must_fail --status=2 $n cut.$s >out 2>err &&
		grep \"$n: cut.$s: the stream '$s' wrote stops after record [0-9]*, before its end record: '$s' failed or was killed upstream\" err &&
		! dcat out 2>/dev/null | grep -q '\"t\":\"end\"'
	"
done

test_expect_success 'a stage that exits 2 after passing records writes no end record' '
	dcat dmerge.out | sed "/\"t\":\"launch\"/s/\"kernel\":\"k\"/\"kernel\":\"nope\"/" | dcat -r >bad.obl &&
	test_must_fail --status=2 dexec bad.obl >bad.sym 2>err &&
	grep "kernel .nope. is not an entry" err &&
	test -s bad.sym &&
	test_must_fail --status=2 dcheck bad.sym >bad.ver 2>err &&
	grep "dcheck: bad.sym: the stream .dexec. wrote stops after record [0-9]*, before its end record: .dexec. failed" err &&
	test_must_fail --status=2 dreplay bad.ver >/dev/null 2>err &&
	grep "dreplay: bad.ver: the stream .dcheck. wrote stops" err
'

test_expect_success 'the whole pipeline over a failing stage ends in exit 2, not a verdict' '
	{ dexec bad.obl 2>/dev/null | dcheck 2>/dev/null | dreplay >out 2>err; echo $? >st; } &&
	test "$(cat st)" = 2 &&
	grep "the stream .dcheck. wrote stops" err
'

test_expect_success 'concatenated streams: a part cut short is refused at the next header' '
	cut_end ref.trace >ref.cut &&
	cat ref.cut opt.trace >both &&
	test_must_fail --status=2 dmerge both >out 2>err &&
	grep "dmerge: both: the stream stops at record 7 (a new header), before its end record" err &&
	cat ref.trace opt.trace | dmerge >/dev/null
'

test_expect_success 'a record after the end record is refused' '
	{ dcat ref.trace && echo "{\"t\":\"alloc\",\"buf\":9,\"bytes\":4,\"kind\":\"device\"}"; } >after.jsonl &&
	test_must_fail --status=2 dcat -r after.jsonl >out 2>err &&
	grep "after.jsonl:9: a \"alloc\" record after the end record" err &&
	{ cat ref.trace && printf "\201\241t\245alloc"; } >after.bin &&
	test_must_fail --status=2 dmerge after.bin opt.trace >out 2>err &&
	grep "after.bin: record 8: a \"alloc\" record after the end record" err
'

test_expect_success 'an end record whose counts do not match is refused' '
	python3 - ref.trace >b.trace <<-\EOF &&
	import sys
	b = open(sys.argv[1], "rb").read()
	i = b.rindex(b"\xa7records")
	sys.stdout.buffer.write(b[:i + 8] + bytes([b[i + 8] + 1]) + b[i + 9:])
	EOF
	test_must_fail --status=2 dmerge b.trace opt.trace >out 2>err &&
	grep "b.trace: record 7: end record counts 8 records, the stream holds 7 before it" err
'

test_expect_success 'dcat -r writes end records where the JSON has them, with their counts' '
	dcat ref.trace >r.jsonl &&
	dcat -r r.jsonl >r2.trace &&
	cmp ref.trace r2.trace &&
	sed "\$s/\"records\":[0-9]*/\"records\":99/" r.jsonl | dcat -r >r3.trace &&
	cmp ref.trace r3.trace &&
	sed "\$d" r.jsonl | dcat -r >r4.trace &&
	test_must_fail --status=2 dmerge r4.trace opt.trace 2>err &&
	grep "the stream stops after record 6, before its end record: the stage that wrote it failed or was killed (a stream written by hand ends with {\"t\":\"end\"})" err
'

test_expect_success 'dcat prints a stream cut short, then says so: exit 2' '
	test_must_fail --status=2 dcat cut.dexec >out.jsonl 2>err &&
	test $(wc -l <out.jsonl) -gt 10 &&
	grep "before its end record" err
'

# No verdict from nothing (issue 9): without output records there is
# nothing to compare, whatever says otherwise.
test_expect_success 'an obligation without output records: dexec exit 2' '
	dcat dmerge.out | grep -v "\"t\":\"output\"" | dcat -r >noout.obl &&
	test_must_fail --status=2 dexec noout.obl >out 2>err &&
	grep "noout.obl: record [0-9]* (end): the obligation has no output records: there is nothing to compare" err
'

test_expect_success 'a symbolic stream without output records: dcheck exit 2, no verdict' '
	dcat dexec.out | grep -v "\"t\":\"output\"" | dcat -r >noout.sym &&
	test_must_fail --status=2 dcheck noout.sym >out 2>err &&
	grep "noout.sym: record [0-9]* (end): the obligation has no output records" err &&
	! dcat out 2>/dev/null | grep -q "\"t\":\"verdict\""
'

test_expect_success 'a verdict stream without output records: dreplay exit 2' '
	dcat dcheck.out | grep -v "\"t\":\"output\"" | dcat -r >noout.ver &&
	test_must_fail --status=2 dreplay noout.ver >out 2>err &&
	grep "noout.ver: .*location outside output 0 (the stream holds 0 outputs)\\|noout.ver: record [0-9]* (end): the obligation has no output records" err
'

test_expect_success 'outputs of no element: dcheck is unknown, never checked-correct' '
	dcat dexec.out | sed "/\"t\":\"output\"/s/\"bytes\":64/\"bytes\":0/" | dcat -r >empty.sym &&
	test_status 3 dcheck empty.sym >out 2>err &&
	dcat out | jq -r "select(.t == \"verdict\") | .result + \": \" + .message" >v &&
	echo "unknown: the outputs hold no element to compare" >expect &&
	test_cmp expect v
'

test_expect_success 'a value whose range lies outside its bytes: exit 2, named' '
	dcat dmerge.out | sed "/\"value\":2,.*\"def\":\"input\"/s/\"off\":0/\"off\":8/" | dcat -r >range.obl &&
	test_must_fail --status=2 dexec range.obl >out 2>err &&
	grep "range.obl: record 7 (value): range \[8, +16) outside the buffer of 16 bytes" err
'

test_done
