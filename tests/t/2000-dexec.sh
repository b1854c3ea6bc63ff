#!/bin/sh
# 2000-dexec.sh: dexec on obligations built around fixture PTX: pass-through,
# write sets, findings, unsupported launches, exit statuses, bad input.

. "$(dirname "$0")/test-lib.sh"

FIX=$ROOT/tests/fixtures
command -v jq >/dev/null 2>&1 || SKIP_ALL="jq is not installed"

# le32 N: four little-endian bytes of N, base64
le32() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 24 & 255)))" | base64 -w0
}

# mkobl PTX KERNEL GRIDX BLOCKX N BYTES_AB BYTES_C: an obligation with one
# launch of a kernel (a, b, c, n) over three fresh buffers; its output pair
# is c against a buffer of the second program that nothing writes.
mkobl() {
	ptx=$(base64 -w0 <"$1")
	z='{"$bin":"AAAAAAAAAAA="}'
	{
	echo '{"t":"header","format":"dirigo","version":1,"stream":"obligation"}'
	echo '{"t":"obligation","programs":["ref","opt"]}'
	for b in 0 1 2; do
		bytes=$6; [ $b = 2 ] && bytes=$7
		echo "{\"t\":\"value\",\"value\":$((2*b)),\"prog\":0,\"buf\":$b,\"version\":0,\"bytes\":$bytes,\"def\":\"uninit\"}"
		echo "{\"t\":\"value\",\"value\":$((2*b+1)),\"prog\":0,\"buf\":$b,\"version\":1,\"bytes\":$bytes,\"def\":\"launch\",\"prev\":$((2*b)),\"launch\":0}"
	done
	echo "{\"t\":\"value\",\"value\":6,\"prog\":1,\"buf\":0,\"version\":0,\"bytes\":$7,\"def\":\"uninit\"}"
	echo "{\"t\":\"module\",\"module\":0,\"prog\":0,\"ptx\":{\"\$bin\":\"$ptx\"}}"
	echo "{\"t\":\"launch\",\"launch\":0,\"prog\":0,\"seq\":0,\"module\":0,\"kernel\":\"$2\",\"grid\":[$3,1,1],\"block\":[$4,1,1],\"shmem\":0,\"args\":[{\"param\":\"a\",\"size\":8,\"raw\":$z,\"in\":0,\"out\":1,\"off\":0},{\"param\":\"b\",\"size\":8,\"raw\":$z,\"in\":2,\"out\":3,\"off\":0},{\"param\":\"c\",\"size\":8,\"raw\":$z,\"in\":4,\"out\":5,\"off\":0},{\"param\":\"n\",\"size\":4,\"raw\":{\"\$bin\":\"$(le32 "$5")\"}}]}"
	echo "{\"t\":\"output\",\"output\":0,\"bytes\":$7,\"name\":\"c\",\"values\":[5,6],\"offs\":[0,0]}"
	echo "{\"t\":\"end\"}"
	} | dcat -r
}

VEC=_Z7vec_addPKfS0_Pfi

test_expect_success 'vec_add: one write, exit 0' '
	mkobl "$FIX/vec_add.ptx" $VEC 4 256 1000 4000 4000 >obl &&
	dexec obl >sym &&
	dcat sym >sym.json &&
	jq -c "select(.t == \"writes\")" sym.json >writes.json &&
	test $(wc -l <writes.json) = 1 &&
	test "$(jq ".writes | length" writes.json)" = 1 &&
	test "$(jq ".writes[0].value" writes.json)" = 5 &&
	test "$(jq -r ".writes[0].type" writes.json)" = f32 &&
	test "$(jq ".bundles" writes.json)" = 2 &&
	test "$(jq -r "select(.t == \"finding\" or .t == \"unsupported\") | .t" sym.json)" = ""
'

test_expect_success 'vec_add: every input record passes through in order' '
	dcat obl | tail -n +2 | sed "\$d" >in.json &&
	head -n 1 sym.json | jq -e ".stream == \"symbolic\"" >/dev/null &&
	tail -n +2 sym.json | head -n $(wc -l <in.json) >head.json &&
	test_cmp in.json head.json &&
	test $(wc -l <sym.json) = $(( $(wc -l <in.json) + 3 )) &&
	tail -n 1 sym.json | jq -e ".t == \"end\" and .counts.writes == 1" >/dev/null
'

test_expect_success 'vec_add: the write value is fadd of two loads' '
	jq -c ".exprs[.writes[0].val]" writes.json >val &&
	grep -q "\"fadd\"" val &&
	jq -c ".exprs[]" writes.json | grep -c "\"load\"" >nloads &&
	test $(cat nloads) = 2
'

test_expect_success 'reading stdin and a file give the same output' '
	dexec <obl >sym2 &&
	cmp sym sym2
'

