#!/bin/sh
# examples/pipeline.mk (dirigo(7)): the five stages as GNU make rules on the
# bundled example (examples/fused-scale-bias-relu): the first run finds the
# bug; a second is a no-op; after touching the reference, exactly the
# reference's build and trace and the stages from dmerge on run again, and
# after a change to it the optimized program's launch comes from the dexec
# cache, with the bytes a run without the cache gives; touching the
# verdict stream reruns dreplay alone; trouble in a stage stops make and
# leaves no file; naming the fixed twin (OPT=opt-fixed.cu) rebuilds the
# optimized program alone and finds it correct.
. "$(dirname "$0")/test-lib.sh"

have_nvcc || SKIP_ALL="nvcc not found"
command -v make >/dev/null || SKIP_ALL="make not found"
command -v jq >/dev/null || SKIP_ALL="jq not found"
EX=$ROOT/examples
# mk ARGS: make with the example; programs are built by the suite's
# cached nvcc wrapper.
mk() { make -f pipeline.mk "build_cuda=$ROOT/scripts/nvcc-build.sh \$(1) \$(2)" "$@"; }

# ran OUTPUT: the stages a "make -n" listing would run, one word each.
ran() {
	sed -n -e 's/.*nvcc-build.sh ref.cu.*/build-ref/p' -e 's/.*nvcc-build.sh opt[-a-z]*.cu.*/build-opt/p' \
		-e 's/^dtrace-cuda .*--name \([a-z]*\) .*/trace-\1/p' \
		-e 's/.*{ \(dmerge\|dexec\|dcheck\|dreplay\) .*/\1/p' "$1"
}

test_expect_success 'the first run builds, traces and checks: the bug is confirmed' '
	cp "$EX/pipeline.mk" "$EX/fused-scale-bias-relu/ref.cu" "$EX/fused-scale-bias-relu/opt.cu" . &&
	mk >make.out 2>make.err &&
	for f in ref opt ref.trace opt.trace pair.obl pair.sym pair.ver pair.rep pair.txt; do
		test -s $f || { echo "no $f" >&2; return 1; }
	done &&
	test "$(cat pair.rep.status)" = 1 &&
	grep "^  CONFIRMED" pair.txt &&
	grep "cache dexec-cache: 0 hits, 3 misses, 3 entries stored" pair.sym.log &&
	test -z "$(ls *.tmp 2>/dev/null)"
'

test_expect_success 'make verdict prints the report and the pipeline status' '
	mk verdict >v.out 2>&1 &&
	grep "^verdict: buggy" v.out &&
	grep "^status: 1$" v.out
'

test_expect_success 'a second run does nothing' '
	mk -q &&
	mk -n >n.out &&
	ran n.out >ran.out &&
	test ! -s ran.out
'

test_expect_success 'touching the reference reruns its build and trace and every stage from dmerge on' '
	sleep 1 && touch ref.cu &&
	mk -n >n.out &&
	ran n.out >actual &&
	printf "build-ref\ntrace-ref\ndmerge\ndexec\ndcheck\ndreplay\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'after a change to the reference, the optimized launch comes from the cache' '
	sed "1i // the same reference, one line lower" "$EX/fused-scale-bias-relu/ref.cu" >ref.cu &&
	cp pair.sym before.sym &&
	ls --full-time opt opt.trace >opt.before &&
	mk >make2.out 2>make2.err &&
	ls --full-time opt opt.trace >opt.after &&
	test_cmp opt.before opt.after &&
	grep "cache dexec-cache: 1 hits, 2 misses, 2 entries stored" pair.sym.log &&
	grep "launch 2: kernel .*: from the cache" pair.sym.log &&
	! cmp -s before.sym pair.sym &&
	{ dexec pair.obl >nocache.sym 2>/dev/null; echo $? >nocache.status; } &&
	test "$(cat nocache.status)" = "$(cat pair.sym.status)" &&
	cmp nocache.sym pair.sym &&
	test "$(cat pair.rep.status)" = 1
'

test_expect_success 'touching the verdict stream reruns dreplay alone' '
	sleep 1 && touch pair.ver &&
	mk -n >n.out &&
	ran n.out >actual &&
	echo dreplay >expect &&
	test_cmp expect actual &&
	mk >make3.out 2>&1 &&
	mk -q
'

test_expect_success 'trouble in a stage stops make and leaves neither a new nor a stale file' '
	sleep 1 && echo garbage >pair.obl &&
	test_must_fail --status=2 mk >make4.out 2>make4.err &&
	grep "pair.sym: exit 2" make4.err &&
	grep "pair.obl" pair.sym.log &&
	test ! -e pair.sym && test ! -e pair.sym.tmp && test ! -e pair.sym.status
'

test_expect_success 'after the trouble, a fixed input reruns the stages from the failed one on' '
	rm pair.obl &&
	mk -n >n.out &&
	ran n.out >actual &&
	printf "dmerge\ndexec\ndcheck\ndreplay\n" >expect &&
	test_cmp expect actual &&
	mk >make5.out 2>&1 &&
	test "$(cat pair.rep.status)" = 1 &&
	grep "cache dexec-cache: 3 hits, 0 misses, 0 entries stored" pair.sym.log
'

test_expect_success 'a failing trace stops make and leaves no trace' '
	sleep 1 && printf "#!/bin/sh\nexit 7\n" >opt && chmod +x opt &&
	test_must_fail --status=2 mk opt.trace >make6.out 2>make6.err &&
	grep "opt.trace: dtrace-cuda failed" make6.err &&
	test ! -e opt.trace && test ! -e opt.trace.tmp
'

test_expect_success 'naming the fixed twin rebuilds the optimized program alone: checked correct' '
	cp "$EX/fused-scale-bias-relu/opt-fixed.cu" . &&
	ls --full-time ref ref.trace >ref.before &&
	mk -n OPT=opt-fixed.cu >n.out &&
	ran n.out >actual &&
	printf "build-opt\ntrace-opt\ndmerge\ndexec\ndcheck\ndreplay\n" >expect &&
	test_cmp expect actual &&
	mk OPT=opt-fixed.cu verdict >v2.out 2>&1 &&
	ls --full-time ref ref.trace >ref.after &&
	test_cmp ref.before ref.after &&
	grep "^status: 0$" v2.out &&
	grep "launch 1: kernel .*: from the cache" pair.sym.log &&
	mk -q OPT=opt-fixed.cu
'

test_done
