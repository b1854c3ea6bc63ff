# case-lib.sh: run the whole pipeline on the program pairs of tests/cases/
# and compare the outcome with each pair's "expect" file:
#
#   correct             the pipeline exits 0
#   buggy               exits 1 with a witness that dreplay confirms by
#                       running both programs (PTX interpreter), by slice,
#                       with the whole run's values (check_slice_exact)
#   finding CLASS       exits 1 with a "finding" record of class CLASS
#   uninit              exits 1, buggy: an output location reads memory
#                       that no thread wrote (dcheck's uninit count)
#   unsupported         exits 3 with an "unsupported" record
#   partial             exits 0 (checked-correct) although some locations are
#                       unknown because they depend on an opaque value
#                       (named in their detail, counted in the verdict)
#
# Sourced by the 5xxx tests after test-lib.sh; run_cases GLOB runs the pairs
# whose names match.

# Under the sanitizers (make check SANITIZE=1) every stage runs several
# times slower: the budgets are five times the defaults, still bounded.
case_budget=${SANITIZE:+--budget 300}

check_case() {   # DIR
	name=$(basename "$1")
	expect=$(cat "$1/expect")
	build_cuda "$1/ref.cu" "$name-ref" &&
	build_cuda "$1/opt.cu" "$name-opt" &&
	dtrace-cuda --no-gpu --name ref -o "$name-ref.trace" -- "./$name-ref" 2>"$name-ref.log" &&
	dtrace-cuda --no-gpu --name opt -o "$name-opt.trace" -- "./$name-opt" 2>"$name-opt.log" || return 1
	dmerge "$name-ref.trace" "$name-opt.trace" >"$name.obl" &&
	dexec $case_budget "$name.obl" >"$name.sym"
	dcheck $case_budget "$name.sym" >"$name.ver"
	dreplay $case_budget "$name.ver" >"$name.rep" 2>"$name.report"
	st=$?
	dcat "$name.rep" >"$name.jsonl" || return 1
	case "$expect" in
	correct)
		test $st = 0 &&
		jq -s -e 'map(select(.t=="verdict"))[0].result == "checked-correct"' "$name.jsonl" >/dev/null ;;
	buggy)
		test $st = 1 &&
		jq -s -e 'map(select(.t=="replay" and .confirmed and .ref_ptx != null)) | length > 0' \
			"$name.jsonl" >/dev/null &&
		check_slice_exact "$name" ;;
	finding\ *)
		test $st = 1 &&
		jq -s -e --arg c "${expect#finding }" 'map(select(.t=="finding" and .class==$c)) | length > 0' \
			"$name.jsonl" >/dev/null ;;
	uninit)
		test $st = 1 &&
		jq -s -e 'map(select(.t=="verdict"))[0] | .result == "buggy" and .uninit > 0' "$name.jsonl" >/dev/null ;;
	unsupported)
		test $st = 3 &&
		jq -s -e 'map(select(.t=="unsupported")) | length > 0' "$name.jsonl" >/dev/null ;;
	partial)
		test $st = 0 &&
		jq -s -e 'map(select(.t=="verdict"))[0] | .result == "checked-correct" and .opaque > 0' \
			"$name.jsonl" >/dev/null &&
		jq -s -e 'map(select(.t=="location" and .result=="equal")) | length > 0' "$name.jsonl" >/dev/null &&
		jq -s -e 'map(select(.t=="location" and .opaque and
			(.detail | test("depends on an opaque value: launch [0-9]+ \\(.*\\), bit reinterpretation at PTX line [0-9]+, [^:]*cu:[0-9]+: mov.b32")))) | length > 0' \
			"$name.jsonl" >/dev/null &&
		test -z "$(jq -c "select(.t==\"unsupported\")" "$name.jsonl")" ;;
	*)
		echo "unknown expectation '$expect' in $1/expect" >&2; return 1 ;;
	esac || { echo "case $name: exit $st, expected $expect" >&2; cat "$name.report" >&2; return 1; }
}

run_cases() {    # GLOB
	have_nvcc || SKIP_ALL="nvcc not found"
	for dir in "$ROOT"/tests/cases/$1; do
		[ -f "$dir/expect" ] || continue
		test_expect_success "$(basename "$dir"): $(cat "$dir/expect")" "check_case '$dir'"
	done
}
