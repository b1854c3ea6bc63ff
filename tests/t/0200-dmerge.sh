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
	(sed "\$d" "$D/trace-ref.jsonl"; echo "{\"t\":\"note\",\"text\":\"hello\"}";
	 tail -1 "$D/trace-ref.jsonl") | dcat -r >refn.trace &&
	cat refn.trace opt.trace | dmerge >n.obl &&
	dcat n.obl | tail -2 | head -1 | jq -e ".t == \"note\" and .text == \"hello\"" &&
	dcat n.obl | tail -1 | jq -e ".t == \"end\" and .counts.note == 1"
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

# ---- torch records (dirigo-trace(5), TORCH RECORDS), written by hand ----

# tt NAME OPS...: a torch trace with input x (f32 [2,2]) and param w (f32
# [2,2]), the given JSON lines, and "end".
tt() {
	n=$1; shift
	{
		echo "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"trace\",\"name\":\"$n\"}"
		echo "{\"t\":\"tensor\",\"tensor\":0,\"storage\":0,\"version\":0,\"dtype\":\"f32\",\"shape\":[2,2],\"stride\":[2,1],\"offset\":0}"
		echo "{\"t\":\"tinput\",\"tensor\":0,\"role\":\"input\",\"name\":\"arg0\",\"data\":{\"\$bin\":\"AACAPwAAAEAAAEBAAACAQA==\"}}"
		echo "{\"t\":\"tensor\",\"tensor\":1,\"storage\":1,\"version\":0,\"dtype\":\"f32\",\"shape\":[2,2],\"stride\":[2,1],\"offset\":0}"
		echo "{\"t\":\"tinput\",\"tensor\":1,\"role\":\"param\",\"name\":\"w\"}"
		for l in "$@"; do echo "$l"; done
		echo "{\"t\":\"end\",\"status\":0}"
	} | dcat -r >"$n.trace"
}
T2='{"t":"tensor","tensor":2,"storage":2,"version":0,"dtype":"f32","shape":[2,2],"stride":[2,1],"offset":0}'
MM='{"t":"op","seq":0,"op":"aten::mm","args":[{"name":"self","tensor":0},{"name":"mat2","tensor":1}],"outs":[2]}'
T3='{"t":"tensor","tensor":3,"storage":2,"version":1,"dtype":"f32","shape":[2,2],"stride":[2,1],"offset":0}'
RELU_='{"t":"op","seq":1,"op":"aten::relu_","args":[{"name":"self","tensor":2}],"outs":[3],"mutated":[{"arg":"self","tensor":3}]}'
T4='{"t":"tensor","tensor":4,"storage":2,"version":1,"dtype":"f32","shape":[2,2],"stride":[1,2],"offset":0}'
TR='{"t":"op","seq":2,"op":"aten::t","args":[{"name":"self","tensor":3}],"outs":[4]}'

test_expect_success 'torch: storages in SSA, in-place ops make versions, views make none' '
	tt ref "$T2" "$MM" "$T3" "$RELU_" "{\"t\":\"toutput\",\"tensor\":3,\"name\":\"out0\"}" &&
	cp ref.trace opt.trace &&
	dmerge --no-trim ref.trace opt.trace >t.obl &&
	dcat t.obl >t.jsonl &&
	jq -c "select(.t==\"value\" and .prog==0) | [.value,.storage,.version,.def,.prev,.op,.input]" t.jsonl >actual &&
	cat >expect <<-\EOT &&
	[0,0,0,"input",null,null,0]
	[1,1,0,"input",null,null,1]
	[2,2,0,"op",null,0,null]
	[3,2,1,"op",2,1,null]
	EOT
	test_cmp expect actual &&
	jq -c "select(.t==\"input\") | [.name,.role,.dtype,.shape,(.data != null)]" t.jsonl >actual &&
	printf "[\"arg0\",\"input\",\"f32\",[2,2],true]\n[\"w\",\"param\",\"f32\",[2,2],false]\n" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"op\" and .prog==0) | [.id,.op,[.views[] | [.tensor,.value]]]" t.jsonl >actual &&
	printf "[0,\"aten::mm\",[[0,0],[1,1],[2,2]]]\n[1,\"aten::relu_\",[[2,2],[3,3]]]\n" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"output\") | [.values,.dtype,.shape]" t.jsonl >actual &&
	echo "[[3,7],\"f32\",[2,2]]" >expect &&
	test_cmp expect actual
