#!/bin/sh
# dmerge: two traces become one obligation in SSA form, with matched
# inputs and outputs; mismatched programs are refused.
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"

test_expect_success 'two traces merge into an obligation' '
	dcat -r "$D/trace-ref.jsonl" >ref.trace &&
	dcat -r "$D/trace-opt.jsonl" >opt.trace &&
	cat ref.trace opt.trace | dmerge >x.obl &&
	dcat x.obl >x.jsonl &&
	jq -s -e ".[0].t == \"header\" and .[0].stream == \"obligation\"" x.jsonl &&
	jq -s -e "map(select(.t==\"obligation\"))[0].programs == [\"ref\",\"opt\"]" x.jsonl &&
	test $(jq -s "map(select(.t==\"input\")) | length" x.jsonl) = 1 &&
	test $(jq -s "map(select(.t==\"output\")) | length" x.jsonl) = 1 &&
	test $(jq -s "map(select(.t==\"launch\")) | length" x.jsonl) = 2
'

test_expect_success 'files given as arguments work like a concatenation' '
	dmerge ref.trace opt.trace >y.obl &&
	cmp x.obl y.obl
'

test_expect_success 'SSA: the launch makes new versions of the buffers it receives' '
	jq -c "select(.t==\"value\" and .prog==0) | [.value,.buf,.version,.def,.prev]" x.jsonl >vals &&
	cat >expect <<-\EOT &&
	[0,0,0,"uninit",null]
	[1,1,0,"uninit",null]
	[2,0,1,"input",0]
	[3,0,2,"launch",2]
	[4,1,1,"launch",1]
	EOT
	test_cmp expect vals
'

test_expect_success 'the output pairs name the final versions' '
	jq -c "select(.t==\"output\") | [.bytes,.values]" x.jsonl >out &&
	echo "[16,[4,9]]" >expect &&
	test_cmp expect out
'

test_expect_success 'dmerge is deterministic' '
	cat ref.trace opt.trace | dmerge >x2.obl &&
	cmp x.obl x2.obl
'

test_expect_success 'unknown records pass through after the obligation' '
	(cat "$D/trace-ref.jsonl"; echo "{\"t\":\"note\",\"text\":\"hello\"}") | dcat -r >refn.trace &&
	cat refn.trace opt.trace | dmerge >n.obl &&
	dcat n.obl | tail -1 | jq -e ".t == \"note\" and .text == \"hello\""
'

test_expect_success 'one trace alone is refused' '
	test_must_fail --status=2 dmerge ref.trace >out 2>err &&
	grep "need two traces" err &&
	test ! -s out
'

test_expect_success 'mismatched output sizes are refused with both names' '
	sed "s/\"d2h\",\"buf\":1,\"off\":0,\"bytes\":16/\"d2h\",\"buf\":1,\"off\":0,\"bytes\":8/" "$D/trace-opt.jsonl" | dcat -r >small.trace &&
	test_must_fail --status=2 dmerge ref.trace small.trace >out 2>err &&
	grep "output 0 is 16 bytes in .ref. but 8 bytes in .opt." err &&
	test ! -s out
'

test_expect_success 'a copy outside its buffer names the record' '
	sed "s/\"h2d\",\"buf\":0,\"off\":0,\"bytes\":16/\"h2d\",\"buf\":0,\"off\":8,\"bytes\":16/" "$D/trace-opt.jsonl" | dcat -r >oob.trace &&
	test_must_fail --status=2 dmerge ref.trace oob.trace 2>err &&
	grep "record 4 (copy): range \[8, +16) outside a buffer of 16 bytes" err
'

test_expect_success 'an obligation is not a trace' '
	test_must_fail --status=2 dmerge x.obl 2>err &&
	grep "not a trace" err
'

test_expect_success 'empty and truncated input is trouble' '
	: >empty &&
	test_must_fail --status=2 dmerge empty 2>err &&
	head -c 200 ref.trace >trunc &&
	test_must_fail --status=2 dmerge trunc 2>err &&
	grep "truncated record" err
'

test_done
