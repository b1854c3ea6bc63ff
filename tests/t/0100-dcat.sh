#!/bin/sh
# dcat: streams to JSON Lines and back, losslessly; bad input is refused.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'JSON Lines -> stream -> JSON Lines is the identity' '
	cat >in.jsonl <<-\EOT &&
	{"t":"header","format":"dirigo","version":1,"stream":"trace","name":"x"}
	{"t":"copy","data":{"$bin":"AAECAw=="},"f":1.5,"g":{"$f32":0.25},"n":-3,"big":{"$u64":"18446744073709551615"},"s":"café\n","nested":[1,{"a":null,"b":true}],"inf":{"$f64":"-inf"}}
	{"t":"end","records":2,"counts":{"header":1,"copy":1}}
	EOT
	dcat -r in.jsonl >s.bin &&
	dcat s.bin >out.jsonl &&
	test_cmp in.jsonl out.jsonl
'

test_expect_success 'binary PTX text and raw bytes survive the round trip' '
	dcat -r "$ROOT/tests/t/data/trace-ref.jsonl" >a.bin &&
	dcat a.bin | dcat -r >b.bin &&
	cmp a.bin b.bin
'

test_expect_success 'concatenated streams are one input' '
	dcat -r "$ROOT/tests/t/data/trace-ref.jsonl" >a.bin &&
	cat a.bin a.bin >aa.bin &&
	dcat aa.bin >aa.jsonl &&
	test $(grep -c "\"t\":\"header\"" aa.jsonl) = 2 &&
	test $(wc -l <aa.jsonl) = 16
'

test_expect_success 'empty input is trouble' '
	: >empty &&
	test_must_fail --status=2 dcat empty 2>err &&
	grep "empty: empty input" err
'

test_expect_success 'a truncated record is trouble and names the record' '
	dcat -r "$ROOT/tests/t/data/trace-ref.jsonl" >a.bin &&
	head -c 300 a.bin >trunc.bin &&
	test_must_fail --status=2 dcat trunc.bin >out 2>err &&
	grep "trunc.bin: record [0-9]*: truncated record" err
'

test_expect_success 'a newer format version is refused' '
	echo "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":99,\"stream\":\"trace\"}" >new.jsonl &&
	dcat -r new.jsonl >new.bin &&
	test_must_fail --status=2 dcat new.bin 2>err &&
	grep "version 99 is newer" err
'

test_expect_success 'a stream without a header is refused' '
	printf "\201\241t\244copy" >nohdr.bin &&
	test_must_fail --status=2 dcat nohdr.bin 2>err &&
	grep "does not start with a header" err
'

test_expect_success 'garbage is refused, not crashed on' '
	printf "\301\301\301\301" >garbage.bin &&
	test_must_fail --status=2 dcat garbage.bin 2>err &&
	grep "garbage.bin: record 0" err
'

test_expect_success 'dcat -r names the file and line of bad JSON' '
	printf "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"x\"}\n{oops\n" >bad.jsonl &&
	test_must_fail --status=2 dcat -r bad.jsonl >out.bin 2>err &&
	grep "bad.jsonl:2: invalid JSON" err
'

test_expect_success 'dcat -r writes no partial record' '
	printf "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"x\"}\n{\"t\":\"a\",\"x\":{\"\$bin\":\"!!\"}}\n" >badbin.jsonl &&
	test_must_fail --status=2 dcat -r badbin.jsonl >out.bin 2>err &&
	grep "bad base64" err &&
	test_must_fail --status=2 dcat out.bin >out.jsonl 2>err &&
	test $(wc -l <out.jsonl) = 1 &&
	grep "out.bin: the stream stops after record 0, before its end record" err
'

test_done