'

test_expect_success 'torch: zeros of any size are a memset, other fills are data' '
	Z="{\"t\":\"tensor\",\"tensor\":2,\"storage\":2,\"version\":0,\"dtype\":\"f32\",\"shape\":[32768,32768],\"stride\":[32768,1],\"offset\":0}" &&
	ZOP="{\"t\":\"op\",\"seq\":0,\"op\":\"aten::zeros\",\"args\":[{\"name\":\"size\",\"ints\":[32768,32768]}],\"outs\":[2]}" &&
	O="{\"t\":\"tensor\",\"tensor\":3,\"storage\":3,\"version\":0,\"dtype\":\"f32\",\"shape\":[2,2],\"stride\":[2,1],\"offset\":0}" &&
	OOP="{\"t\":\"op\",\"seq\":1,\"op\":\"aten::ones\",\"args\":[{\"name\":\"size\",\"ints\":[2,2]}],\"outs\":[3]}" &&
	tt ref "$Z" "$ZOP" "$O" "$OOP" "{\"t\":\"toutput\",\"tensor\":2,\"name\":\"out0\"}" \
		"{\"t\":\"toutput\",\"tensor\":3,\"name\":\"out1\"}" &&
	cp ref.trace opt.trace &&
	dmerge --no-trim ref.trace opt.trace >z.obl &&
	test $(wc -c <z.obl) -lt 100000 &&
	dcat z.obl | jq -c "select(.t==\"value\" and .prog==0 and .storage>1) | [.def,.fill,.off,.len,(.data|tostring|length>4)]" >actual &&
	cat >expect <<-\EOT &&
	["memset",0,0,4294967296,false]
	["data",null,0,16,true]
	EOT
	test_cmp expect actual
'

test_expect_success 'torch: a strided output is copied by a clone dmerge adds' '
	tt ref "$T2" "$MM" "$T3" "$RELU_" "$T4" "$TR" "{\"t\":\"toutput\",\"tensor\":4,\"name\":\"out0\"}" &&
	dmerge --no-trim ref.trace ref.trace | dcat >s.jsonl &&
	jq -c "select(.t==\"op\" and .prog==0) | .op" s.jsonl >actual &&
	printf "\"aten::mm\"\n\"aten::relu_\"\n\"aten::clone\"\n" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"op\" and .op==\"aten::clone\" and .prog==0) | .views[0] | [.stride,.value]" s.jsonl >actual &&
	echo "[[1,2],3]" >expect &&
	test_cmp expect actual
'

test_expect_success 'torch: the common prefix is trimmed into shared inputs' '
	tt ref "$T2" "$MM" "$T3" "$RELU_" "{\"t\":\"toutput\",\"tensor\":3,\"name\":\"out0\"}" &&
	R2='"'"'{"t":"tensor","tensor":3,"storage":3,"version":0,"dtype":"f32","shape":[2,2],"stride":[2,1],"offset":0}'"'"' &&
	TANH='"'"'{"t":"op","seq":1,"op":"aten::tanh","args":[{"name":"self","tensor":2}],"outs":[3]}'"'"' &&
	tt opt "$T2" "$MM" "$R2" "$TANH" "{\"t\":\"toutput\",\"tensor\":3,\"name\":\"out0\"}" &&
	dmerge --trim ref.trace opt.trace >p.obl &&
	dcat p.obl >p.jsonl &&
	jq -c "select(.t==\"trimmed\") | [.ops,.inputs,.values]" p.jsonl >actual &&
	echo "[[1,1],[2],[[2,6]]]" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"value\" and .def==\"op\" and .input != null) | [.value,.input,.off,.len]" p.jsonl >actual &&
	printf "[2,2,0,16]\n[6,2,0,16]\n" >expect &&
	test_cmp expect actual &&
	dmerge ref.trace opt.trace | dcat | jq -e -s "map(select(.t==\"trimmed\")) | length == 0"
