#!/bin/sh
# Value numbering (dcheck, engine/vnum.c): an output whose two
# programs compute it by the same ops on the same inputs (after the exact
# normalisations of vnum.h: layouts, in-place forms, linear as addmm over
# the transposed weight) is equal at every location, one equal-output
# record for the whole output; an op graph that differs anywhere (a
# flatten in another order, a dropped bias) goes to the location-by-
# location check, which finds the bug.  A network too big for that check
# ends within the budget.  Skipped without a python3 that imports torch.

. "$(dirname "$0")/test-lib.sh"

PY=$("$ROOT/dtrace-cuda/python/dirigo-python") || SKIP_ALL="no python3 that imports torch"
command -v jq >/dev/null || SKIP_ALL="jq not found"
PAIRS=$ROOT/tests/torch/pairs
[ -n "${SKIP_ALL:-}" ] || say_torch "$PY"

trace() {    # PROG.py OUT
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace "$1" --out "$2" 2>>trace.log
}

sym() {      # DIR NAME: NAME.sym from the pair in DIR
	trace "$1/ref.py" "$2-ref.trace" &&
	trace "$1/opt.py" "$2-opt.trace" &&
	dmerge "$2-ref.trace" "$2-opt.trace" >"$2.obl" &&
	dexec "$2.obl" >"$2.sym"
}

test_expect_success 'layouts, in-place ops and addmm for linear: the whole output by value numbering' '
	sym "$PAIRS/cnn-layouts" ok &&
	dcheck ok.sym >ok.ver &&
	dcat ok.ver >ok.jsonl &&
	jq -s -e "map(select(.t==\"equal-output\")) | length == 1 and .[0].output == 0 and
		.[0].locations == 10 and .[0].how == \"value-number\"" ok.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"location\")) | length == 0" ok.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"verdict\"))[0] | .result == \"checked-correct\" and
		.checked == .locations and .equal == 10 and .value_numbered == 10" ok.jsonl >/dev/null
'

test_expect_success 'dreplay takes the record: the verdict counts it, exit 0' '
	dreplay --report ok.txt ok.ver >ok.rep &&
	grep -q "10 of 10 locations equal (whole outputs by value numbering)" ok.txt
'

