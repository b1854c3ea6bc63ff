#!/bin/sh
# The program pairs of tests/cases/ through the whole pipeline: degrade,
# don't give up.  The float bit idioms are exact (sign clear, copysign,
# the order-preserving key of float atomicMax), warpSize is WARP_SZ = 32,
# a __constant__ table with an initialiser is read by thread; a hand-written
# exp on the bits of a float is an opaque value: the locations that depend
# on it are unknown, the others checked, and an out-of-bounds store after
# it is still found.
. "$(dirname "$0")/test-lib.sh"
. "$ROOT/tests/t/case-lib.sh"
run_cases 'bits-*'
run_cases 'opaque-*'

# A witness at a location that depends on an opaque value has no value in
# the model: dreplay confirms it only by running both programs (here the
# hand-written exp really is 9% off expf at x = 1).
test_expect_success 'dreplay: a witness through an opaque value is decided by running the programs' '
	test -f opaque-partial.ver &&
	cat >w.jq <<-\EOF &&
	if .t == "location" and .index == 200 then
		(.result = "differ" | del(.opaque, .detail)),
		{t: "witness", output: 0, index: 200, off: 800, type: "f32", how: "smt",
		 inputs: [{input: 0, off: 800, type: "f32", value: 1.0}], ref: 0, opt: 0}
	elif .t == "verdict" then
		.result = "buggy" | .differ = 1 | .unknown -= 1 | .opaque -= 1
	elif .t == "end" then {t: "end"}
	else . end
	EOF
	dcat opaque-partial.ver | jq -c -f w.jq | dcat -r >w.ver &&
	test_must_fail --status=1 dreplay w.ver >w.rep 2>w.report &&
	dcat w.rep | jq -c "select(.t==\"replay\")" >r.json &&
	jq -e ".message | test(\"opaque value\")" r.json >/dev/null &&
	jq -e ".ref_ptx != null and .opt_ptx != null and .confirmed and .opt_f32 == .opt_ptx" r.json >/dev/null &&
	jq -e "(.ref_ptx - 2.7182817) | fabs < 1e-6" r.json >/dev/null
'
run_cases 'warpsize'
run_cases 'const-table*'
test_done