test_expect_success 'out-of-bounds store: finding, exit 1' '
	mkobl "$FIX/vec_add.ptx" $VEC 4 256 1024 4096 4000 >obl &&
	test_must_fail --status=1 dexec obl >sym &&
	dcat sym >sym.json &&
	jq -c "select(.t == \"finding\")" sym.json >f.json &&
	test $(wc -l <f.json) = 1 &&
	test "$(jq -r .class f.json)" = oob-global &&
	jq -r .message f.json >msg &&
	grep -q "writes 4 bytes at byte offset" msg &&
	grep -q "of a 4000-byte buffer (arg .c.)" msg &&
	grep -q "vec_add.cu:6" msg &&
	test "$(jq .ctaid[0] f.json)" = 3
'

cat >k.ptx <<'EOF'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [a];
	ld.global.f32 %f1, [%rd1];
	setp.gt.f32 %p1, %f1, 0f00000000;
	@%p1 bra DONE;
	fence.proxy.alias;
DONE:
	ret;
}
EOF
sed "s/^	@%p1 bra DONE;//" k.ptx >bar.ptx

cat >loop.ptx <<'EOF'
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [c];
	ld.global.f32 %f1, [%rd1];
AGAIN:
	setp.gt.f32 %p1, %f1, 0f3F800000;
	@!%p1 bra DONE;
	mul.f32 %f1, %f1, 0f3F000000;
	bra.uni AGAIN;
DONE:
	st.global.f32 [%rd2], %f1;
	ret;
}
EOF
sed "s/^	bra.uni AGAIN;//" loop.ptx >if.ptx

test_expect_success 'branch on data whose arms rejoin: merged, exit 0' '
	mkobl if.ptx k 1 32 32 128 128 >obl &&
	dexec obl >sym &&
	dcat sym | jq -c "select(.t == \"writes\")" >w.json &&
	test "$(jq ".writes | length" w.json)" = 1 &&
	jq -c ".exprs[.writes[0].val]" w.json | grep -q "\"ite\""
'

test_expect_success 'loop whose exit depends on data: unsupported, exit 3' '
	mkobl loop.ptx k 1 32 32 128 128 >obl &&
	test_must_fail --status=3 dexec obl >sym &&
	dcat sym | jq -c "select(.t == \"unsupported\")" >u.json &&
	test $(wc -l <u.json) = 1 &&
	test "$(jq -r .what u.json)" = "loop exit depends on data" &&
	test "$(jq -r .line u.json)" = 14 &&
	test "$(jq -r .message u.json)" = "kernel '"'k'"': a loop whose exit depends on loaded data at PTX line 14"
'

test_expect_success 'an instruction dexec does not model (a proxy fence): unsupported, exit 3' '
	mkobl bar.ptx k 1 32 32 128 128 >obl &&
	test_must_fail --status=3 dexec obl >sym &&
	dcat sym | jq -r "select(.t == \"unsupported\") | .message" >msg &&
	echo "kernel '"'k'"': instruction '"'fence.proxy.alias'"' at PTX line 13 is not supported" >expect &&
	test_cmp expect msg
'

# k(a, b, c, n) kernels of our own: PTX that once aborted dexec, and an
# opaque value (dp4a) before an out-of-bounds store.
kptx() {
	printf '.version 8.0\n.target sm_90\n.address_size 64\n'
	printf '.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n'
	printf '.reg .b32 %%r<8>;\n.reg .b64 %%rd<8>;\n.reg .b128 %%rq<2>;\n'
	printf 'ld.param.u64 %%rd1, [a];\nld.param.u64 %%rd2, [c];\nmov.u32 %%r1, %%tid.x;\n'
	printf 'mul.wide.u32 %%rd3, %%r1, 4;\nadd.s64 %%rd4, %%rd1, %%rd3;\nadd.s64 %%rd5, %%rd2, %%rd3;\n'
	cat
	printf 'ret;\n}\n'
}

test_expect_success 'a .b128 register: unsupported (operand width), no abort' '
	echo "mov.b64 %rd6, %rq1;" | kptx >b128.ptx &&
	mkobl b128.ptx k 1 32 32 128 128 >obl &&
	test_must_fail --status=3 dexec obl >sym &&
	test "$(dcat sym | jq -r "select(.t == \"unsupported\") | .what")" = "operand width"
'

test_expect_success 'mul.wide of 64-bit operands: unsupported (operand width), no abort' '
	printf "mul.wide.u64 %%rd6, %%rd3, %%rd3;\nst.global.u64 [%%rd5], %%rd6;\n" | kptx >w64.ptx &&
	mkobl w64.ptx k 1 32 32 128 256 >obl &&
	test_must_fail --status=3 dexec obl >sym &&
	dcat sym | jq -r "select(.t == \"unsupported\") | .message" >msg &&
	grep -q "makes a 128-bit product" msg
'

