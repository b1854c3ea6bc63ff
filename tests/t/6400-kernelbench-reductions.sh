#!/bin/sh
# Large reductions against torch (tests/kernelbench/, AI CUDA Engineer
# form: ref.py with module_fn, opt.cu with forward): a tiled matmul with
# non-affine shared stores against torch.mm, a softmax with block-wide
# max and sum trees (and -inf padding) against torch.softmax, a mean of
# per-block partials each divided by N and added with atomicAdd against
# torch.mean; row sums in tiles whose shape is in __constant__ memory
# written by the host against torch.sum; an RMS norm by a shared tree per
# column (eps a float argument) against x / sqrt(mean(x^2) + eps); a layer
# norm with a one-pass variance (shared rows, then __shfl_down_sync)
# against F.layer_norm's two-pass one; a product of lower triangular
# matrices (get_inputs() makes them so) that skips the zero terms; the
# negative log-likelihood pick x[i, label[i]] with int64 labels (dexec
# reads the recorded labels as constants: the address is no address on
# data); each
# with a buggy twin (a wrong tile count, a sum tree over half the row, a
# wrong divisor, a tile count rounded down, a missing 1/N, the diagonal
# term dropped).  The reductions are computed in other
# associations on the two sides, so a correct pair is decided by
# structure (dcheck's canonical forms), and a buggy one by a witness that
# dreplay confirms by running both programs.
#
# The pipeline starts from the traces committed beside each pair
# (tests/kernelbench/NAME/trace, made by `make fixtures`), so the suite
# does not build 14 extensions again (tracing itself is tests/t/6200's);
# the tests check those traces against their sources, and trace
# matmul-tril here to see they are what dtrace-cuda writes today.
#
# Skipped as tests/t/6200-kernelbench.sh is (python3 with torch, nvcc,
# torch's C++ headers); the extension traced here is built once and cached.

. "$(dirname "$0")/test-lib.sh"

KB=$ROOT/tests/kernelbench
PY=$("$ROOT/dtrace-cuda/python/dirigo-python") || SKIP_ALL="no python3 that imports torch"
command -v jq >/dev/null || SKIP_ALL="jq not found"
have_nvcc || SKIP_ALL="nvcc not found"
if [ -z "${SKIP_ALL:-}" ]; then
	"$PY" - 2>/dev/null <<-\EOF || SKIP_ALL="no torch C++ headers or pybind11 (install libtorch-dev pybind11-dev)"
	import os, sys, sysconfig
	import torch.utils.cpp_extension as c
	inc = c.include_paths() + [sysconfig.get_paths()["include"], "/usr/include"]
	need = ["torch/extension.h", "pybind11/pybind11.h", "Python.h"]
	sys.exit(0 if all(any(os.path.exists(os.path.join(d, n)) for d in inc) for n in need) else 1)
	EOF
fi
export DIRIGO_EXT_CACHE="${DIRIGO_EXT_CACHE:-$ROOT/build/ext-cache}" DIRIGO_PYTHONPATH="$ROOT/dtrace-cuda/python"

# pair NAME: the whole pipeline on tests/kernelbench/NAME, from its
# committed traces; the verdict stream in NAME.jsonl, the exit status of
# dreplay in NAME.status.
pair() {
	mkdir -p "$1" && cp "$KB/$1/trace/ref.trace" "$KB/$1/trace/opt.trace" "$1/" &&
	dmerge "$1/ref.trace" "$1/opt.trace" >"$1.obl" &&
	dexec "$1.obl" >"$1.sym" &&
	{ dcheck --max-locations 12 "$1.sym" >"$1.ver"; test $? -le 1; } &&
	{ dreplay "$1.ver" >"$1.rep" 2>"$1.report"; echo $? >"$1.status"; } &&
	dcat "$1.rep" >"$1.jsonl"
}

# correct NAME: exit 0, checked-correct, every location decided by structure.
correct() {
	pair "$1" &&
	test "$(cat "$1.status")" = 0 &&
	jq -s -e 'map(select(.t=="verdict"))[0] | .result == "checked-correct" and
		.equal == .checked and .structural == .checked' "$1.jsonl" >/dev/null
}

# buggy NAME: exit 1 with a wrong result that dreplay confirms.
buggy() {
	pair "$1" &&
	test "$(cat "$1.status")" = 1 &&
	jq -s -e 'map(select(.t=="verdict"))[0].result == "buggy"' "$1.jsonl" >/dev/null &&
	jq -s -e 'map(select(.t=="replay" and .confirmed)) | length > 0' "$1.jsonl" >/dev/null
}

# check_pair NAME: the verdict NAME/expect names (correct or buggy).
check_pair() {
	case "$(cat "$KB/$1/expect")" in
	correct) correct "$1" ;;
	buggy) buggy "$1" ;;
	*) echo "$KB/$1/expect: neither correct nor buggy" >&2; false ;;
	esac
}

if [ -n "${SKIP_ALL:-}" ]; then
	test_skip "$SKIP_ALL"
	test_done
	exit
fi

test_expect_success 'the committed traces are those of the sources as they are (else: make fixtures)' '
	for d in "$KB"/*/trace "$KB"/*/trace-*; do
		[ -d "$d" ] || continue
		(cd "$d/.." && sha256sum --quiet -c "${d##*/}/sources") ||
		{ echo "$d: older than its sources: run make fixtures" >&2; return 1; }
	done
