#!/bin/sh
# dreplay's outputs for others: the repro bundle (--bundle), SARIF 2.1.0
# (--sarif), and --gpu on a machine without a GPU.  Streams come from the
# hand-written symbolic streams of 4000 and, with nvcc, from the bundled
# example (examples/fused-scale-bias-relu).
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
ver() { cat "$D/check-base.jsonl" "$D/check-opt-$1.jsonl" | dcat -r >"$1.sym" &&
	{ dcheck "$1.sym" >"$1.ver"; test $? -ne 2; }; }

# npy_check FILE DESCR N: the .npy v1.0 header of a flat array, by bytes
npy_check() {
	magic=$(head -c 8 "$1" | od -A n -t x1 | tr -d ' \n') &&
	test "$magic" = 934e554d50590100 &&
	hlen=$(od -A n -t u2 -j 8 -N 2 "$1" | tr -d ' ') &&
	test $(((10 + hlen) % 64)) = 0 &&
	head -c $((10 + hlen)) "$1" | tail -c +11 >header &&
	grep -F "{'descr': '$2', 'fortran_order': False, 'shape': ($3,), }" header &&
	test "$(tail -c 1 header | od -A n -c | tr -d ' ')" = '\n'
}

test_expect_success 'a bundle: the archive lists the files it should' '
	ver differ &&
	test_status 1 dreplay --bundle pair.tar.gz differ.ver >out 2>report &&
	tar tzf pair.tar.gz | sort >list &&
	printf "%s\n" pair/README pair/pair.ver pair/replay.py pair/report.sarif.json pair/report.txt \
		pair/witness-1/input-0-a.npy pair/witness-1/input-1-b.npy pair/witnesses.json | sort >expect &&
	test_cmp expect list
'

test_expect_success 'the bundle: .npy headers, and the witness values in the arrays' '
	tar xzf pair.tar.gz &&
	bytes=$(dcat differ.ver | jq -s "map(select(.t==\"input\"))[0].bytes") &&
	npy_check pair/witness-1/input-0-a.npy "<f4" $((bytes / 4)) &&
	npy_check pair/witness-1/input-1-b.npy "<f4" $((bytes / 4)) &&
	dcat differ.ver | jq -r "select(.t==\"witness\") | .inputs[] | \"\(.input) \(.off) \(.value)\"" >elems &&
	test -s elems &&
	while read -r i off v; do
		f=$(ls pair/witness-1/input-$i-*.npy) &&
		hlen=$(od -A n -t u2 -j 8 -N 2 "$f" | tr -d " ") &&
		got=$(od -A n -t f4 -j $((10 + hlen + off)) -N 4 "$f" | tr -d " ") &&
		awk -v a="$got" -v b="$v" "BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * (b < 0 ? -b : b) + 1e-30) }" ||
		return 1
	done <elems &&
	if python3 -c "import numpy" 2>/dev/null; then
		python3 -c "import numpy, sys; a = numpy.load(\"pair/witness-1/input-0-a.npy\"); sys.exit(a.dtype != numpy.float32 or a.ndim != 1)"
	fi
'

test_expect_success 'the bundle: report, witnesses.json, README, and the stream replays' '
	test_cmp report pair/report.txt &&
	jq -e ".reference == \"ref\" and .optimized == \"opt\" and (.witnesses | length) == 1 and
		.witnesses[0].confirmed and (.witnesses[0].files | length) == 2" pair/witnesses.json >/dev/null &&
	grep "dmerge trims no common" pair/README &&
	grep "GPU and the original binaries" pair/README &&
	test_status 1 dreplay pair/pair.ver >again 2>/dev/null &&
	test "$(dcat again | jq -r "select(.t==\"report\") | .result")" = buggy
'

test_expect_success 'the bundle: replay.py checks the arrays and replays on the CPU' '
	(cd pair && test_status 1 python3 replay.py >../py.out 2>../py.err) &&
	grep "^witness 1: output 0 element 0: .*; 2 input elements checked" py.out &&
	grep "needs a GPU and the original binaries" py.out &&
	grep "dreplay --gpu" py.out &&
	grep "^witness 1 replayed: .*: CONFIRMED" py.out
'

test_expect_success 'replay.py without dirigo on PATH prints the CPU commands, exit 3' '
	(cd pair && PATH=/usr/bin:/bin test_status 3 python3 replay.py >../py.out 2>&1) &&
	grep "dreplay pair.ver | dcat" py.out
'

