#!/bin/sh
# Torch program pairs (tests/torch/pairs/NAME/{ref.py,opt.py,expect})
# through the whole pipeline: dirigo_trace | dmerge | dexec | dcheck |
# dreplay.  "correct": exit 0, checked correct at 5 or more locations;
# "buggy": exit 1 with a witness dreplay confirmed by running both
# programs, by slice, with the values of the whole run (check_slice_exact).  "shape-mismatch": outputs of different shapes but the same
# element count: dmerge exits 1 with a shape-mismatch finding naming both
# shapes, the values are still checked (5 or more locations equal, no
# witness); "shape-mismatch buggy": the same, and the values differ (a
# confirmed witness); "shape-mismatch count": different element counts,
# the finding alone (no output compared).  "unsupported": exit 3, the
# verdict unsupported, its message naming the torch op dirigo cannot
# follow.  Skipped without a python3 that imports torch.

. "$(dirname "$0")/test-lib.sh"

PY=$("$ROOT/dtrace-cuda/python/dirigo-python") || SKIP_ALL="no python3 that imports torch"
command -v jq >/dev/null || SKIP_ALL="jq not found"
PAIRS=$ROOT/tests/torch/pairs
SQ="'"
[ -n "${SKIP_ALL:-}" ] || say_torch "$PY"

trace() {    # PROG.py OUT
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace "$1" --out "$2" 2>>trace.log
}

check_pair() {   # DIR [dmerge options]
	dir=$1; shift
	name=$(basename "$dir")
	expect=$(cat "$dir/expect")
	trace "$dir/ref.py" "$name-ref.trace" &&
	trace "$dir/opt.py" "$name-opt.trace" &&
	mst=0
	dmerge "$@" "$name-ref.trace" "$name-opt.trace" >"$name.obl" 2>"$name.merge-err" || mst=$?
	case "$expect" in
	shape-mismatch*)
		test $mst = 1 &&
		dcat "$name.obl" | jq -s -e 'map(select(.t=="finding" and .class=="shape-mismatch")) | length == 1' >/dev/null &&
		grep -q "shape-mismatch\|is f32\[" "$name.merge-err" || {
			echo "pair $name: dmerge exit $mst, expected 1 and a shape-mismatch finding" >&2
			cat "$name.merge-err" >&2; return 1; } ;;
	*)
		test $mst = 0 || { cat "$name.merge-err" >&2; return 1; } ;;
	esac
	dexec "$name.obl" >"$name.sym"
	test $? -le 1 || return 1
	dcheck "$name.sym" >"$name.ver"
	dreplay "$name.ver" >"$name.rep" 2>"$name.report"
	st=$?
	dcat "$name.rep" >"$name.jsonl" || return 1
	case "$expect" in
	correct)
		test $st = 0 &&
		jq -s -e 'map(select(.t=="verdict"))[0] | .result == "checked-correct" and .equal >= 5' \
			"$name.jsonl" >/dev/null ;;
	buggy)
		test $st = 1 &&
		jq -s -e 'map(select(.t=="replay" and .confirmed and .ref_ptx != null)) | length > 0' \
			"$name.jsonl" >/dev/null &&
		check_slice_exact "$name" ;;
	shape-mismatch)
		test $st = 1 &&
		jq -s -e 'map(select(.t=="verdict"))[0] | .equal >= 1 and .equal == .checked and .differ == 0' \
			"$name.jsonl" >/dev/null &&
		jq -s -e 'map(select(.t=="replay" and .confirmed)) | length == 0' "$name.jsonl" >/dev/null ;;
	"shape-mismatch buggy")
		test $st = 1 &&
		jq -s -e 'map(select(.t=="replay" and .confirmed and .ref_ptx != null)) | length > 0' \
			"$name.jsonl" >/dev/null &&
		check_slice_exact "$name" ;;
	unsupported)
		test $st = 3 &&
		jq -s -e 'map(select(.t=="verdict"))[0] | .result == "unsupported" and (.message | test("aten::"))' \
			"$name.jsonl" >/dev/null ;;
	"shape-mismatch count")
		test $st = 1 &&
		jq -s -e 'map(select(.t=="output")) | length == 0' "$name.jsonl" >/dev/null &&
		grep -q "shape-mismatch" "$name.report" ;;
	*)
		echo "unknown expectation '$expect' in $dir/expect" >&2; return 1 ;;
	esac || { echo "pair $name: exit $st, expected $expect" >&2; cat "$name.report" >&2; return 1; }
}

