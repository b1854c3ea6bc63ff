#!/bin/sh
# Bad input for every stage: empty input, a truncated record, the wrong kind
# of stream, a newer format version.  Each exits 2 with a message naming the
# input and the record, and what it wrote holds no partial record and no end
# record, so that the next stage refuses it.
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
STAGES="dmerge dexec dcheck dreplay"

test_expect_success 'set-up: a valid stream of each kind' '
	dcat -r "$D/trace-ref.jsonl" >ref.trace &&
	dcat -r "$D/trace-opt.jsonl" >opt.trace &&
	dmerge ref.trace opt.trace >x.obl &&
	cat ref.trace opt.trace >dmerge.in &&
	cp x.obl dexec.in &&
	cat "$D/check-base.jsonl" "$D/check-opt-equal.jsonl" | dcat -r >dcheck.in &&
	dcheck dcheck.in >dreplay.in &&
	echo "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":2,\"stream\":\"obligation\"}" | dcat -r >newer &&
	: >empty
'

for stage in $STAGES; do
	test_expect_success "$stage: empty input" "
		test_must_fail --status=2 $stage empty >out 2>err &&
		grep 'empty: empty input' err &&
		test ! -s out
	"
	test_expect_success "$stage: newer format version" "
		test_must_fail --status=2 $stage newer >out 2>err &&
		grep 'newer: record 0: stream format version 2 is newer' err &&
		test ! -s out
	"
	test_expect_success "$stage: truncated record" "
		head -c \$((\$(wc -c <$stage.in) - 7)) $stage.in >trunc &&
		test_must_fail --status=2 $stage trunc >out 2>err &&
		grep 'trunc: record [0-9]*: truncated record' err &&
		{ test ! -s out ||
		  { test_must_fail --status=2 dcat out >/dev/null 2>err2 &&
		    grep \"out: the stream '$stage' wrote stops after record [0-9]*, before its end record\" err2; }; }
	"
	test_expect_success "$stage: garbage" "
		printf '\\301\\301\\301' >garbage &&
		test_must_fail --status=2 $stage garbage >out 2>err &&
		grep 'garbage: record 0: malformed' err
	"
done

test_expect_success 'dexec refuses a trace: it needs an obligation' '
	test_must_fail --status=2 dexec ref.trace >out 2>err &&
	grep "ref.trace: record 0 (header): a trace stream, not an obligation stream; run dmerge first" err
'

test_expect_success 'dcheck refuses an obligation: it needs dexec first' '
	test_must_fail --status=2 dcheck x.obl >out 2>err &&
	grep "x.obl: record 0 (header): an obligation stream, not a symbolic stream; run dexec first" err
'

test_expect_success 'dreplay refuses a symbolic stream: it needs dcheck first' '
	test_must_fail --status=2 dreplay dcheck.in >out 2>err &&
	grep "dcheck.in: record 0 (header): a symbolic stream, not a verdict stream; run dcheck first" err
'

test_expect_success 'a record of a known type with a missing field names the field' '
	sed "s/\"kernel\":\"k\",//" "$D/trace-ref.jsonl" | dcat -r >nokernel.trace &&
	test_must_fail --status=2 dmerge nokernel.trace opt.trace >out 2>err &&
	grep "nokernel.trace: record 5 (launch): field .kernel. missing" err
'

test_expect_success 'an input of role random names a program, 0 or 1' '
	dcat x.obl | jq -c "if .t==\"input\" then .role=\"random\" | .prog=5 else . end" | dcat -r >rnd.obl &&
	test_must_fail --status=2 dexec rnd.obl >out 2>err &&
	grep -q "field .prog.: 5 is not 0 or 1" err
'

test_expect_success 'a cut names an earlier output of the programs, in range' '
	dcat x.obl | jq -c "if .t==\"output\" then .tail_of=0 | .tail_ops=1 else . end" | dcat -r >cut.obl &&
	test_must_fail --status=2 dexec cut.obl >out 2>err &&
	grep -q "output 0: tail_of 0 is not an earlier output of the programs" err &&
	dcat x.obl | jq -c "if .t==\"output\" then .tail_of=8589934592 else . end" | dcat -r >cut2.obl &&
	test_must_fail --status=2 dexec cut2.obl >out 2>err &&
	grep -q "field .tail_of. out of range" err
'

test_expect_success 'each stage writes its own header and passes the rest through' '
	dreplay dreplay.in >x.rep &&
	dcat x.rep >x.jsonl &&
	test "$(jq -s -r "map(select(.t==\"header\")) | map(.stream) | join(\",\")" x.jsonl)" = replay &&
	dcat dcheck.in | tail -n +2 | grep -v "\"t\":\"end\"" >in.jsonl &&
	tail -n +2 x.jsonl | head -n $(wc -l <in.jsonl) >head.jsonl &&
	test_cmp in.jsonl head.jsonl
'

test_expect_success 'rerunning a stage on its own output replaces its records' '
	dcheck dcheck.in >v1 &&
	dcheck v1 >v2 &&
	dcat v1 | jq -r .t | sort | uniq -c >c1 &&
	dcat v2 | jq -r .t | sort | uniq -c >c2 &&
	test_cmp c1 c2 &&
	dreplay v1 >r1 2>/dev/null &&
	dreplay r1 >r2 2>/dev/null &&
	dcat r1 | jq -r .t | sort | uniq -c >c1 &&
	dcat r2 | jq -r .t | sort | uniq -c >c2 &&
	test_cmp c1 c2
'

test_done