'
# same_trace A B: the traces A and B are the same but for the bytes of
# pointer arguments (host addresses, which differ from run to run; the
# storage each points into is compared).
same_trace() {
	for k in 1 2; do
		eval "f=\$$k"
		dcat "$f" | jq -c 'if .t == "launch" then .args |= map(if has("storage") then del(.raw) else . end) else . end' >same$k.json || return 1
	done
	cmp same1.json same2.json
}
# (a trace names the torch ops as the torch at hand records them: another
# torch version, as in make check-torch2, is compared only to itself)
TORCH=$("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null)
if [ "$TORCH" != "$(cat "$KB/matmul-tril/trace/torch")" ]; then
	test_skip "the committed traces were made with torch $(cat "$KB/matmul-tril/trace/torch"), this is $TORCH"
else
test_expect_success 'and they are what dtrace-cuda writes today (matmul-tril traced again here)' '
	dtrace-cuda --kernelbench -o live "$KB/matmul-tril/ref.py" "$KB/matmul-tril/opt.cu" 2>live.err &&
	same_trace live/ref.trace "$KB/matmul-tril/trace/ref.trace" &&
	same_trace live/opt.trace "$KB/matmul-tril/trace/opt.trace" ||
	{ echo "the traces in tests/kernelbench are not what the tracer writes: run make fixtures" >&2; false; }
'
fi
test_expect_success 'tiled matmul with non-affine shared stores = torch.mm, by structure' 'check_pair matmul-tiled'
test_expect_success 'tiled matmul that drops the partial last tile: a confirmed witness' 'check_pair matmul-tiled-bug'
test_expect_success 'softmax by block max and sum trees, -inf padding = torch.softmax, by structure' '
	check_pair softmax-block
'
test_expect_success 'softmax whose sum tree covers half the row: a confirmed witness' 'check_pair softmax-block-bug'
test_expect_success 'row sums with the shape in __constant__ memory the host wrote = torch.sum' '
	check_pair const-dims
'
test_expect_success 'row sums whose host code rounds the tile count down: a confirmed witness' '
	check_pair const-dims-bug
'
test_expect_success 'mean of per-block partials / N, atomicAdd = torch.mean, by structure' 'check_pair mean-atomic'
test_expect_success 'x[i * C + label[i]] with the labels an int64 input = torch.gather, by structure' '
	check_pair label-pick &&
	dcat label-pick.sym | jq -s -e "map(select(.t == \"unsupported\")) | length == 0"
'
test_expect_success 'x[label[i] * N + i]: the wrong element, a confirmed witness' 'check_pair label-pick-bug'
test_expect_success 'mean with partials divided by the thread count: a confirmed witness' 'check_pair mean-atomic-bug'
test_expect_success 'RMS norm by a shared tree per column, float eps = torch (1e-5 in f32), by structure' '
	check_pair rmsnorm-tree
'
test_expect_success 'RMS norm whose sum of squares is not divided by N: a confirmed witness' 'check_pair rmsnorm-tree-bug'
test_expect_success 'layer norm, one-pass variance by shared rows and a warp shuffle = torch, by structure' '
	check_pair layernorm-warp
'
test_expect_success 'layer norm whose E[x^2] lacks its 1/N: a confirmed witness' 'check_pair layernorm-warp-bug'

# get_inputs() makes A and B lower triangular (torch.tril of a draw): it is
# traced on both sides, its draws the inputs gen0 and gen1, so the kernel
# that skips the zero terms is checked on the inputs it is promised.
test_expect_success 'triangular matmul that skips the zeros get_inputs promises = torch, by structure' '
	check_pair matmul-tril &&
	dcat matmul-tril/ref.trace | jq -s -e "map(select(.t == \"tinput\" and .role == \"input\") | .name) == [\"gen0\", \"gen1\"]" &&
	dcat matmul-tril/opt.trace | jq -s -e "[.[] | select(.t == \"op\") | .op][0:2] == [\"aten::tril\", \"aten::tril\"]"
'
test_expect_success 'triangular matmul that drops the diagonal term: a witness in the draws, confirmed' '
	check_pair matmul-tril-bug &&
	grep "inputs: .*gen[01]\[" matmul-tril-bug.report
'
# At 4096 x 4096 the allocator gives the second draw the memory of the
# first, which torch.tril consumed and freed: each draw is still an input
# of its own storage (14_Matmul_for_upper_triangular_matrices).
test_expect_success 'a draw in memory the allocator handed out before is an input of its own' '
	sed "s/^N = 12\$/N = 4096/" "$KB/matmul-tril/ref.py" >ref-big.py &&
	grep -q "^N = 4096" ref-big.py &&
	dtrace-cuda --kernelbench -o big "$PWD/ref-big.py" "$KB/matmul-tril/opt.cu" 2>big.err &&
	dcat big/ref.trace | jq -s -e "(map(select(.t == \"tinput\" and .role == \"input\") | .tensor)) as \$g |
		[.[] | select(.t == \"tensor\" and (.tensor as \$i | \$g | index(\$i))) | .storage] | unique | length == 2" &&
	dmerge big/ref.trace big/opt.trace >big.obl
'
test_expect_success 'a get_inputs() of draws only: the inputs are arg0, arg1 as before' '
	dcat matmul-tiled/ref.trace | jq -s -e "map(select(.t == \"tinput\" and .role == \"input\") | .name) == [\"arg0\", \"arg1\"]"
'

test_done
