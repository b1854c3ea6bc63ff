#!/bin/sh
# dcheck on hand-written symbolic streams (tests/t/data/check-*.jsonl): the
# obligation c = a + b over 16 floats, and optimized programs that are equal,
# wrong, equal within tolerance, equal only by the solver, partly unwritten,
# unsupported, or flagged by dexec; options; bad input.
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
sym() { cat "$D/check-base.jsonl" "$D/check-opt-$1.jsonl" | dcat -r >"$1.sym"; }
verdict() { dcat "$1" | jq -r 'select(.t=="verdict") | .'"$2"; }
locs() { dcat "$1" | jq -r 'select(.t=="location") | .'"$2"; }

test_expect_success 'equal programs: checked-correct, every record passed through' '
	sym equal &&
	test_status 0 dcheck equal.sym >out &&
	test "$(verdict out result)" = checked-correct &&
	test "$(verdict out equal)" = 16 &&
	test "$(locs out how | sort -u)" = structural &&
	dcat equal.sym | tail -n +2 | sed "\$d" >in.jsonl &&
	dcat out | tail -n +2 | head -n $(wc -l <in.jsonl) >head.jsonl &&
	test_cmp in.jsonl head.jsonl &&
	dcat out | head -n 1 | jq -e ".stream == \"verdict\"" >/dev/null
'

test_expect_success 'locations: corners first, later launches first, then the rest, each once' '
	locs out index >order &&
	printf "0\n15\n7\n8\n" >expect &&
	head -n 4 order >actual &&
	test_cmp expect actual &&
	sort -n order >sorted && seq 0 15 >all && test_cmp all sorted
'

test_expect_success 'a wrong program: buggy with a screened witness, stops at the first' '
	sym differ &&
	test_status 1 dcheck differ.sym >out &&
	test "$(verdict out result)" = buggy &&
	test "$(verdict out checked)" = 1 &&
	dcat out | jq -s -e "map(select(.t==\"witness\"))[0] | .how == \"screen\" and
		(.inputs | length) == 2 and (.kernels | length) == 2" >/dev/null
'

test_expect_success '--keep-going checks every location' '
	test_status 1 dcheck --keep-going differ.sym >out &&
	test "$(verdict out differ)" = 16 &&
	test $(dcat out | grep -c "\"t\":\"witness\"") = 16
'

test_expect_success 'a constant 0.001 apart is within tolerance (solver)' '
	sym tol &&
	test_status 0 dcheck tol.sym >out &&
	test "$(locs out result | sort -u)" = within-tolerance &&
	test "$(locs out how | sort -u)" = smt
'

test_expect_success 'a tight --atol makes the same pair buggy' '
	test_status 1 dcheck --atol 0 --rtol 0 tol.sym >out &&
	test "$(verdict out result)" = buggy
'

test_expect_success 'max(a,b) + min(a,b) == a + b is proved by the solver' '
	sym minmax &&
	test_status 0 dcheck minmax.sym >out &&
	test "$(locs out how | sort -u)" = smt &&
	test "$(locs out result | sort -u)" = equal
'

