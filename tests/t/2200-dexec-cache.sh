#!/bin/sh
# dexec --cache DIR (dexec(1)): output with a cold cache, a warm cache and
# no cache is the same, byte for byte; a launch found in the cache under
# other value and launch ids (another program before it) is relocated,
# shared-memory loads included, to the bytes a run without the cache
# gives; a changed scalar argument, geometry or option misses; concurrent
# runs share a directory; a damaged entry is executed again; a launch the
# budget stopped is not kept, and kept ones are taken even after the
# budget ran out; bad directories are trouble.
. "$(dirname "$0")/test-lib.sh"

FIX=$ROOT/tests/fixtures
command -v jq >/dev/null 2>&1 || SKIP_ALL="jq is not installed"

le32() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 24 & 255)))" | base64 -w0
}

z='{"$bin":"AAAAAAAAAAA="}'

# values FIRST BUF BYTES: an allocation and the version a launch makes of it.
values() {
	echo "{\"t\":\"value\",\"value\":$1,\"prog\":0,\"buf\":$2,\"version\":0,\"bytes\":$3,\"def\":\"uninit\"}"
	echo "{\"t\":\"value\",\"value\":$(($1 + 1)),\"prog\":0,\"buf\":$2,\"version\":1,\"bytes\":$3,\"def\":\"launch\",\"prev\":$1,\"launch\":$4}"
}

# vecadd FIRST LAUNCH N [MODULE KERNEL [NARG]]: a vec_add launch (or one
# of another kernel with its parameters, and n = NARG) over three fresh
# buffers of N floats (values FIRST..FIRST+5, buffers FIRST/2..).
vecadd() {
	b=$(($1 / 2)) mod=${4:-0} kern=${5:-_Z7vec_addPKfS0_Pfi} narg=${6:-$3}
	values $1 $b $(($3 * 4)) $2
	values $(($1 + 2)) $((b + 1)) $(($3 * 4)) $2
	values $(($1 + 4)) $((b + 2)) $(($3 * 4)) $2
	echo "{\"t\":\"launch\",\"launch\":$2,\"prog\":0,\"seq\":$2,\"module\":$mod,\"kernel\":\"$kern\",\"grid\":[$((($3 + 255) / 256)),1,1],\"block\":[256,1,1],\"shmem\":0,\"args\":[{\"param\":\"a\",\"size\":8,\"raw\":$z,\"in\":$1,\"out\":$(($1 + 1)),\"off\":0},{\"param\":\"b\",\"size\":8,\"raw\":$z,\"in\":$(($1 + 2)),\"out\":$(($1 + 3)),\"off\":0},{\"param\":\"c\",\"size\":8,\"raw\":$z,\"in\":$(($1 + 4)),\"out\":$(($1 + 5)),\"off\":0},{\"param\":\"n\",\"size\":4,\"raw\":{\"\$bin\":\"$(le32 $narg)\"}}]}"
}

# blocksum FIRST LAUNCH N BLOCKS: a block_sum launch (shared memory,
# shuffles) from a buffer of N floats into one of BLOCKS.
blocksum() {
	b=$(($1 / 2))
	values $1 $b $(($3 * 4)) $2
	values $(($1 + 2)) $((b + 1)) $(($4 * 4)) $2
	echo "{\"t\":\"launch\",\"launch\":$2,\"prog\":0,\"seq\":$2,\"module\":1,\"kernel\":\"_Z9block_sumPKfPfi\",\"grid\":[$4,1,1],\"block\":[256,1,1],\"shmem\":0,\"args\":[{\"param\":\"in\",\"size\":8,\"raw\":$z,\"in\":$1,\"out\":$(($1 + 1)),\"off\":0},{\"param\":\"out\",\"size\":8,\"raw\":$z,\"in\":$(($1 + 2)),\"out\":$(($1 + 3)),\"off\":0},{\"param\":\"n\",\"size\":4,\"raw\":{\"\$bin\":\"$(le32 $3)\"}}]}"
}

# obl BODY...: an obligation stream of the modules and the lines given,
# with an output pair (the first launch's first buffer against a buffer of
# the second program) and the end record.
obl() {
	{
	echo '{"t":"header","format":"dirigo","version":1,"stream":"obligation"}'
	echo '{"t":"obligation","programs":["ref","opt"]}'
	echo "{\"t\":\"module\",\"module\":0,\"prog\":0,\"ptx\":{\"\$bin\":\"$(base64 -w0 <"$FIX/vec_add.ptx")\"}}"
	echo "{\"t\":\"module\",\"module\":1,\"prog\":0,\"ptx\":{\"\$bin\":\"$(base64 -w0 <"$FIX/reduce.ptx")\"}}"
	echo "{\"t\":\"module\",\"module\":2,\"prog\":0,\"ptx\":{\"\$bin\":\"$(base64 -w0 <"$FIX/spin.ptx")\"}}"
	body=$(cat)
	printf "%s\n" "$body"
	v=$(printf "%s\n" "$body" | jq -s "[.[] | select(.t == \"value\") | .value] | max + 1")
	echo "{\"t\":\"value\",\"value\":$v,\"prog\":1,\"buf\":0,\"version\":0,\"bytes\":4,\"def\":\"uninit\"}"
	echo "{\"t\":\"output\",\"output\":0,\"bytes\":4,\"values\":[1,$v],\"offs\":[0,0]}"
	echo '{"t":"end"}'
	} | dcat -r
}