test_expect_success 'a bundle that cannot be written is trouble' '
	test_must_fail --status=2 dreplay --bundle no/such/dir/x.tar.gz differ.ver >out 2>err &&
	grep "cannot write bundle .no/such/dir/x.tar.gz." err
'

sarif_shape='.version == "2.1.0" and (.runs | length) == 1 and
	.runs[0].tool.driver.name == "dirigo" and (.runs[0].tool.driver.rules | type) == "array" and
	(.runs[0].results | type) == "array" and
	all(.runs[0].results[]; (.ruleId | type) == "string" and (.message.text | type) == "string" and
		.level == "error" and .runs[0].tool.driver.rules[.ruleIndex].id == .ruleId? // true) and
	all(.runs[0].results[].locations[]?.physicalLocation? // empty;
		(.artifactLocation.uri | type) == "string" and (.region.startLine | type) == "number")'

test_expect_success 'SARIF: a finding points at the .cu file and line' '
	ver finding &&
	test_status 1 dreplay --sarif f.sarif finding.ver >out 2>/dev/null &&
	jq -e "$sarif_shape" f.sarif >/dev/null &&
	jq -e ".runs[0].results[0] | .ruleId == \"oob-global\" and
		.locations[0].physicalLocation.artifactLocation.uri == \"opt.cu\" and
		.locations[0].physicalLocation.region.startLine == 6 and
		.locations[0].logicalLocations[0].name == \"add_opt\" and .properties.ptxLine == 14" f.sarif >/dev/null &&
	jq -e ".runs[0].tool.driver.rules[0].id == \"oob-global\"" f.sarif >/dev/null
'

test_expect_success 'SARIF: a confirmed witness is a wrong-result; unconfirmed ones are left out' '
	test_status 1 dreplay --sarif w.sarif differ.ver >out 2>/dev/null &&
	jq -e "$sarif_shape" w.sarif >/dev/null &&
	jq -e "[.runs[0].results[] | select(.ruleId == \"wrong-result\")] | length == 1" w.sarif >/dev/null &&
	test_status 3 dreplay --atol 100 --sarif u.sarif differ.ver >out 2>/dev/null &&
	jq -e "$sarif_shape and (.runs[0].results | length) == 0" u.sarif >/dev/null &&
	jq -e ".runs[0].properties.verdict == \"unknown\"" u.sarif >/dev/null
'

test_expect_success 'SARIF: a checked-correct verdict has no results' '
	ver equal &&
	test_status 0 dreplay --sarif e.sarif equal.ver >out 2>/dev/null &&
	jq -e "$sarif_shape and (.runs[0].results | length) == 0" e.sarif >/dev/null
'

test_expect_success '--gpu without a GPU: trouble, exit 2, with the driver'"'"'s reason' '
	CUDA_VISIBLE_DEVICES= test_status 2 dreplay --gpu differ.ver >out 2>err &&
	grep "^dreplay: --gpu: no GPU to rerun the programs on: " err &&
	grep -E "on: (cannot load the CUDA driver \\(.+\\)|cuInit failed with CUDA error [0-9]+|no CUDA device \\(cuDeviceGetCount: error)" err &&
	test ! -s out
'

if have_nvcc; then
test_expect_success 'the example: the witness points at the store in opt.cu line 24' '
	EX="$ROOT/examples/fused-scale-bias-relu" &&
	build_cuda "$EX/ref.cu" ref && build_cuda "$EX/opt.cu" opt &&
	dtrace-cuda --no-gpu --name ref -o ref.trace -- ./ref 2>/dev/null &&
	dtrace-cuda --no-gpu --name opt -o opt.trace -- ./opt 2>/dev/null &&
	dmerge ref.trace opt.trace >ex.obl && dexec ex.obl >ex.sym &&
	{ dcheck ex.sym >ex.ver; test $? = 1; } &&
	test_status 1 dreplay --sarif ex.sarif --bundle ex.tar.gz ex.ver >out 2>report &&
	grep "stored at: ref PTX line [0-9]* (.*ref.cu:22), opt PTX line [0-9]* (.*opt.cu:24)" report &&
	jq -e "$sarif_shape" ex.sarif >/dev/null &&
	jq -e ".runs[0].results[0].locations[0].physicalLocation |
		(.artifactLocation.uri | endswith(\"fused-scale-bias-relu/opt.cu\")) and .region.startLine == 24" \
		ex.sarif >/dev/null &&
	tar xzf ex.tar.gz ex/witness-1/input-0.npy &&
	npy_check ex/witness-1/input-0.npy "<f4" 1056
'
else
test_skip 'the example: the witness points at the store in opt.cu line 24 (nvcc not found)'
fi

test_done
