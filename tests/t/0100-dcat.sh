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

# Found by fuzzing (tests/fuzz/fuzz-dcat): what dcat prints, dcat -r reads back.
test_expect_success 'a string holding NUL bytes survives the round trip' '
	printf "%s\n" "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"trace\"}" \
		"{\"t\":\"module\",\"ptx\":\"a\\u0000b\"}" "{\"t\":\"end\"}" >nul.jsonl &&
	dcat -r nul.jsonl >nul.bin &&
	dcat nul.bin >nul2.jsonl &&
	grep -F "\"ptx\":\"a\\u0000b\"" nul2.jsonl &&
	dcat -r nul2.jsonl >nul2.bin &&
	cmp nul.bin nul2.bin
'

test_expect_success 'a record JSON cannot hold (a key twice, a key with NUL) is refused, not changed' '
	printf "\203\241t\246header\246format\246dirigo\247version\001" >dup.bin &&
	printf "\204\241t\246header\246format\246dirigo\247version\001\246stream\245trace" >hdr.bin &&
	printf "\203\241t\241x\241a\001\241a\002" >>hdr.bin &&
	test_must_fail --status=2 dcat hdr.bin >out 2>err &&
	grep "hdr.bin: record 1 (x): a map key given twice" err &&
	printf "\204\241t\246header\246format\246dirigo\247version\001\246stream\245trace" >k0.bin &&
	printf "\202\241t\241x\243a\000b\001" >>k0.bin &&
	test_must_fail --status=2 dcat k0.bin >out 2>err &&
	grep "k0.bin: record 1 (x): a map key holding a NUL byte" err
'

# issue 9: the packer's frames moved while open (use after free, 8+ deep)
test_expect_success 'dcat -r: a record nested 20 deep round trips; deeper than 24 is refused' '
	deep() { i=0; v=1; while [ $i -lt $1 ]; do v="[$v]"; i=$((i + 1)); done; echo "$v"; } &&
	printf "%s\n" "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"trace\"}" \
		"{\"t\":\"x\",\"a\":$(deep 20)}" "{\"t\":\"end\"}" >deep.jsonl &&
	dcat -r deep.jsonl >deep.bin &&
	dcat deep.bin >deep2.jsonl &&
	sed -n 2p deep2.jsonl | jq -e ".a$(printf "[0]%.0s" $(seq 20)) == 1" >/dev/null &&
	printf "%s\n" "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"trace\"}" \
		"{\"t\":\"x\",\"a\":$(deep 30)}" >deeper.jsonl &&
	test_must_fail --status=2 dcat -r deeper.jsonl >out 2>err &&
	grep "deeper.jsonl:2: nested too deep" err
'

test_done