test_expect_success 'cold, warm and no cache: the same bytes' '
	{ vecadd 0 0 1000; blocksum 6 1 2048 8; } | obl >a.obl &&
	dexec a.obl >none.sym &&
	dexec -v --cache c a.obl >cold.sym 2>cold.err &&
	dexec -v --cache c a.obl >warm.sym 2>warm.err &&
	cmp none.sym cold.sym &&
	cmp none.sym warm.sym &&
	grep "cache c: 0 hits, 2 misses, 2 entries stored" cold.err &&
	grep "cache c: 2 hits, 0 misses, 0 entries stored" warm.err &&
	test $(grep -c "from the cache" warm.err) = 2 &&
	test $(ls c | wc -l) = 2 &&
	test -z "$(ls -A c | grep "^\.")"
'

test_expect_success 'the entry holds its key and the records' '
	for f in c/*.sym; do dcat "$f"; done >entries.json &&
	jq -r "select(.t==\"cache\") | .key" entries.json >keys &&
	grep "^kernel _Z9block_sumPKfPfi$" keys &&
	grep "^grid 8 1 1 block 256 1 1 shmem 0$" keys &&
	grep "^arg 2 n 4 val 00080000$" keys &&
	grep "^arg 0 in 8 ptr 0 1 0 8192 0$" keys &&
	grep "^build [0-9a-f]\{32\}$" keys &&
	test $(jq -c "select(.t==\"writes\")" entries.json | wc -l) = 2 &&
	test $(jq -s "map(select(.t==\"cache_end\") | .records) | add" entries.json) = 2
'

# The block sum again, after a launch of another kernel: launch 1, values
# 6.. there; here launch 0, values 0...  Its shared-memory loads name the
# launch, too.
test_expect_success 'a hit under other ids is relocated to the bytes of a run without the cache' '
	blocksum 0 0 2048 8 | obl >b.obl &&
	dexec b.obl >b-none.sym &&
	dexec -v --cache c b.obl >b-warm.sym 2>b.err &&
	grep "cache c: 1 hits, 0 misses" b.err &&
	cmp b-none.sym b-warm.sym &&
	dcat b-warm.sym | jq -c "select(.t==\"writes\") | [.launch, .writes[0].value]" >ids &&
	echo "[0,3]" >expect &&
	test_cmp expect ids &&
	dcat b-warm.sym | jq -r "select(.t==\"writes\") | .exprs[] | select(.[0]==\"load\") | .[2]" | sort -u >spaces &&
	grep -qx 0 spaces && grep -qx 2147483648 spaces
'

test_expect_success 'a changed scalar argument, geometry or option misses' '
	{ vecadd 0 0 1000; blocksum 6 1 2040 8; } | obl >n.obl &&
	dexec -v --cache c n.obl >n.sym 2>n.err &&
	grep "cache c: 1 hits, 1 misses" n.err &&
	dexec n.obl >n-none.sym && cmp n.sym n-none.sym &&
	{ vecadd 0 0 1000; blocksum 6 1 2048 4; } | obl >g.obl &&
	dexec -v --cache c g.obl >g.sym 2>g.err &&
	grep "cache c: 1 hits, 1 misses" g.err &&
	dexec -v --cache c --budget-steps 1000000 a.obl >s.sym 2>s.err &&
	grep "cache c: 0 hits, 2 misses" s.err &&
	dexec -v --cache c --timing a.obl >t.sym 2>t.err &&
	grep "cache c: 0 hits, 2 misses" t.err &&
	dexec -v --cache c --smt-rlimit 123456 a.obl >r.sym 2>r.err &&
	grep "cache c: 0 hits, 2 misses" r.err
'

test_expect_success 'a buffer of another size, or two arguments on one buffer, miss' '
	{ vecadd 0 0 1000; blocksum 6 1 2048 8; } | sed "s/\"bytes\":32,/\"bytes\":64,/g" | obl >sz.obl &&
	dexec -v --cache c sz.obl >sz.sym 2>sz.err &&
	grep "cache c: 1 hits, 1 misses" sz.err &&
	vecadd 0 0 1000 | sed "s/\"in\":2,\"out\":3/\"in\":0,\"out\":1/" | obl >al.obl &&
	dexec -v --cache c al.obl >al.sym 2>al.err &&
	grep "cache c: 0 hits, 1 misses" al.err
'

test_expect_success 'a buffer whose bytes come from the host instead of nowhere misses' '
	{ echo "{\"t\":\"input\",\"input\":0,\"bytes\":8192,\"name\":\"x\"}";
	  vecadd 0 0 1000; blocksum 6 1 2048 8; } |
		sed "s/\"value\":6,\"prog\":0,\"buf\":3,\"version\":0,\"bytes\":8192,\"def\":\"uninit\"/\"value\":6,\"prog\":0,\"buf\":3,\"version\":0,\"bytes\":8192,\"def\":\"input\",\"input\":0,\"off\":0,\"len\":8192/" |
		obl >host.obl &&
	dcat host.obl | grep -q "\"def\":\"input\"" &&
	dexec -v --cache c host.obl >host.sym 2>host.err &&
	grep "cache c: 1 hits, 1 misses" host.err &&
	dexec host.obl >host-none.sym && cmp host.sym host-none.sym
'

test_expect_success 'concurrent runs make and share a cache directory' '
	for k in 1 2 3; do
		for i in 1 2 3 4 5 6; do dexec --cache race$k a.obl >r$k-$i.sym 2>r$k-$i.err & done; wait
		for i in 1 2 3 4 5 6; do
			cmp none.sym r$k-$i.sym && test ! -s r$k-$i.err || { cat r$k-$i.err >&2; return 1; }
		done
	done &&
	for i in 1 2 3 4; do dexec --cache shared a.obl >p$i.sym & done; wait &&
	for i in 1 2 3 4; do cmp none.sym p$i.sym || return 1; done &&
	test $(ls shared | wc -l) = 2 &&
	test -z "$(ls -A shared | grep "^\.")" &&
	dexec -v --cache shared a.obl >p5.sym 2>p5.err &&
	cmp none.sym p5.sym &&
	grep "2 hits" p5.err
'

test_expect_success 'a damaged entry is executed again and replaced' '
	f=$(ls shared/*.sym | head -n 1) &&
	head -c 200 "$f" >cut && cp cut "$f" &&
	dexec -v --cache shared a.obl >d.sym 2>d.err &&
	cmp none.sym d.sym &&
	grep "does not hold launch" d.err &&
	grep "1 hits, 1 misses, 1 entries stored" d.err &&
	dexec -v --cache shared a.obl >d2.sym 2>d2.err &&
	grep "2 hits" d2.err
'

test_expect_success 'a launch the budget stopped is not kept, and is executed again' '
	{ vecadd 0 0 1000; vecadd 6 1 1024 2 _Z4spinPKfS0_Pfi 1023; } | obl >sp.obl &&
	test_must_fail --status=3 dexec -v --cache sc --budget 1 sp.obl >sp1.sym 2>sp1.err &&
	grep "cache sc: 0 hits, 2 misses, 1 entries stored" sp1.err &&
	dcat sp1.sym | jq -s -e "map(select(.t == \"timeout\")) | length == 1 and .[0].launch == 1 and .[0].doing == \"executing\"" &&
	test $(ls sc | wc -l) = 1 &&
	dcat sc/*.sym | jq -s -e "map(select(.t == \"cache\")) | length == 1 and .[0].launch == 0" &&
	test_must_fail --status=3 dexec -v --cache sc --budget 1 sp.obl >sp2.sym 2>sp2.err &&
	grep "launch 0: kernel .*: from the cache" sp2.err &&
	grep "cache sc: 1 hits, 1 misses, 0 entries stored" sp2.err &&
	dcat sp2.sym | jq -s -e "map(select(.t == \"timeout\")) | length == 1 and .[0].launch == 1"
'

test_expect_success 'after the budget ran out, launches the cache holds are still taken' '
	dexec -v --cache c --budget 0 a.obl >z.sym 2>z.err &&
	cmp none.sym z.sym &&
	grep "cache c: 2 hits, 0 misses" z.err &&
	test_must_fail --status=3 dexec --cache empty --budget 0 a.obl >z2.sym 2>z2.err &&
	test $(dcat z2.sym | jq -c "select(.t == \"timeout\" and .doing == \"not started\")" | wc -l) = 2
'

test_expect_success 'a cache that is not a writable directory is trouble' '
	: >plain &&
	test_must_fail --status=2 dexec --cache plain a.obl >out 2>err &&
	grep "dexec: --cache: .plain. is not a directory" err &&
	test_must_fail --status=2 dexec --cache missing/deeper a.obl >out 2>err &&
	grep "dexec: --cache: cannot use .missing/deeper." err &&
	test ! -s out
'

test_done