# found by the mutation campaign (bench/fuzz-stages.sh): a loop whose load
# goes past the end at every iteration made a finding an iteration, 111 MB
# of records for one mutant, written after the budget had run out
test_expect_success 'a load out of bounds at every iteration of a loop: one finding' '
	kptx >loop.ptx <<-\EOF &&
	.reg .pred %p<2>;
	ld.param.u32 %r5, [n];
	mov.u32 %r2, 0;
	mov.u32 %r4, 0;
	$L_loop:
	mul.wide.u32 %rd6, %r2, 128;
	add.s64 %rd7, %rd4, %rd6;
	ld.global.u32 %r3, [%rd7];
	add.s32 %r4, %r4, %r3;
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r5;
	@%p1 bra $L_loop;
	st.global.u32 [%rd5], %r4;
	EOF
	mkobl loop.ptx k 1 32 1000 128 128 >obl &&
	test_must_fail --status=1 dexec obl >sym &&
	dcat sym >sym.json &&
	test "$(jq -c "select(.t == \"finding\") | [.class, .line]" sym.json)" = "[\"oob-global\",22]" &&
	jq -s -e "map(select(.t == \"finding\"))[0].message | test(\"byte offset 128 of a 128-byte buffer\")" \
		sym.json >/dev/null
'

test_expect_success 'an opaque value does not stop the launch: the store past the end is found' '
	printf "ld.global.u32 %%r2, [%%rd4];\ndp4a.u32.u32 %%r3, %%r2, %%r2, 0;\nst.global.u32 [%%rd5+64], %%r3;\n" |
		kptx >dp4a.ptx &&
	mkobl dp4a.ptx k 1 32 32 128 128 >obl &&
	test_must_fail --status=1 dexec obl >sym &&
	dcat sym >sym.json &&
	test "$(jq -r "select(.t == \"finding\") | .class" sym.json)" = oob-global &&
	test -z "$(jq -c "select(.t == \"unsupported\")" sym.json)"
'

test_expect_success 'the writes record names the origin of its opaque values' '
	printf "ld.global.u32 %%r2, [%%rd4];\ndp4a.u32.u32 %%r3, %%r2, %%r2, 0;\nst.global.u32 [%%rd5], %%r3;\n" |
		kptx >dp4a2.ptx &&
	mkobl dp4a2.ptx k 1 32 32 128 128 >obl &&
	dexec obl >sym &&
	dcat sym | jq -c "select(.t == \"writes\")" >w.json &&
	test "$(jq -c ".opaques" w.json)" = "[{\"line\":16,\"instr\":\"dp4a.u32.u32 %r3, %r2, %r2, 0;\",\"what\":\"instruction '"'dp4a.u32.u32'"'\"}]" &&
	jq -e ".exprs | map(select(.[0] == \"opaque\")) | .[0][2] == 1 and .[0][3] == \"\"" w.json >/dev/null
'

test_expect_success 'an opaque tag naming no entry of its launch: trouble' '
	dcat sym | jq -c "if .t == \"writes\" then .opaques = [] else . end" | dcat -r >bad.sym &&
	test_must_fail --status=2 dcheck bad.sym >/dev/null 2>err &&
	grep -q "opaque tag 1 names no entry" err
'

test_expect_success 'dexec replaces the findings of an earlier run: a stale one is dropped' '
	mkobl "$FIX/vec_add.ptx" $VEC 4 256 1024 4096 4000 >obl &&
	test_must_fail --status=1 dexec obl >sym &&
	mkobl "$FIX/vec_add.ptx" $VEC 4 256 1000 4000 4000 >obl2 &&
	dcat sym | jq -c "select(.t == \"finding\")" >f.jsonl &&
	{ dcat obl2 | sed "\$d" && cat f.jsonl && echo "{\"t\":\"end\"}"; } | dcat -r >obl3 &&
	dexec obl3 >sym3 &&
	test -z "$(dcat sym3 | jq -c "select(.t == \"finding\")")" &&
	test_must_fail --status=1 dexec sym >/dev/null
'

test_expect_success 'step budget: unsupported' '
	mkobl "$FIX/vec_add.ptx" $VEC 4 256 1000 4000 4000 >obl &&
	test_must_fail --status=3 dexec --budget-steps 5 obl >sym &&
	dcat sym | jq -r "select(.t == \"unsupported\") | .what" | grep -q budget
'

test_expect_success 'a kernel missing from its module is trouble' '
	mkobl "$FIX/vec_add.ptx" no_such_kernel 4 256 1000 4000 4000 >obl &&
	test_must_fail --status=2 dexec obl >out 2>err &&
	grep -q "^dexec: obl: record [0-9]* (launch): kernel .no_such_kernel." err &&
	! dcat out | grep -q "\"writes\""
'

test_expect_success 'not an obligation: trouble' '
	echo "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"trace\"}" | dcat -r >tr &&
	test_must_fail --status=2 dexec tr >/dev/null 2>err &&
	grep -q "^dexec: " err
'

test_expect_success 'garbage input: trouble' '
	printf "garbage" >bad &&
	test_must_fail --status=2 dexec bad >/dev/null 2>err &&
	grep -q "^dexec: bad" err
'

test_expect_success 'bad option: trouble' '
	test_must_fail --status=2 dexec --budget-steps x </dev/null 2>err &&
	grep -q "budget-steps" err
'

test_expect_success 'large grid: one bundle pair, fast' '
	mkobl "$FIX/vec_add.ptx" $VEC 65536 256 16777000 67108864 67108864 >obl &&
	dexec --timing obl >sym &&
	dcat sym | jq "select(.t == \"writes\") | .ms" >ms &&
	say "vec_add 65536x256: $(cat ms) ms" &&
	test "$(jq ". < 200" ms)" = true
'

test_done
