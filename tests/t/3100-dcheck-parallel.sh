#!/bin/sh
# dcheck with several workers and several processes: output identical
# whatever --jobs, --shard I/N merged with --merge (run by GNU parallel)
# equal to one run, --all with its time estimate, --timing, per-query
# solver limits.  On the hand-written streams of tests/t/data (c = a + b
# over 16 floats; programs equal by structure, by the solver, within
# tolerance, or wrong at every location).
. "$(dirname "$0")/test-lib.sh"

D="$ROOT/tests/t/data"
sym() { cat "$D/check-base.jsonl" "$D/check-opt-$1.jsonl" | dcat -r >"$1.sym"; }
verdict() { dcat "$1" | jq -r 'select(.t=="verdict") | .'"$2"; }
locs() { dcat "$1" | jq -r 'select(.t=="location") | .'"$2"; }
# a verdict stream without the fields that measure time
untimed() { dcat "$1" | jq -c 'del(.ms, .elapsed_s, .estimate_s)'; }

test_expect_success 'setup' '
	for p in equal differ tol minmax uninit; do sym $p || exit 1; done
'

test_expect_success 'no "ms" fields without --timing; with it, one per location' '
	dcheck --max-locations 8 --min-locations 1 equal.sym >out &&
	test "$(locs out ms | sort -u)" = null &&
	test "$(verdict out elapsed_s)" = null &&
	dcheck --timing --max-locations 8 --min-locations 1 equal.sym >out &&
	test $(dcat out | jq -s "map(select(.t==\"location\" and .ms >= 0)) | length") = 8 &&
	verdict out elapsed_s | grep -q "^[0-9]"
'

test_expect_success 'every location carries its position in the order' '
	dcheck equal.sym >out &&
	locs out pos >pos && seq 0 15 >expect && test_cmp expect pos
'

test_expect_success 'the verdict says how each location was decided' '
	dcheck --keep-going minmax.sym >out &&
	test "$(verdict out smt)" = 16 && test "$(verdict out structural)" = 0 &&
	test "$(verdict out unconfirmed)" = 0 &&
	dcheck --keep-going differ.sym >out;
	test "$(verdict out screen)" = 16 &&
	dcheck equal.sym >out &&
	test "$(verdict out structural)" = 16 &&
	test "$(verdict out stopped)" = all &&
	test "$(verdict out order)" = heuristic &&
	test "$(verdict out axioms)" = gelu-tanh,fast-math
'

for p in equal differ tol minmax uninit; do
	test_expect_success "$p: byte-identical output with --jobs 1, 2 and 4" "
		{ dcheck --jobs 1 --keep-going $p.sym >j1; test \$? -ne 2; } &&
		dcheck --jobs 2 --keep-going $p.sym >j2;
		dcheck --jobs 4 --keep-going $p.sym >j4;
		cmp j1 j2 && cmp j1 j4 &&
		dcheck --jobs 1 --max-locations 5 --order random --seed 3 $p.sym >r1;
		dcheck --jobs 4 --max-locations 5 --order random --seed 3 $p.sym >r4;
		cmp r1 r4
	"
done

test_expect_success 'stopping at the first bug does not depend on --jobs' '
	test_status 1 dcheck --jobs 1 differ.sym >j1 &&
	test_status 1 dcheck --jobs 4 differ.sym >j4 &&
	cmp j1 j4 &&
	test "$(verdict j4 checked)" = 1 && test "$(verdict j4 stopped)" = first-bug
'

for p in equal differ minmax uninit; do
	test_expect_success "$p: three shards run by GNU parallel, merged, equal one run" "
		{ dcheck --jobs 2 --max-locations 11 $p.sym >one; test \$? -ne 2; } &&
		parallel --will-cite 'dcheck --jobs 1 --max-locations 11 --shard {}/3 $p.sym >shard{}.ver; test \$? -ne 2' ::: 0 1 2 &&
		test \"\$(verdict shard1.ver shard)\" = 1/3 &&
		{ dcheck --merge shard0.ver shard1.ver shard2.ver >merged; test \$? -ne 2; } &&
		cmp one merged &&
		{ dcheck --keep-going $p.sym >one; test \$? -ne 2; } &&
		parallel --will-cite 'dcheck --keep-going --shard {}/3 $p.sym >shard{}.ver; test \$? -ne 2' ::: 0 1 2 &&
		dcheck --merge shard2.ver shard0.ver shard1.ver >merged;
		cmp one merged
	"
done

test_expect_success 'a shard checks only its positions' '
	test_status 3 dcheck --shard 1/4 equal.sym >s1 &&
	locs s1 pos >pos && printf "1\n5\n9\n13\n" >expect && test_cmp expect pos
