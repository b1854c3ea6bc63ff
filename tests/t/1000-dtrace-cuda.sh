#!/bin/sh
# dtrace-cuda: trace small CUDA programs with the record-only runtime and
# check the records (dirigo-trace(5)) through dcat and jq.

. "$(dirname "$0")/test-lib.sh"

PROGS=$ROOT/tests/t/programs
have_nvcc || SKIP_ALL="nvcc not found"
command -v jq >/dev/null || SKIP_ALL="jq not found"

# recs TRACE FILTER: the records as compact JSON, filtered by jq.
recs() { dcat "$1" >"$1.json" && jq -c "$2" <"$1.json"; }

test_expect_success 'build the test programs' '
	build_cuda "$PROGS/vadd.cu" vadd &&
	build_cuda "$PROGS/scale2.cu" scale2 &&
	build_cuda "$PROGS/fail.cu" fail &&
	build_cuda "$PROGS/refused.cu" refused &&
	"$ROOT/scripts/nvcc-build.sh" "$PROGS/vadd.cu" vadd-sass -gencode arch=compute_90,code=sm_90
'

test_expect_success 'vadd: traced, exit 0, program stdout on stderr' '
	dtrace-cuda --name ref -- ./vadd >vadd.trace 2>err &&
	grep "vadd done" err &&
	recs vadd.trace "select(.t==\"header\") | [.stream, .name]" >actual &&
	echo "[\"trace\",\"ref\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'vadd: record types in order' '
	recs vadd.trace ".t" >types &&
	tr -d "\"" <types | tr "\n" " " >actual && echo >>actual &&
	echo "header alloc alloc alloc copy copy module launch copy free free free end " >expect &&
	test_cmp expect actual
'

test_expect_success 'vadd: h2d copies keep data and hash' '
	recs vadd.trace "select(.t==\"copy\" and .dir==\"h2d\") | [.buf, .off, .bytes, (.data|type), (.hash|length)]" >actual &&
	printf "%s\n" "[0,0,4000,\"object\",16]" "[1,0,4000,\"object\",16]" >expect &&
	test_cmp expect actual
'

test_expect_success 'vadd: launch names the kernel, geometry and buffers' '
	recs vadd.trace "select(.t==\"launch\") | [.launch, .module, .kernel, .grid, .block, .shmem]" >actual &&
	echo "[0,0,\"_Z4vaddPKfS0_Pfi\",[4,1,1],[256,1,1],0]" >expect &&
	test_cmp expect actual &&
	recs vadd.trace "select(.t==\"launch\") | .args[] | [.size, .buf, .off]" >actual &&
	printf "%s\n" "[8,0,0]" "[8,1,0]" "[8,2,0]" "[4,null,null]" >expect &&
	test_cmp expect actual &&
	recs vadd.trace "select(.t==\"launch\") | .args[3].raw[\"\$bin\"]" >actual &&
	echo "\"6AMAAA==\"" >expect &&
	test_cmp expect actual
'

test_expect_success 'vadd: module holds the PTX of the entry and its hash' '
	recs vadd.trace "select(.t==\"module\") | .ptx" >ptx.json &&
	grep "\\.entry _Z4vaddPKfS0_Pfi" ptx.json &&
	recs vadd.trace "select(.t==\"module\") | [(.hash|test(\"^[0-9a-f]{16}\$\")), (.arch > 0)]" >actual &&
	echo "[true,true]" >expect &&
	test_cmp expect actual
'

test_expect_success 'vadd: d2h copy and end status' '
	recs vadd.trace "select(.t==\"copy\" and .dir==\"d2h\") | [.buf, .bytes]" >actual &&
	echo "[2,4000]" >expect &&
	test_cmp expect actual &&
	recs vadd.trace "select(.t==\"end\") | .status" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'vadd: -o FILE and --max-data 0 (hash only)' '
	dtrace-cuda --max-data 0 -o small.trace -- ./vadd 2>err &&
	recs small.trace "select(.t==\"copy\" and .dir==\"h2d\") | [has(\"data\"), has(\"hash\")]" >actual &&
	printf "%s\n" "[false,true]" "[false,true]" >expect &&
	test_cmp expect actual
'

test_expect_success 'scale2: memset, symbol and copy to symbol' '
	dtrace-cuda -- ./scale2 >scale2.trace 2>err &&
	recs scale2.trace "select(.t==\"memset\") | [.buf, .off, .bytes, .value]" >actual &&
	echo "[0,0,512,0]" >expect &&
	test_cmp expect actual &&
	recs scale2.trace "select(.t==\"alloc\" and .kind==\"symbol\") | [.buf, .bytes, .module, .symbol]" >actual &&
	echo "[2,16,0,\"coef\"]" >expect &&
	test_cmp expect actual &&
	recs scale2.trace "select(.t==\"copy\" and .buf==2) | [.dir, .off, .bytes, .data[\"\$bin\"]]" >actual &&
	echo "[\"h2d\",0,16,\"AAAAQAAAgD8AAAAAAAAAAA==\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'scale2: two launches, pointer at an offset, shmem' '
	recs scale2.trace "select(.t==\"launch\") | [.launch, .kernel, .grid, .block, .shmem]" >actual &&
	printf "%s\n" "[0,\"_Z5scalePfi\",[2,1,1],[32,1,1],0]" \
		"[1,\"_Z5shiftPKfPfif\",[1,1,1],[64,1,1],128]" >expect &&
	test_cmp expect actual &&
	recs scale2.trace "select(.t==\"launch\" and .launch==1) | .args[] | [.param, .buf, .off]" >actual &&
	printf "%s\n" "[\"_Z5shiftPKfPfif_param_0\",0,128]" "[\"_Z5shiftPKfPfif_param_1\",1,0]" \
		"[\"_Z5shiftPKfPfif_param_2\",null,null]" "[\"_Z5shiftPKfPfif_param_3\",null,null]" >expect &&
	test_cmp expect actual
