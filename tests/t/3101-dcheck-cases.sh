#!/bin/sh
# dcheck on the program pairs of tests/cases-dcheck/: the heuristic order
# finds a bug present at one location in 65536 (the last thread of the
# last block: a corner; element 40000: path-condition coverage) that the
# sequential and random orders miss within the same number of locations;
# GELU by erf against its tanh approximation, equal under the gelu-tanh
# axiom and buggy without it; determinism and sharding on real pairs.
. "$(dirname "$0")/test-lib.sh"
have_nvcc || SKIP_ALL="nvcc not found"

C="$ROOT/tests/cases-dcheck"
sym_of() {   # NAME: trace, merge and execute the pair into NAME.sym
	build_cuda "$C/$1/ref.cu" "$1-ref" &&
	build_cuda "$C/$1/opt.cu" "$1-opt" &&
	dtrace-cuda --no-gpu --name ref -o "$1-ref.trace" -- "./$1-ref" 2>/dev/null &&
	dtrace-cuda --no-gpu --name opt -o "$1-opt.trace" -- "./$1-opt" 2>/dev/null &&
	dmerge "$1-ref.trace" "$1-opt.trace" >"$1.obl" &&
	dexec "$1.obl" >"$1.sym"
}
verdict() { dcat "$1" | jq -r 'select(.t=="verdict") | .'"$2"; }

test_expect_success 'setup: the pairs through dexec' '
	sym_of last-thread-bug && sym_of mid-element-bug && sym_of gelu-tanh-approx
'

test_expect_success 'last thread of the last block: the heuristic finds it among the corners' '
	test_status 1 dcheck --max-locations 50 last-thread-bug.sym >h.ver &&
	test "$(verdict h.ver checked)" -le 6 &&
	verdict h.ver message | grep "index 65535: differ" &&
	dcat h.ver | jq -s -e "map(select(.t==\"witness\")) | length == 1" >/dev/null
'

test_expect_success 'the sequential and random orders miss it within the same 50 locations' '
	test_status 0 dcheck --order sequential --max-locations 50 last-thread-bug.sym >s.ver &&
	test "$(verdict s.ver differ)" = 0 &&
	test_status 0 dcheck --order random --max-locations 50 last-thread-bug.sym >r.ver &&
	test "$(verdict r.ver differ)" = 0
'

test_expect_success 'element 40000: found by path-condition coverage, missed sequentially' '
	test_status 1 dcheck --max-locations 50 mid-element-bug.sym >h.ver &&
	verdict h.ver message | grep "index 40000: differ" &&
	test "$(verdict h.ver checked)" -le 10 &&
	test_status 0 dcheck --order sequential --max-locations 50 mid-element-bug.sym >s.ver
'

test_expect_success 'the heuristic finds them whatever --jobs, with identical output' '
	for n in last-thread-bug mid-element-bug; do
		dcheck --jobs 1 --max-locations 50 $n.sym >j1;
		dcheck --jobs 2 --max-locations 50 $n.sym >j2;
		dcheck --jobs 4 --max-locations 50 $n.sym >j4;
		cmp j1 j2 && cmp j1 j4 || exit 1
	done
'

test_expect_success 'shards by GNU parallel merge to one run on a real pair' '
	for kg in "" --keep-going; do
		dcheck $kg --jobs 2 --max-locations 40 last-thread-bug.sym >one;
		parallel --will-cite "dcheck $kg --jobs 1 --max-locations 40 --shard {}/3 last-thread-bug.sym >s{}.ver" ::: 0 1 2;
		dcheck --merge s0.ver s1.ver s2.ver >merged;
		cmp one merged || exit 1
	done
'

test_expect_success 'gelu by erf and by tanh: equal under the gelu-tanh axiom (default)' '
	test_status 0 dcheck --atol 1e-5 --rtol 1e-5 gelu-tanh-approx.sym >on.ver &&
	test "$(verdict on.ver result)" = checked-correct &&
	test "$(verdict on.ver structural)" = "$(verdict on.ver checked)" &&
	test_status 0 dcheck --axioms gelu-tanh --atol 1e-5 --rtol 1e-5 gelu-tanh-approx.sym >on2.ver
'

test_expect_success 'gelu by erf and by tanh: buggy with --axioms none (tolerance below the error)' '
	test_status 1 dcheck --axioms none --atol 1e-5 --rtol 1e-5 gelu-tanh-approx.sym >off.ver &&
	test "$(verdict off.ver axioms)" = none &&
	dcat off.ver | jq -s -e "map(select(.t==\"witness\"))[0] | .how == \"screen\" and (.ref - .opt | fabs) > 1e-5" >/dev/null &&
	test_status 1 dcheck --axioms fast-math --atol 1e-5 --rtol 1e-5 gelu-tanh-approx.sym >off2.ver
'

test_expect_success 'and dreplay confirms the witness without the axiom' '
	dreplay --atol 1e-5 --rtol 1e-5 off.ver >off.rep 2>report;
	dcat off.rep | jq -s -e "map(select(.t==\"replay\" and .confirmed)) | length > 0" >/dev/null
'

test_done