'

test_expect_success 'merged exit status is that of one run' '
	for i in 0 1; do dcheck --shard $i/2 differ.sym >d$i.ver; done;
	test_status 1 dcheck --merge d0.ver d1.ver >merged &&
	test "$(verdict merged checked)" = 1 &&
	test "$(verdict merged stopped)" = first-bug &&
	test "$(verdict merged shard)" = null
'

test_expect_success '--merge refuses missing, repeated and foreign shards' '
	for i in 0 1 2; do dcheck --shard $i/3 equal.sym >e$i.ver; done &&
	test_must_fail --status=2 dcheck --merge e0.ver e1.ver >out 2>err &&
	grep "shard 2/3 is missing" err &&
	test_must_fail --status=2 dcheck --merge e0.ver e1.ver e1.ver >out 2>err &&
	grep "e1.ver: shard 1/3 given twice" err &&
	dcheck --shard 2/3 --seed 9 equal.sym >seed.ver &&
	test_must_fail --status=2 dcheck --merge e0.ver e1.ver seed.ver >out 2>err &&
	grep "seed.ver: a shard of another check" err &&
	dcheck equal.sym >plain.ver &&
	test_must_fail --status=2 dcheck --merge e0.ver plain.ver >out 2>err &&
	grep "plain.ver: not a shard" err
'

test_expect_success '--merge refuses a shard of more shards than the first, cleanly' '
	for i in 0 1 2; do dcheck --shard $i/3 equal.sym >e$i.ver; done;
	dcheck --shard 7/8 equal.sym >far.ver;
	test_must_fail --status=2 dcheck --merge e0.ver far.ver >out 2>err &&
	grep "far.ver: a shard of another check" err
'

test_expect_success 'bad --shard, --jobs, --order and --axioms values are trouble' '
	test_must_fail --status=2 dcheck --shard 3/3 equal.sym 2>err &&
	grep "option .--shard.: bad value .3/3." err &&
	test_must_fail --status=2 dcheck --jobs 0 equal.sym 2>err &&
	grep "option .--jobs." err &&
	test_must_fail --status=2 dcheck --order spiral equal.sym 2>err &&
	grep "unknown order .spiral." err &&
	test_must_fail --status=2 dcheck --axioms gelu-tanh,magic equal.sym 2>err &&
	grep "unknown axioms .magic." err &&
	test_must_fail --status=2 dcheck --all --budget 3 equal.sym 2>err
'

test_expect_success '--all checks every location and estimates the time' '
	dcheck --all --jobs 2 equal.sym >out &&
	test "$(verdict out checked)" = 16 &&
	verdict out estimate_s | grep -q "^[0-9]" &&
	verdict out elapsed_s | grep -q "^[0-9]"
'

test_expect_success 'the orders: sequential in index order, random a permutation' '
	dcheck --order sequential equal.sym >out &&
	locs out index >idx && seq 0 15 >all && test_cmp all idx &&
	dcheck --order random --seed 5 equal.sym >out &&
	locs out index >idx && sort -n idx >sorted && test_cmp all sorted &&
	! cmp -s all idx &&
	dcheck --order random --seed 6 equal.sym >out6 &&
	locs out6 index >idx6 && ! cmp -s idx idx6
'

test_expect_success 'a solver resource limit makes hard locations unknown, not stuck' '
	test_status 3 dcheck --smt-rlimit 1 minmax.sym >out &&
	test "$(locs out result | sort -u)" = unknown &&
	locs out detail | grep -q "gave up (resource limit" &&
	test_status 0 dcheck --smt-timeout 20000 minmax.sym >out
'

test_expect_success 'verdicts depend on the resource limit only: the clock gives timeout' '
	dcheck --jobs 1 minmax.sym >r1 &&
	dcheck --jobs 2 --budget 600 --smt-timeout 600000 minmax.sym >r2 &&
	cmp r1 r2 &&
	test_status 3 dcheck --jobs 2 --smt-rlimit 1 minmax.sym >u1 &&
	test_status 3 dcheck --jobs 1 --smt-rlimit 1 --budget 600 minmax.sym >u2 &&
	cmp u1 u2 &&
	{ dcheck --smt-timeout 1 --smt-rlimit 0 minmax.sym >t1; st=$?; } &&
	locs t1 result | sort -u >res &&
	! grep -q unknown res &&
	v=$(dcat t1 | jq -r "select(.t==\"verdict\") | .result") &&
	if grep -q timeout res; then
		# enough locations may still be equal for a verdict
		case $v in timeout) test $st = 3 ;; checked-correct) test $st = 0 ;; *) false ;; esac
	else test $st = 0 && test "$(cat res)" = equal; fi
'

test_done