'

test_expect_success 'torch: an op without semantics is kept, marked, and unsupported downstream' '
	U='"'"'{"t":"op","seq":0,"op":"aten::frobnicate","args":[{"name":"self","tensor":0}],"outs":[2]}'"'"' &&
	tt ref "$T2" "$U" "{\"t\":\"toutput\",\"tensor\":2,\"name\":\"out0\"}" &&
	dmerge ref.trace ref.trace >u.obl &&
	dcat u.obl >u.jsonl &&
	jq -c "select(.t==\"op\") | .unsupported" u.jsonl | head -n 1 >actual &&
	echo "\"aten::frobnicate: no semantics for this op\"" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"unsupported\") | [.prog,.kernel,.what]" u.jsonl | head -n 1 >actual &&
	echo "[0,\"aten::frobnicate\",\"torch op '"'"'aten::frobnicate'"'"'\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'torch: parameters of different shapes are refused with both names' '
	tt ref "$T2" "$MM" "{\"t\":\"toutput\",\"tensor\":2,\"name\":\"out0\"}" &&
	dcat ref.trace | jq -c "if .t==\"tensor\" and .tensor==1 then .shape=[4] | .stride=[1] else . end" |
		jq -c "if .t==\"header\" then .name=\"opt\" else . end" | dcat -r >bad.trace &&
	test_must_fail --status=2 dmerge ref.trace bad.trace >out 2>err &&
	grep "param .w. of .ref. is f32\[2,2\], but param .w. of .opt. is f32\[4\]" err &&
	test ! -s out
'

test_expect_success 'torch: different numbers of parameters are refused' '
	X1='"'"'{"t":"tensor","tensor":9,"storage":9,"version":0,"dtype":"f32","shape":[3],"stride":[1],"offset":0}'"'"' &&
	X2='"'"'{"t":"tinput","tensor":9,"role":"param","name":"extra"}'"'"' &&
	tt opt "$X1" "$X2" "$T2" "$MM" "{\"t\":\"toutput\",\"tensor\":2,\"name\":\"out0\"}" &&
	test_must_fail --status=2 dmerge ref.trace opt.trace 2>err &&
	grep "programs do not match: .ref. has 1 parameters, .opt. has 2" err
'

test_expect_success 'torch: a launch argument into a storage makes a new version of it' '
	MOD='"'"'{"t":"module","module":0,"ptx":".version 9.0","hash":"0000000000000000","arch":90}'"'"' &&
	L='"'"'{"t":"launch","launch":0,"module":0,"kernel":"k","grid":[1,1,1],"block":[4,1,1],"shmem":0,"args":[{"param":"k_param_0","size":8,"raw":{"$bin":"AAAAAAAAAAA="},"storage":2,"off":4}]}'"'"' &&
	T2V1='"'"'{"t":"tensor","tensor":9,"storage":2,"version":1,"dtype":"f32","shape":[2,2],"stride":[2,1],"offset":0}'"'"' &&
	tt ref "$MOD" "$T2" "$MM" "$L" "$T2V1" "{\"t\":\"toutput\",\"tensor\":9,\"name\":\"out0\"}" &&
	dmerge --no-trim ref.trace ref.trace | dcat >l.jsonl &&
	jq -c "select(.t==\"value\" and .prog==0 and .storage==2) | [.value,.buf,.version,.def,.prev]" l.jsonl >actual &&
	printf "[2,2,0,\"op\",null]\n[3,2,1,\"launch\",2]\n" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"launch\" and .prog==0) | .args[0] | [.in,.out,.off]" l.jsonl >actual &&
	echo "[2,3,4]" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"output\") | .values" l.jsonl >actual &&
	echo "[3,7]" >expect &&
	test_cmp expect actual
'

