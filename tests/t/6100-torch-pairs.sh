#!/bin/sh
# Torch program pairs (tests/torch/pairs/NAME/{ref.py,opt.py,expect})
# through the whole pipeline: dirigo_trace | dmerge | dexec | dcheck |
# dreplay.  "correct": exit 0, checked correct at 5 or more locations;
# "buggy": exit 1 with a witness dreplay confirmed by running both
# programs.  Skipped without a python3 that imports torch.

. "$(dirname "$0")/test-lib.sh"

PY=$("$ROOT/dtrace-cuda/python/dirigo-python") || SKIP_ALL="no python3 that imports torch"
command -v jq >/dev/null || SKIP_ALL="jq not found"
PAIRS=$ROOT/tests/torch/pairs

trace() {    # PROG.py OUT
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace "$1" --out "$2" 2>>trace.log
}

check_pair() {   # DIR [dmerge options]
	dir=$1; shift
	name=$(basename "$dir")
	expect=$(cat "$dir/expect")
	trace "$dir/ref.py" "$name-ref.trace" &&
	trace "$dir/opt.py" "$name-opt.trace" &&
	dmerge "$@" "$name-ref.trace" "$name-opt.trace" >"$name.obl" &&
	dexec "$name.obl" >"$name.sym" || return 1
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
			"$name.jsonl" >/dev/null ;;
	*)
		echo "unknown expectation '$expect' in $dir/expect" >&2; return 1 ;;
	esac || { echo "pair $name: exit $st, expected $expect" >&2; cat "$name.report" >&2; return 1; }
}

for dir in "$PAIRS"/*; do
	[ -f "$dir/expect" ] || continue
	test_expect_success "$(basename "$dir"): $(cat "$dir/expect")" "check_pair '$dir'"
done

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