test_expect_success 'an output element never written is a bug (uninit)' '
	sym uninit &&
	test_status 1 dcheck uninit.sym >out &&
	test "$(verdict out uninit)" = 1 &&
	dcat out | jq -s -e "map(select(.t==\"location\" and .result==\"uninit\"))[0] | .index == 8 and
		(.detail | test(\"never written\"))" >/dev/null
'

test_expect_success 'an unsupported launch makes the verdict unsupported' '
	sym unsupported &&
	test_status 3 dcheck unsupported.sym >out &&
	test "$(verdict out result)" = unsupported
'

test_expect_success 'a finding upstream makes the verdict buggy' '
	sym finding &&
	test_status 1 dcheck finding.sym >out &&
	test "$(verdict out result)" = buggy &&
	test "$(verdict out findings)" = 1
'

test_expect_success 'too few locations for --min-locations: unknown' '
	test_status 3 dcheck --max-locations 3 equal.sym >out &&
	test "$(verdict out result)" = unknown &&
	test_status 0 dcheck --max-locations 3 --min-locations 3 equal.sym >out &&
	test "$(verdict out checked)" = 3
'

test_expect_success 'a zero budget decides nothing: timeout, said on stderr' '
	test_status 3 dcheck --budget 0 equal.sym >out 2>err &&
	test "$(verdict out result)" = timeout &&
	verdict out message | grep "before the budget was spent" &&
	grep "dcheck: timeout: the budget of 0 s was spent" err
'

test_expect_success 'stdin works and the output is the same as from a file' '
	dcheck --max-locations 5 <equal.sym >a &&
	dcheck --max-locations 5 equal.sym >b &&
	dcat a | jq -c "del(.ms)" >a.jsonl && dcat b | jq -c "del(.ms)" >b.jsonl &&
	test_cmp a.jsonl b.jsonl
'

test_expect_success 'bad option values are trouble' '
	test_must_fail --status=2 dcheck --budget x equal.sym 2>err &&
	grep "dcheck: option .--budget.: bad number" err &&
	test_must_fail --status=2 dcheck --bogus equal.sym 2>err &&
	grep usage err
'

test_expect_success 'a truncated stream is trouble and names the file and record' '
	head -c 700 equal.sym >trunc.sym &&
	test_must_fail --status=2 dcheck trunc.sym >out 2>err &&
	grep "trunc.sym: record [0-9]*" err &&
	! dcat out 2>/dev/null | grep -q "\"t\":\"verdict\""
'

test_expect_success 'a malformed writes record is trouble and names it' '
	{ cat "$D/check-base.jsonl" &&
	  sed "s/\"launch\":1,\"prog\":1,\"kernel\":\"add_opt\",\"bundles\"/\"launch\":\"one\",\"prog\":1,\"kernel\":\"add_opt\",\"bundles\"/" \
		"$D/check-opt-equal.jsonl"; } | dcat -r >bad.sym &&
	test_must_fail --status=2 dcheck bad.sym >out 2>err &&
	grep "dcheck: bad.sym: record 18 (writes):.*launch" err
'

test_expect_success 'a write to a value of another launch is trouble' '
	{ cat "$D/check-base.jsonl" &&
	  sed "s/\"value\":7,\"dom\"/\"value\":3,\"dom\"/" "$D/check-opt-equal.jsonl"; } | dcat -r >bad2.sym &&
	test_must_fail --status=2 dcheck bad2.sym 2>err &&
	grep "bad2.sym: record 18 (writes): write 0: value 3 is not defined by launch 1" err
'

test_expect_success 'a global read of a value another launch defines is trouble' '
	{ cat "$D/check-base.jsonl" &&
	  sed "s/\"bundles\":1,/\"bundles\":1,\"reads\":[{\"value\":3,\"epoch\":0,\"seq\":0,\"line\":9}],/" \
		"$D/check-opt-equal.jsonl"; } | dcat -r >bad3.sym &&
	test_must_fail --status=2 dcheck bad3.sym 2>err &&
	grep "bad3.sym: record 18 (writes): read 0: value 3 is not defined by launch 1" err
'

test_expect_success 'a malformed global read is trouble and names it' '
	{ cat "$D/check-base.jsonl" &&
	  sed "s/\"bundles\":1,/\"bundles\":1,\"reads\":[{\"value\":7,\"epoch\":\"one\",\"seq\":0,\"line\":9}],/" \
		"$D/check-opt-equal.jsonl"; } | dcat -r >bad4.sym &&
	test_must_fail --status=2 dcheck bad4.sym 2>err &&
	grep "bad4.sym: record 18 (writes): read 0 is malformed" err
'

test_expect_success 'a stream without an obligation is trouble' '
	printf "%s\n" "{\"t\":\"header\",\"format\":\"dirigo\",\"version\":1,\"stream\":\"symbolic\"}" \
		"{\"t\":\"end\"}" | dcat -r >noobl.sym &&
	test_must_fail --status=2 dcheck noobl.sym 2>err &&
	grep "noobl.sym: record 1 (end): not an obligation stream" err
'

test_expect_success 'an obligation without write sets is trouble (dexec not run)' '
	{ cat "$D/check-base.jsonl" | grep -v "\"t\":\"writes\"" &&
	  grep -v "\"t\":\"writes\"" "$D/check-opt-equal.jsonl"; } | dcat -r >nosym.sym &&
	test_must_fail --status=2 dcheck nosym.sym 2>err &&
	grep "nosym.sym: no write sets in the stream (run dexec first)" err
'

test_done