# A launch record on storage 2 (the result of MM), launch number $1.
launch_s2() {
	echo "{\"t\":\"launch\",\"launch\":$1,\"module\":0,\"kernel\":\"k\",\"grid\":[1,1,1],\"block\":[4,1,1],\"shmem\":0,\"args\":[{\"param\":\"k_param_0\",\"size\":8,\"raw\":{\"\$bin\":\"AAAAAAAAAAA=\"},\"storage\":2,\"off\":0},{\"param\":\"k_param_1\",\"size\":8,\"raw\":{\"\$bin\":\"AAAAAAAAAAA=\"},\"storage\":2,\"off\":8}]}"
}
t2v() {   # ID VERSION: a tensor record of storage 2
	echo "{\"t\":\"tensor\",\"tensor\":$1,\"storage\":2,\"version\":$2,\"dtype\":\"f32\",\"shape\":[2,2],\"stride\":[2,1],\"offset\":0}"
}

MOD='{"t":"module","module":0,"ptx":".version 9.0","hash":"0000000000000000","arch":90}'
test_expect_success 'storage versions: one per launch, however many arguments point there' '
	tt ref "$MOD" "$T2" "$MM" "$(launch_s2 0)" "$(launch_s2 1)" "$(t2v 9 2)" \
		"{\"t\":\"toutput\",\"tensor\":9,\"name\":\"out0\"}" &&
	dmerge ref.trace ref.trace | dcat >v.jsonl &&
	jq -c "select(.t==\"value\" and .prog==0 and .storage==2) | [.version,.def]" v.jsonl >actual &&
	printf "[0,\"op\"]\n[1,\"launch\"]\n[2,\"launch\"]\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'storage versions: a tensor of an older version is refused, naming both' '
	tt ref "$MOD" "$T2" "$MM" "$(launch_s2 0)" "$(launch_s2 1)" "$(t2v 9 1)" \
		"{\"t\":\"toutput\",\"tensor\":9,\"name\":\"out0\"}" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >/dev/null 2>err &&
	grep -q "output .out0. names a version of storage 2 that no op made" err
'

test_expect_success 'copies and memsets of a storage: SSA copies and new versions' '
	A="{\"t\":\"alloc\",\"buf\":0,\"bytes\":16,\"kind\":\"device\"}" &&
	C1="{\"t\":\"copy\",\"dir\":\"d2d\",\"buf\":0,\"off\":0,\"bytes\":16,\"src_storage\":0,\"src_off\":0}" &&
	M="{\"t\":\"memset\",\"storage\":2,\"off\":0,\"bytes\":16,\"value\":0}" &&
	C2="{\"t\":\"copy\",\"dir\":\"d2d\",\"storage\":2,\"off\":4,\"bytes\":8,\"src_buf\":0,\"src_off\":4}" &&
	H="{\"t\":\"copy\",\"dir\":\"h2d\",\"buf\":0,\"off\":0,\"bytes\":4,\"data\":{\"\$bin\":\"AACAQA==\"},\"hash\":\"x\"}" &&
	tt ref "$T2" "$MM" "$A" "$C1" "$M" "$C2" "$H" "$(t2v 9 2)" \
		"{\"t\":\"toutput\",\"tensor\":9,\"name\":\"out0\"}" &&
	dmerge ref.trace ref.trace | dcat >c.jsonl &&
	jq -c "select(.t==\"value\" and .prog==0 and (.storage==2 or .buf==0) and .storage != 0) | [.version,.def,.storage]" c.jsonl >actual &&
	cat >expect <<-\EOF &&
	[0,"op",2]
	[0,"uninit",null]
	[1,"copy",null]
	[1,"memset",2]
	[2,"copy",2]
	[2,"data",null]
	EOF
	test_cmp expect actual &&
	src=$(jq "select(.t==\"value\" and .prog==0 and .storage==0) | .value" c.jsonl) &&
	jq -e -s "map(select(.t==\"value\" and .prog==0 and .def==\"copy\" and .storage==null))[0].src == $src" c.jsonl >/dev/null &&
	test $(jq -s "map(select(.t==\"input\")) | length" c.jsonl) = 2
'