test_expect_success '--no-value-numbering: the same output location by location' '
	dcheck --no-value-numbering ok.sym >plain.ver &&
	dcat plain.ver >plain.jsonl &&
	jq -s -e "map(select(.t==\"equal-output\")) | length == 0" plain.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"verdict\"))[0] | .result == \"checked-correct\" and
		(.value_numbered // 0) == 0 and .equal >= 5" plain.jsonl >/dev/null
'

test_expect_success 'a rerun of dcheck on its own output replaces the record' '
	dcheck ok.ver >again.ver &&
	dcat again.ver | jq -s -e "map(select(.t==\"equal-output\")) | length == 1" >/dev/null
'

test_expect_success 'F.linear and addmm over the transposed weight, relu and relu_: value-numbered equal' '
	sym "$PAIRS/linear-addmm" lin &&
	dcheck lin.sym >lin.ver &&
	dcat lin.ver | jq -s -e "map(select(.t==\"verdict\"))[0] | .result == \"checked-correct\" and
		.value_numbered == 24 and .checked == 24" >/dev/null
'

for bug in cnn-layouts-flatten-bug cnn-layouts-bias-bug linear-addmm-transpose-bug; do
	test_expect_success "$bug: not equal by value numbering; the check finds the bug" "
		sym '$PAIRS/$bug' $bug &&
		test_status 1 dcheck -v $bug.sym >$bug.ver 2>$bug.err &&
		grep -q 'output 0: not equal by value numbering: the op graphs differ' $bug.err &&
		dcat $bug.ver >$bug.jsonl &&
		jq -s -e 'map(select(.t==\"equal-output\")) | length == 0' $bug.jsonl >/dev/null &&
		jq -s -e 'map(select(.t==\"location\" and .result==\"differ\")) | length == 1' $bug.jsonl >/dev/null &&
		test_status 1 dreplay $bug.ver >$bug.rep 2>$bug.report &&
		dcat $bug.rep | jq -s -e 'map(select(.t==\"replay\" and .confirmed)) | length > 0' >/dev/null
	"
done

test_expect_success 'shards: each writes the record, the merge keeps it once' '
	dcheck --shard 0/2 ok.sym >s0.ver &&
	dcheck --shard 1/2 ok.sym >s1.ver &&
	dcheck --merge s0.ver s1.ver >merged.ver &&
	dcat merged.ver >merged.jsonl &&
	jq -s -e "map(select(.t==\"equal-output\")) | length == 1" merged.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"verdict\"))[0] | .result == \"checked-correct\" and
		.checked == 10 and .value_numbered == 10" merged.jsonl >/dev/null &&
	dreplay merged.ver >/dev/null
'

test_expect_success 'an output read from never-written memory is no value-numbered equal' '
	cat >empty.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def forward(self, x):
	        return torch.empty(4) + x
	def get_inputs():
	    return [torch.randn(4)]
	def get_init_inputs():
	    return []
	EOF
	trace empty.py e-ref.trace &&
	trace empty.py e-opt.trace &&
	dmerge e-ref.trace e-opt.trace >e.obl &&
	dexec e.obl >e.sym &&
	test_status 1 dcheck e.sym >e.ver &&
	dcat e.ver >e.jsonl &&
	jq -s -e "map(select(.t==\"equal-output\")) | length == 0" e.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"location\" and .result==\"uninit\")) | length >= 1" e.jsonl >/dev/null
'

test_expect_success 'bad equal-output records: dreplay names the record, exit 2' '
	dcat ok.ver >good.jsonl &&
	sed "s/\"how\":\"value-number\"/\"how\":\"guess\"/" good.jsonl | dcat -r >how.ver &&
	test_must_fail --status=2 dreplay how.ver >/dev/null 2>err &&
	grep -q "how.ver: record [0-9]*.*field .how.: .guess. is not value-number" err &&
	sed "s/\"t\":\"equal-output\",\"output\":0/\"t\":\"equal-output\",\"output\":7/" good.jsonl | dcat -r >out.ver &&
	test_must_fail --status=2 dreplay out.ver >/dev/null 2>err &&
	grep -q "equal-output of output 7 (the stream holds 1 outputs)" err &&
	sed "s/\"locations\":10,\"how\"/\"locations\":9,\"how\"/" good.jsonl | dcat -r >count.ver &&
	test_must_fail --status=2 dreplay count.ver >/dev/null 2>err &&
	grep -q "field .equal. says 10, the stream holds 9" err
'

test_expect_success 'a deep network: whole by value numbering, at once' '
	trace "$ROOT/tests/torch/deep/ref.py" deep-ref.trace &&
	trace "$ROOT/tests/torch/deep/opt.py" deep-opt.trace &&
	dmerge deep-ref.trace deep-opt.trace >deep.obl &&
	dexec deep.obl >deep.sym &&
	dcheck --budget 20 deep.sym >deep.ver &&
	dcat deep.ver | jq -s -e "map(select(.t==\"verdict\"))[0] |
		.result == \"checked-correct\" and .checked == .locations and .value_numbered == 20" >/dev/null
'

test_expect_success 'a deep network location by location: ends within the budget, undecided' '
	start=$(date +%s) &&
	test_status 3 dcheck --no-value-numbering --budget 3 deep.sym >deep-plain.ver 2>err &&
	end=$(date +%s) &&
	test $((end - start)) -le 10 &&
	dcat deep-plain.ver | jq -s -e "map(select(.t==\"verdict\"))[0] |
		(.result == \"timeout\" or .result == \"unknown\") and .equal == 0" >/dev/null
'

test_expect_success 'batch norm in training with another momentum: the output by value numbering' '
	cat >bn.py <<-\EOF &&
	import torch
	import torch.nn as nn
	import torch.nn.functional as F
	class Model(nn.Module):
	    def __init__(self):
	        super().__init__()
	        self.bn = nn.BatchNorm2d(3, momentum=MOMENTUM)
	    def forward(self, x):
	        return F.relu(self.bn(x))
	def get_inputs():
	    return [torch.randn(2, 3, 4, 4)]
	def get_init_inputs():
	    return []
	EOF
	sed s/MOMENTUM/0.1/ bn.py >bn-ref.py && sed s/MOMENTUM/0.9/ bn.py >bn-opt.py &&
	trace bn-ref.py bn-ref.trace && trace bn-opt.py bn-opt.trace &&
	dmerge bn-ref.trace bn-opt.trace >bn.obl && dexec bn.obl >bn.sym &&
	dcheck bn.sym >bn.ver &&
	dcat bn.ver | jq -s -e "map(select(.t==\"equal-output\")) | length == 1" >/dev/null
'

test_expect_success 'the deep network with another head: resolution stops at the features both compute alike' '
	trace "$ROOT/tests/torch/deep-head/opt.py" head-opt.trace &&
	dmerge deep-ref.trace head-opt.trace >head.obl &&
	dexec head.obl >head.sym &&
	dcheck -v --budget 20 head.sym >head.ver 2>err &&
	grep -q "values are computed alike by both programs: resolution stops there first" err &&
	dcat head.ver >head.jsonl &&
	jq -s -e "map(select(.t==\"equal-output\")) | length == 0" head.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"location\")) | length >= 5 and
		all(.result == \"equal\" and (.detail | test(\"over values both programs compute\")))" \
		head.jsonl >/dev/null &&
	jq -s -e "map(select(.t==\"verdict\"))[0] | .result == \"checked-correct\"" head.jsonl >/dev/null
'

test_expect_success 'the same with the bias subtracted: never equal (stopped there, the two differ; in full, too deep)' '
	trace "$ROOT/tests/torch/deep-head/opt-bug.py" hbug-opt.trace &&
	dmerge deep-ref.trace hbug-opt.trace >hbug.obl &&
	dexec hbug.obl >hbug.sym &&
	test_status 3 dcheck --budget 3 hbug.sym >hbug.ver &&
	dcat hbug.ver | jq -s -e "map(select(.t==\"location\" and (.result == \"equal\" or
		.result == \"within-tol\"))) | length == 0" >/dev/null
'

test_done