'

test_expect_success 'a program that exits non-zero: exit 2, trace written without its end record' '
	test_must_fail --status=2 dtrace-cuda -- ./fail >fail.trace 2>err &&
	grep "dtrace-cuda: .*fail.* exited with status 3" err &&
	test_must_fail --status=2 dcat fail.trace >fail.jsonl 2>err &&
	jq -r .t fail.jsonl >actual &&
	printf "%s\n" header alloc module launch >expect &&
	test_cmp expect actual &&
	grep "fail.trace: the stream .dtrace-cuda. wrote stops after record 3, before its end record" err &&
	dcat -r "$ROOT/tests/t/data/trace-opt.jsonl" >opt.trace &&
	test_must_fail --status=2 dmerge fail.trace opt.trace >out 2>err &&
	grep "dmerge: fail.trace: the stream .dtrace-cuda. wrote stops after record 3, before its end record: .dtrace-cuda. failed" err &&
	test ! -s out
'

test_expect_success 'a launch of 2048 threads a block: refused as CUDA does, said, not recorded' '
	dtrace-cuda -- ./refused >refused.trace 2>err &&
	grep -q "^cudaErrorInvalidConfiguration$" err &&
	grep -q "dtrace-cuda: .*refused: warning: launch of _Z5touchPi refused (cudaErrorInvalidConfiguration): grid 1x1x1, block 64x32x1 = 2048 threads (at most 1024, none 0); the kernel does not run" err &&
	dcat refused.trace | jq -r .t >actual &&
	printf "%s\n" header alloc end >expect &&
	test_cmp expect actual
'

test_expect_success 'a program that is not there: exit 2, named' '
	test_must_fail --status=2 dtrace-cuda -- ./no-such-program >none.trace 2>err &&
	grep "dtrace-cuda: cannot run .*no-such-program" err
'

test_expect_success 'a program without PTX: exit 2, says how to rebuild' '
	test_must_fail --status=2 dtrace-cuda -- ./vadd-sass >sass.trace 2>err &&
	grep "kernel module has no PTX" err &&
	grep "code=compute_90" err
'

test_expect_success 'a CUDA program started by a shell is traced' '
	dtrace-cuda -- sh -c ./vadd >sh.trace 2>err &&
	recs sh.trace "select(.t==\"launch\") | .kernel" >actual &&
	echo "\"_Z4vaddPKfS0_Pfi\"" >expect &&
	test_cmp expect actual
'

test_expect_success 'a trace cut in the middle of a record: exit 2' '
	test_must_fail --status=2 dtrace-cuda -- sh -c "printf \"\\201\\241t\" >&\$DIRIGO_TRACE_FD" >cut.trace 2>err &&
	grep "ends in the middle of a record" err
'

test_expect_success 'no program: usage, exit 2' '
	test_must_fail --status=2 dtrace-cuda >out 2>err &&
	grep "no program to run" err &&
	grep "^usage: dtrace-cuda" err
'

test_expect_success 'cuBLAS: statuses as cuBLAS gives them, products as launches of dirigo_cublas_sgemm' '
	"$ROOT/scripts/nvcc-build.sh" "$PROGS/cublas-calls.cu" cublas-calls -lcublas &&
	dtrace-cuda -- ./cublas-calls >cublas.trace 2>err &&
	grep "^create CUBLAS_STATUS_SUCCESS" err &&
	grep "^math 3" err &&
	grep "^bad lda CUBLAS_STATUS_INVALID_VALUE" err &&
	grep "^identity CUBLAS_STATUS_SUCCESS" err &&
	grep "^gemm CUBLAS_STATUS_SUCCESS" err &&
	grep "^gemmex CUBLAS_STATUS_SUCCESS" err &&
	grep "^destroy CUBLAS_STATUS_SUCCESS" err &&
	recs cublas.trace "select(.t==\"launch\") | [.module, .kernel, .grid, .block]" >actual &&
	printf "%s\n" "[0,\"dirigo_cublas_sgemm\",[1,1,1],[16,16,1]]" \
		"[0,\"dirigo_cublas_sgemm\",[1,1,1],[16,16,1]]" >expect &&
	test_cmp expect actual &&
	recs cublas.trace "select(.t==\"launch\") | [.args[0,1,2,3,4,7,10,14].raw[\"\$bin\"]] | join(\" \")" >actual &&
	printf "%s\n" "\"AAAAAA== AAAAAA== BgAAAA== BQAAAA== BAAAAA== BgAAAA== BAAAAA== BgAAAA==\"" \
		"\"AQAAAA== AAAAAA== BgAAAA== BQAAAA== BAAAAA== BAAAAA== BAAAAA== BgAAAA==\"" >expect &&
	test_cmp expect actual &&
	recs cublas.trace "select(.t==\"module\") | .ptx" >ptx.json &&
	grep "\\.entry dirigo_cublas_sgemm" ptx.json
'

test_expect_success 'cuBLAS: alpha in device memory is unsupported: exit 3, named' '
	test_must_fail --status=3 dtrace-cuda -- ./cublas-calls device >cublas-dev.trace 2>err &&
	grep "unsupported: cublasSgemm: alpha in device memory" err &&
	! grep "device pointer mode was recorded" err
'

test_done