test_expect_success 'a device-to-host copy in a torch trace is unsupported, named' '
	D2H="{\"t\":\"copy\",\"dir\":\"d2h\",\"storage\":2,\"off\":0,\"bytes\":4}" &&
	tt ref "$T2" "$MM" "$D2H" "{\"t\":\"toutput\",\"tensor\":2,\"name\":\"out0\"}" &&
	dmerge ref.trace ref.trace | dcat >h.jsonl &&
	jq -c "select(.t==\"unsupported\") | .kernel" h.jsonl | head -n 1 >actual &&
	echo "\"cudaMemcpy\"" >expect &&
	test_cmp expect actual
'

test_expect_success 'bad copies and memsets of storages name the record' '
	tt ref "$T2" "$MM" "{\"t\":\"copy\",\"dir\":\"d2d\",\"buf\":0,\"storage\":2,\"off\":0,\"bytes\":4,\"src_storage\":0,\"src_off\":0}" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >/dev/null 2>err &&
	grep -q "fields .buf. and .storage.: only one of them may be given" err &&
	tt ref "{\"t\":\"memset\",\"storage\":7,\"off\":0,\"bytes\":4,\"value\":0}" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >/dev/null 2>err &&
	grep -q "storage 7 holds no tensor yet" err &&
	tt ref "$T2" "$MM" "{\"t\":\"copy\",\"dir\":\"h2d\",\"storage\":2,\"off\":0,\"bytes\":4,\"hash\":\"x\"}" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >/dev/null 2>err &&
	grep -q "has no .data.; its bytes are constants" err
'

test_expect_success 'random op: its result is an input of its own program; a bad flag is refused' '
	RND="{\"t\":\"op\",\"seq\":0,\"op\":\"aten::rand_like\",\"args\":[{\"name\":\"self\",\"tensor\":0}],\"outs\":[2],\"random\":true}" &&
	T2D="{\"t\":\"tensor\",\"tensor\":2,\"storage\":2,\"version\":0,\"dtype\":\"f32\",\"shape\":[2,2],\"stride\":[2,1],\"offset\":0,\"data\":{\"\$bin\":\"AACAPwAAAEAAAEBAAACAQA==\"}}" &&
	tt ref "$T2D" "$RND" "{\"t\":\"toutput\",\"tensor\":2,\"name\":\"out0\"}" &&
	dmerge ref.trace ref.trace | dcat >r.jsonl &&
	jq -c "select(.t==\"input\" and .role==\"random\") | [.name,.prog]" r.jsonl >actual &&
	printf "[\"aten::rand_like#0.0\",0]\n[\"aten::rand_like#0.0\",1]\n" >expect &&
	test_cmp expect actual &&
	test -z "$(jq -c "select(.t==\"op\")" r.jsonl)" &&
	tt ref "$T2D" "$(echo "$RND" | sed "s/\"random\":true/\"random\":1/")" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >/dev/null 2>err &&
	grep -q "field .random.: not a boolean" err
'

# issue 9: ids from the input index tables; they are bounded, not grown to
test_expect_success 'a module id of 2^31 is refused at once, not grown to' '
	sed "s/\"module\":0,\"ptx\"/\"module\":2147483648,\"ptx\"/" "$D/trace-ref.jsonl" | dcat -r >bigmod.trace &&
	test_must_fail --status=2 dmerge bigmod.trace opt.trace >out 2>err &&
	grep "bigmod.trace: record 1 (module): module 2147483648 out of order (the trace has 0 modules before it" err
'

test_expect_success 'a tensor or storage id far beyond the records is refused' '
	tt ref "{\"t\":\"tensor\",\"tensor\":4000000000,\"storage\":0,\"version\":0,\"dtype\":\"f32\",\"shape\":[1],\"stride\":[1],\"offset\":0}" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >out 2>err &&
	grep "ref.trace: record 5 (tensor): tensor id 4000000000 is too large" err &&
	tt ref "{\"t\":\"tensor\",\"tensor\":5,\"storage\":2147483648,\"version\":0,\"dtype\":\"f32\",\"shape\":[1],\"stride\":[1],\"offset\":0}" &&
	test_must_fail --status=2 dmerge ref.trace ref.trace >out 2>err &&
	grep "ref.trace: record 5 (tensor): storage id 2147483648 is too large" err
'

test_done
