#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: large
# reductions computed in other associations on the two sides (a tiled
# matmul whose shared stores are not affine, a softmax by block trees
# with -inf padding, a mean of per-block partials each divided by n and
# added with atomicAdd, a layer norm with a one-pass variance E[x^2] -
# mean^2 against a two-pass reference, an upper-triangular tiled matmul
# whose tile loop tests k against threadIdx), and their buggy twins.  A correct pair must be
# decided by structure alone (dcheck's canonical forms), every location.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'reduce-*'
run_cases 'norm-onepass*'
test_expect_success 'reduce-matmul-triu: tests of k against threadIdx in the tile loop split no bundle, its trips do' '
	dcat reduce-matmul-triu.sym | jq -r "select(.t==\"writes\" and (.kernel | test(\"tiled\"))) | .bundles" >n &&
	test "$(cat n)" -le 16
'
for c in reduce-matmul-tiled reduce-softmax-block reduce-mean-atomic norm-onepass; do
	test_expect_success "$c: every location decided by structure" "
		jq -s -e 'map(select(.t==\"verdict\"))[0] | .checked > 0 and .structural == .checked' $c.jsonl
	"
done
test_done