for dir in "$PAIRS"/*; do
	[ -f "$dir/expect" ] || continue
	test_expect_success "$(basename "$dir"): $(cat "$dir/expect")" "check_pair '$dir'"
done

test_expect_success 'scale-rounding: 1/sqrt(96) multiplied and sqrt(96) divided are one constant as floats' '
	dcat scale-rounding.ver | jq -r "select(.t==\"location\") | .detail" | sed "s/, over values .*//" |
		sort -u >actual &&
	echo "equal but for a constant the two programs round to neighbouring floats: ref 0.102062076, opt 0.102062069" >expect &&
	test_cmp expect actual
'

test_expect_success 'l1norm-guard: a divisor guarded against 0 is equal where the reference divides by a nonzero' '
	dcat l1norm-guard.ver | jq -r "select(.t==\"location\") | [.how, .detail] | @tsv" | sort -u >actual &&
	printf "structural\tequal wherever the reference${SQ}s divisor is not 0; where it is 0 the reference divides by zero and the optimized program${SQ}s guard (a test of it against 0) gives another value\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'shape-mismatch: both shapes named, the finding reaches the report' '
	jq -r "select(.t==\"finding\") | .message" keepdim-shape.jsonl >actual &&
	echo "output 0 (${SQ}out0${SQ}) is f32[8] in ${SQ}ref${SQ} but f32[8,1] in ${SQ}opt${SQ}; the values are compared in row-major order" >expect &&
	test_cmp expect actual &&
	grep -q "finding 1: shape-mismatch in output 0 (out0)" keepdim-shape.report &&
	jq -r "select(.t==\"finding\") | .message" scalar-shape.jsonl >actual &&
	grep -q "is f32\[\] in ${SQ}ref${SQ} but f32\[1\] in ${SQ}opt${SQ}" actual &&
	test_status 1 dexec keepdim-shape.sym >rerun.sym &&
	dcat rerun.sym | jq -c "select(.t==\"finding\") | .class" >actual &&
	echo "\"shape-mismatch\"" >expect &&
	test_cmp expect actual
'

test_expect_success 'dropout: the locations under dropout are unknown, naming the op; the rest equal' '
	dcat dropout-side.ver | jq -c "select(.t==\"location\") | [.output, .result]" | sort | uniq -c |
		sed "s/^ *//" >actual &&
	printf "32 [0,\"equal\"]\n32 [1,\"unknown\"]\n" >expect &&
	test_cmp expect actual &&
	dcat dropout-side.ver | jq -r "select(.t==\"location\" and .output==1) | .detail" | sort -u >actual &&
	echo "ref: depends on random op aten::bernoulli_.float#3.0 (a fresh, unconstrained value)" >expect &&
	test_cmp expect actual
'

test_expect_success 'shape-mismatch: a dtype difference is still trouble' '
	sed "s/return torch.tanh(x).mean()/return torch.tanh(x).mean().double()/" \
		"$PAIRS/scalar-shape/ref.py" >f64.py &&
	trace f64.py f64.trace &&
	test_must_fail --status=2 dmerge scalar-shape-ref.trace f64.trace >f64.obl 2>err &&
	grep -q "programs do not match: output 0" err
'

test_expect_success 'running example with --trim: the common prefix is trimmed' '
	dmerge --trim convt-min-sum-gelu-bug-ref.trace convt-min-sum-gelu-bug-opt.trace >trim.obl &&
	dcat trim.obl >obl.jsonl &&
	jq -c "select(.t==\"trimmed\") | .ops" obl.jsonl >actual &&
	echo "[2,2]" >expect &&
	test_cmp expect actual &&
	jq -c "select(.t==\"input\" and .role==\"prefix\") | .name" obl.jsonl >actual &&
	printf "\"aten::convolution#0.0\"\n\"aten::min.dim#1.0\"\n\"aten::min.dim#1.1\"\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'running example: untrimmed by default, the bug confirmed from the real inputs' '
	dcat convt-min-sum-gelu-bug.obl | jq -e -s "map(select(.t==\"trimmed\")) | length == 0" &&
	jq -s -e "map(select(.t==\"replay\" and .confirmed)) | length > 0" convt-min-sum-gelu-bug.jsonl
'

# dmerge --tails (dmerge(1), "Identical tails"): the pairs end with the
# same conv, relu, pool and linear, so the output is checked at the tensor
# that tail starts from; a difference there is unknown, never a bug.
test_expect_success 'vgg-tail with --tails: one cut after the first relu, checked-correct there' '
	dmerge -v --tails vgg-tail-ref.trace vgg-tail-opt.trace >tail.obl 2>tail.err &&
	grep -q "output 0 (out0): both programs end with the same 4 ops; checked at the 1 tensor pair" tail.err &&
	dcat tail.obl | jq -s -e "map(select(.t == \"output\")) | length == 2 and .[1].tail_of == 0 and .[1].tail_ops == 4 and .[1].shape == [2, 4, 8, 8]" &&
	dexec tail.obl >tail.sym &&
	dcheck --max-locations 12 tail.sym >tail.ver &&
	dcat tail.ver | jq -s -e "(map(select(.t == \"location\")) | all(.output == 1)) and
		(map(select(.t == \"verdict\"))[0].result == \"checked-correct\")"
'
test_expect_success 'vgg-tail-bug (a ReLU6) with --tails: unknown at the cut, naming both values, no bug' '
	dmerge --tails vgg-tail-bug-ref.trace vgg-tail-bug-opt.trace >tailb.obl &&
	dexec tailb.obl >tailb.sym &&
	test_must_fail --status=3 dcheck --max-locations 12 tailb.sym >tailb.ver &&
	dcat tailb.ver >tailb.jsonl &&
	jq -s -e "map(select(.t == \"verdict\"))[0] | .result == \"unknown\" and .differ == 0" tailb.jsonl &&
	jq -r "select(.t == \"location\" and .result == \"unknown\") | .detail" tailb.jsonl |
		grep -q "differ at this cut of output 0 (out0).*(ref .*, opt .*).*not reported as a bug"
'
test_expect_success 'without --tails no cut: vgg-tail-bug is buggy, confirmed (the pair above)' '
	dcat vgg-tail-bug.obl | jq -s -e "map(select(.t == \"output\")) | length == 1" &&
	jq -s -e "map(select(.t == \"replay\" and .confirmed)) | length > 0" vgg-tail-bug.jsonl
'

# Bridges (dmerge(1), "Bridges"): opt writes two relus in the middle of
# the network as maximum with zeros; each becomes a cut, checked with
# the one before it taken as equal.
test_expect_success 'bridge-mid with --tails: two bridges, each checked, checked-correct' '
	dmerge -v --tails bridge-mid-ref.trace bridge-mid-opt.trace >bridge.obl 2>bridge.err &&
	grep -q "output 0 (out0): equal wherever the optimized program${SQ}s 2 values computed its own way" bridge.err &&
	dcat bridge.obl | jq -s -e "map(select(.t == \"output\")) | length == 3 and
		(.[1:] | all(.bridge and .tail_of == 0 and .shape == [2, 4, 4, 4]))" &&
	dexec bridge.obl >bridge.sym &&
	dcheck --max-locations 12 bridge.sym >bridge.ver &&
	dcat bridge.ver >bridge.jsonl &&
	jq -s -e "map(select(.t == \"location\")) | (map(.output) | unique) == [1, 2] and all(.result == \"equal\")" bridge.jsonl &&
	jq -s -e "map(select(.t == \"verdict\"))[0].result == \"checked-correct\"" bridge.jsonl
'
test_expect_success 'bridge-mid-bug with --tails: unknown at the first bridge, naming both values, no bug' '
	dmerge --tails bridge-mid-bug-ref.trace bridge-mid-bug-opt.trace >bridgeb.obl &&
	dexec bridgeb.obl >bridgeb.sym &&
	test_must_fail --status=3 dcheck --max-locations 12 bridgeb.sym >bridgeb.ver &&
	dcat bridgeb.ver >bridgeb.jsonl &&
	jq -s -e "map(select(.t == \"verdict\"))[0] | .result == \"unknown\" and .differ == 0 and
		(.message | test(\"no location of output 1 .out0/bridge0. was shown equal\"))" bridgeb.jsonl &&
	jq -r "select(.t == \"location\" and .output == 1) | .detail" bridgeb.jsonl |
		grep -q "differ at this bridge of output 0 (out0): the optimized program${SQ}s value .* (ref .*, opt .*)"
'
test_expect_success 'bridge-last with --tails: the output itself is the last bridge, checked-correct' '
	dmerge -v --tails bridge-last-ref.trace bridge-last-opt.trace >last.obl 2>last.err &&
	grep -q "and at itself (out0/bridge1), each taking those before as equal" last.err &&
	dcat last.obl | jq -s -e "map(select(.t == \"output\")) | length == 3 and .[2].bridge and .[2].values == .[0].values" &&
	dexec last.obl >last.sym &&
	dcheck --max-locations 12 last.sym >last.ver &&
	dcat last.ver | jq -s -e "map(select(.t == \"verdict\"))[0].result == \"checked-correct\""
'
test_expect_success 'bridge-last-bug with --tails: a difference at the output pair is a bug, confirmed' '
	dmerge --tails bridge-last-bug-ref.trace bridge-last-bug-opt.trace >lastb.obl &&
	dexec lastb.obl >lastb.sym &&
	test_must_fail --status=1 dcheck --max-locations 12 lastb.sym >lastb.ver &&
	test_must_fail --status=1 dreplay lastb.ver >lastb.rep 2>/dev/null &&
	dcat lastb.rep | jq -s -e "map(select(.t == \"replay\" and .confirmed)) | length > 0"
'
test_expect_success 'a bridge must be two whole values' '
	dcat bridge.obl | jq -c "if .t == \"output\" and .bridge then .bytes = 16 else . end" |
		dcat -r >swapped.obl &&
	test_must_fail --status=2 dexec swapped.obl >/dev/null 2>err &&
	grep -q "a bridge is a cut of two whole values" err
'

test_expect_success 'linear+relu: ops are bound, views make no values' '
	dcat linear-relu.obl >lr.jsonl &&
	jq -c "select(.t==\"op\" and .prog==1) | .op" lr.jsonl >actual &&
	printf "\"aten::mm\"\n\"aten::add.Tensor\"\n\"aten::clamp\"\n" >expect &&
	test_cmp expect actual &&
	test $(jq -s "map(select(.t==\"op\" and .unsupported != null)) | length" lr.jsonl) = 0
'

test_expect_success 'batch norm: empty tensors become uninitialised values, not ops' '
	dcat batchnorm-affine.obl | jq -c "select(.t==\"op\" and .prog==0) | .op" >actual &&
	echo "\"aten::native_batch_norm\"" >expect &&
	test_cmp expect actual
'

test_done
