#!/bin/sh
# The torch recorder (python3 -m dirigo_trace): trace the KernelBench-style
# programs of tests/torch/ and check the torch records (dirigo-trace(5),
# TORCH RECORDS) through dcat and jq.  Skipped without a python3 that
# imports torch (make deps installs Debian's python3-torch).

. "$(dirname "$0")/test-lib.sh"
SQ="'"

PY=$("$ROOT/dtrace-cuda/python/dirigo-python") || SKIP_ALL="no python3 that imports torch"
command -v jq >/dev/null || SKIP_ALL="jq not found"
PROGS=$ROOT/tests/torch

# trace NAME [ARGS]: trace tests/torch/NAME.py into NAME.trace and NAME.json.
trace() {
	n=$1; shift
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace "$PROGS/$n.py" --out "$n.trace" "$@" &&
	dcat "$n.trace" >"$n.json"
}
recs() { jq -c "$2" <"$1.json"; }

if [ -n "${SKIP_ALL:-}" ]; then
	test_skip "$SKIP_ALL"
	test_done
	exit
fi
say_torch "$PY"

test_expect_success 'conv2d+relu+bias: traced' '
	trace conv2d_relu_bias &&
	recs conv2d_relu_bias "select(.t==\"header\") | [.stream, .name, .version]" >actual &&
	echo "[\"trace\",\"conv2d_relu_bias\",1]" >expect &&
	test_cmp expect actual
'

test_expect_success 'conv2d+relu+bias: inputs and parameters with their data' '
	recs conv2d_relu_bias "select(.t==\"tinput\") | [.role, .name, (.data != null), (.hash|length)]" >actual &&
	cat >expect <<-\EOF &&
	["input","arg0",true,16]
	["param","bias",true,16]
	["param","conv.weight",true,16]
	["param","conv.bias",true,16]
	EOF
	test_cmp expect actual
'

test_expect_success 'conv2d+relu+bias: the ops, their attributes and the output' '
	recs conv2d_relu_bias "select(.t==\"op\") | .op" >actual &&
	printf "\"aten::convolution\"\n\"aten::relu\"\n\"aten::add.Tensor\"\n" >expect &&
	test_cmp expect actual &&
	recs conv2d_relu_bias "select(.op==\"aten::convolution\") | [.args[] | select(.name==\"stride\" or .name==\"groups\" or .name==\"transposed\")]" >actual &&
	echo "[{\"name\":\"stride\",\"ints\":[1,1]},{\"name\":\"transposed\",\"bool\":false},{\"name\":\"groups\",\"int\":1}]" >expect &&
	test_cmp expect actual &&
	out=$(recs conv2d_relu_bias "select(.t==\"toutput\") | .tensor") &&
	last=$(recs conv2d_relu_bias "select(.t==\"op\") | .outs[0]" | tail -n 1) &&
	test "$out" = "$last" &&
	recs conv2d_relu_bias "select(.t==\"tensor\" and .tensor==$out) | [.shape, .stride, .dtype]" >actual &&
	echo "[[2,4,6,6],[144,36,6,1],\"f32\"]" >expect &&
	test_cmp expect actual
'

test_expect_success 'gemm+gelu: linear becomes t, addmm; gelu keeps its approximation' '
	trace gemm_gelu &&
	recs gemm_gelu "select(.t==\"op\") | .op" >actual &&
	printf "\"aten::t\"\n\"aten::addmm\"\n\"aten::mul.Tensor\"\n\"aten::gelu\"\n" >expect &&
	test_cmp expect actual &&
	recs gemm_gelu "select(.op==\"aten::gelu\") | .args[1]" >actual &&
	echo "{\"name\":\"approximate\",\"str\":\"none\"}" >expect &&
	test_cmp expect actual
'

test_expect_success 'batchnorm: training mode updates the running statistics in place' '
	trace batchnorm &&
	recs batchnorm "select(.op==\"aten::native_batch_norm\") | [(.args[] | select(.name==\"training\") | .bool), [.mutated[].arg]]" >actual &&
	echo "[true,[\"running_mean\",\"running_var\"]]" >expect &&
	test_cmp expect actual &&
	rm=$(recs batchnorm "select(.t==\"tinput\" and .name==\"bn.running_mean\") | .tensor") &&
	new=$(recs batchnorm "select(.op==\"aten::native_batch_norm\") | .mutated[0].tensor") &&
	recs batchnorm "select(.t==\"tensor\" and (.tensor==$rm or .tensor==$new)) | [.storage, .version]" >actual &&
	s=$(head -n 1 actual | jq ".[0]") &&
	printf "[%s,0]\n[%s,1]\n" $s $s >expect &&
	test_cmp expect actual
'

test_expect_success 'maxpool+sum: views share the storage of what they view' '
	trace maxpool_sum &&
	recs maxpool_sum "select(.t==\"op\") | .op" >ops &&
	grep -q "aten::max_pool2d_with_indices" ops &&
	grep -q "aten::permute" ops &&
	grep -q "aten::sum.dim_IntList" ops &&
	pin=$(recs maxpool_sum "select(.op==\"aten::permute\") | .args[0].tensor") &&
	pout=$(recs maxpool_sum "select(.op==\"aten::permute\") | .outs[0]") &&
	recs maxpool_sum "select(.t==\"tensor\" and (.tensor==$pin or .tensor==$pout)) | .storage" | uniq >actual &&
	test $(wc -l <actual) -eq 1 &&
	recs maxpool_sum "select(.t==\"tensor\" and .tensor==$pout) | .stride" >actual &&
	echo "[64,4,1,16]" >expect &&
	test_cmp expect actual
'

test_expect_success 'every tensor a record names has its tensor record before' '
	for n in conv2d_relu_bias gemm_gelu batchnorm maxpool_sum; do
		jq -s "[foreach .[] as \$r ({}; if \$r.t == \"tensor\" then .[\$r.tensor|tostring] = true else . end; [\$r, .])]
			| map(. as [\$r, \$seen] | [\$r.args[]?.tensor?, \$r.args[]?.tensors[]?, \$r.outs[]?,
				\$r.mutated[]?.tensor, (if \$r.t == \"tinput\" or \$r.t == \"toutput\" then \$r.tensor else empty end)]
				| map(select(. != null and (\$seen[tostring] | not))))
			| add | length" $n.json >bad &&
		echo 0 >zero && test_cmp zero bad || return 1
	done
'

test_expect_success 'dropout in training mode: a random op, its result kept with its bytes' '
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace \
		"$PROGS/dropout.py" --out dropout.trace 2>err &&
	dcat dropout.trace >dropout.json &&
	jq -c "select(.t==\"op\" and .random) | .op" dropout.json >actual &&
	echo "\"aten::bernoulli_.float\"" >expect &&
	test_cmp expect actual &&
	t=$(jq "select(.t==\"op\" and .random) | .mutated[0].tensor" dropout.json) &&
	jq -s -e "map(select(.t==\"tensor\" and .tensor==$t)) | length == 1 and .[0].data != null" \
		dropout.json >/dev/null &&
	test -z "$(jq -c "select(.t==\"tunsupported\")" dropout.json)" &&
	jq -c "select(.t==\"end\") | .status" dropout.json >actual &&
	echo 0 >expect && test_cmp expect actual
'

test_expect_success 'dropout: dmerge makes the random result an input of its own program' '
	dmerge dropout.trace dropout.trace >dropout.obl &&
	dcat dropout.obl | jq -c "select(.t==\"input\" and .role==\"random\") | [.name, .prog, .data != null]" >actual &&
	printf "[\"aten::bernoulli_.float#1.0\",0,true]\n[\"aten::bernoulli_.float#1.0\",1,true]\n" >expect &&
	test_cmp expect actual
'

test_expect_success '.item(): a data-dependent op, unsupported, exit 3, the op named' '
	cat >item.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def forward(self, x):
	        return x * x.max().item()
	def get_inputs():
	    return [torch.randn(4)]
	def get_init_inputs():
	    return []
	EOF
	test_status 3 env PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace \
		item.py --out item.trace 2>err &&
	grep "unsupported: data-dependent op .aten::_local_scalar_dense" err &&
	dcat item.trace | jq -c "select(.t==\"tunsupported\" or .t==\"end\") | del(.message, .records, .counts)" >actual &&
	printf "{\"t\":\"tunsupported\",\"op\":\"aten::_local_scalar_dense\"}\n{\"t\":\"end\",\"status\":3}\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'torch.equal of a tensor with itself is True, recorded, supported; of two tensors, unsupported' '
	cat >equal.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def forward(self, x):
	        q = k = x * 2
	        return q + 1 if torch.equal(q, k) else q
	def get_inputs():
	    return [torch.randn(4)]
	def get_init_inputs():
	    return []
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace equal.py --out equal.trace &&
	dcat equal.trace | jq -c "select(.t==\"op\") | .op" >actual &&
	printf "\"aten::mul.Tensor\"\n\"aten::equal\"\n\"aten::add.Tensor\"\n" >expect &&
	test_cmp expect actual &&
	sed "s/torch.equal(q, k)/torch.equal(q, x)/" equal.py >equal2.py &&
	test_status 3 env PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace \
		equal2.py --out equal2.trace 2>err &&
	grep "unsupported: data-dependent op .aten::equal" err
'

test_expect_success 'integer parameters and buffers, and one-number buffers, are constants: .item() of them is supported' '
	cat >config.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def __init__(self):
	        super().__init__()
	        self.w = nn.Parameter(torch.randn(4))
	        self.register_buffer("step", torch.tensor(2))
	        self.register_buffer("rate", torch.tensor(0.5))
	        self.register_buffer("mean", torch.zeros(4))
	    def forward(self, x):
	        return (x[::int(self.step)] - self.mean[:2]) * self.w[:2] * float(self.rate)
	def get_inputs():
	    return [torch.randn(4)]
	def get_init_inputs():
	    return []
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace config.py --out config.trace &&
	dcat config.trace | jq -c "select(.t==\"tinput\") | [.role, .name, .data != null]" >actual &&
	cat >expect <<-\EOF &&
	["input","arg0",true]
	["param","w",true]
	["constant","step",true]
	["constant","rate",true]
	["buffer","mean",true]
	EOF
	test_cmp expect actual
'

test_expect_success 'printing a tensor while recording records nothing and raises nothing' '
	cat >show.py <<-\EOF &&
	import sys
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def forward(self, x):
	        print(repr(x * 2), file=sys.stderr)
	        return x + 1
	def get_inputs():
	    return [torch.randn(3)]
	def get_init_inputs():
	    return []
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace show.py --out show.trace 2>err &&
	grep -q "^tensor(\[" err &&
	dcat show.trace | jq -c "select(.t==\"op\") | .op" >actual &&
	printf "\"aten::mul.Tensor\"\n\"aten::add.Tensor\"\n" >expect &&
	test_cmp expect actual
'

# A stand-in for a pybind11 binding: its docstring names the argument
# types, it takes no keywords and rejects what pybind11 would reject.
cat >fakebind.py <<\EOF
import torch
class Binding:
    def __init__(self, doc, types):
        self.__doc__ = doc
        self.types = types
        self.calls = []
    def __call__(self, *args, **kwargs):
        ok = not kwargs and len(args) == len(self.types) and all(
            isinstance(a, t) and not (t is int and isinstance(a, bool)) for a, t in zip(args, self.types))
        if not ok:
            raise TypeError("forward(): incompatible function arguments. The following argument "
                            "types are supported: ... Invoked with: %r" % (args,))
        self.calls.append(args)
        return args[0] * 2
EOF

test_expect_success 'kernelbench: forward is called as the functional reference calls module_fn, its defaults included' '
	cat >adapt.py <<-\EOF &&
	import torch
	from fakebind import Binding
	from dirigo_trace.kernelbench import reference_forward, binding_types, coerce_arg
	def module_fn(x, w, stride, padding=0, groups=1, is_training=True):
	    return x
	doc = "forward(arg0: at::Tensor, arg1: List[at::Tensor], arg2: int, arg3: int, arg4: float) -> at::Tensor"
	b = Binding(doc + "\n\nconv", (torch.Tensor, list, int, int, float))
	print(binding_types(b))
	f = reference_forward(b, module_fn)
	x = torch.ones(2)
	ws = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(1))])
	f(x, ws, stride=(2, 2), padding=1.0, groups=1)
	a = b.calls[-1]
	print(type(a[1]).__name__, a[2], a[3], a[4])
	try:
	    f(x, ws, (2, 3), 1, 1)
	except TypeError as e:
	    print("rejected:", "incompatible function arguments" in str(e))
	print(coerce_arg(True, "float"), coerce_arg(2.5, "int"), coerce_arg(1, "bool"))
	b5 = Binding(doc.replace("arg4: float", "arg4: float, arg5: bool") + "\n\nconv",
	             (torch.Tensor, list, int, int, float, bool))
	f = reference_forward(b5, module_fn)
	f(x, ws, 2, 1, 1.0)
	print("defaults:", b5.calls[-1][2:])
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python:." "$PY" adapt.py >actual &&
	cat >expect <<-EOF &&
	[${SQ}at::Tensor${SQ}, ${SQ}List[at::Tensor]${SQ}, ${SQ}int${SQ}, ${SQ}int${SQ}, ${SQ}float${SQ}]
	list 2 1 1.0
	rejected: True
	1.0 2.5 True
	defaults: (2, 1, 1.0, True)
	EOF
	test_cmp expect actual
'

test_expect_success 'scaled_dot_product_attention under torch 1.13: traced by its definition' '
	cat >sdpa.py <<-\EOF &&
	import torch
	import torch.nn as nn
	import torch.nn.functional as F
	class Model(nn.Module):
	    def forward(self, q, k, v):
	        return F.scaled_dot_product_attention(q, k, v)
	def get_inputs():
	    return [torch.randn(2, 4, 8), torch.randn(2, 4, 8), torch.randn(2, 4, 8)]
	def get_init_inputs():
	    return []
	EOF
	if "$PY" -c "import torch.nn.functional as F, sys; sys.exit(hasattr(F, \"scaled_dot_product_attention\"))"
	then
		PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace sdpa.py --out sdpa.trace &&
		dcat sdpa.trace | jq -r "select(.t==\"op\") | .op" | grep -v "view\|reshape\|expand\|transpose" >actual &&
		printf "aten::bmm\naten::mul.Tensor\naten::_softmax\naten::bmm\n" >expect &&
		test_cmp expect actual
	fi
'

test_expect_success 'int32 index tensors: traced under every torch, recorded as int32' '
	cat >idx32.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def __init__(self):
	        super().__init__()
	        self.register_buffer("idx", torch.tensor([3, 0, 2, 2], dtype=torch.int32))
	    def forward(self, x):
	        y = x[self.idx]
	        z = torch.zeros(5, 3)
	        z[self.idx] = y
	        return z
	def get_inputs():
	    return [torch.randn(4, 3)]
	def get_init_inputs():
	    return []
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace idx32.py --out idx32.trace &&
	dcat idx32.trace >idx32.json &&
	recs idx32 "select(.t==\"op\") | .op" | grep "index" >actual &&
	printf "\"aten::index.Tensor\"\n\"aten::index_put_\"\n" >expect &&
	test_cmp expect actual &&
	recs idx32 "select(.t==\"tensor\") | .dtype" | grep -c s32 >n &&
	test "$(cat n)" -ge 1
'

test_expect_success 'int32 index tensors: a gather by them gets a verdict' '
	cat >gather32.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def __init__(self):
	        super().__init__()
	        self.register_buffer("idx", torch.tensor([3, 0, 2, 2], dtype=torch.int32))
	    def forward(self, x):
	        return x[self.idx] * 2
	def get_inputs():
	    return [torch.randn(4, 3)]
	def get_init_inputs():
	    return []
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace gather32.py --out g.trace &&
	dmerge g.trace g.trace | dexec | dcheck >g.out &&
	dcat g.out | jq -c "select(.t==\"verdict\") | [.result, .locations, .equal]" >actual &&
	echo "[\"checked-correct\",12,12]" >expect &&
	test_cmp expect actual
'

test_expect_success 'int32 index tensors: widened only for index ops under torch 1.x' '
	cat >li.py <<-\EOF &&
	import torch
	from dirigo_trace import torchver as v
	def f(x, indices):
	    return [t if t is None else t.dtype for t in indices]
	i = torch.tensor([1], dtype=torch.int32)
	for ver in ("1.13.1", "2.15.0"):
	    for name in ("aten::index.Tensor", "aten::add.Tensor"):
	        print(ver, name, v.long_indices(f, name, ver)(None, [i]))
	print(v.long_indices(f, "aten::index_put_", "1.13.1")(None, indices=(i, None)))
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" li.py >actual &&
	cat >expect <<-\EOF &&
	1.13.1 aten::index.Tensor [torch.int64]
	1.13.1 aten::add.Tensor [torch.int32]
	2.15.0 aten::index.Tensor [torch.int32]
	2.15.0 aten::add.Tensor [torch.int32]
	[torch.int64, None]
	EOF
	test_cmp expect actual
'

test_expect_success 'a file without Model: trouble, exit 2' '
	echo "x = 1" >bad.py &&
	test_status 2 env PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace bad.py --out bad.trace 2>err &&
	grep "defines no Model" err
'

test_expect_success 'torch versions: the supported range, and what is outside it' '
	cat >ver.py <<-\EOF &&
	from dirigo_trace import torchver as v
	for s in ("1.13.0a0+gitunknown", "1.13.1", "2.0.0", "2.15.0+cu132", "2.16.0", "1.12.1", "3.0", "nightly"):
	    p = v.problem(s)
	    print(s, "ok" if p is None else p)
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" ver.py >actual &&
	cat >expect <<-EOF &&
	1.13.0a0+gitunknown ok
	1.13.1 ok
	2.0.0 ok
	2.15.0+cu132 ok
	2.16.0 torch 2.16.0 is outside the versions dirigo_trace supports (1.13 to 2.15; tested with 1.13 and 2.15): check its traces
	1.12.1 torch 1.12.1 is outside the versions dirigo_trace supports (1.13 to 2.15; tested with 1.13 and 2.15): check its traces
	3.0 torch 3.0 is outside the versions dirigo_trace supports (1.13 to 2.15; tested with 1.13 and 2.15): check its traces
	nightly torch version ${SQ}nightly${SQ} is not one dirigo_trace can read
	EOF
	test_cmp expect actual
'

test_expect_success 'an unknown torch version: traced, with one warning; a known one: none' '
	cat >asver.py <<-\EOF &&
	import runpy, sys, torch
	torch.__version__ = sys.argv[1]
	sys.argv = ["dirigo_trace"] + sys.argv[2:]
	runpy.run_module("dirigo_trace", run_name="__main__")
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" asver.py 2.99.0 "$PROGS/conv2d_relu_bias.py" --out v.trace 2>err &&
	test $(grep -c "dirigo_trace: warning: torch 2.99.0 is outside" err) = 1 &&
	dcat v.trace | jq -r "select(.t==\"header\") | .torch" >actual &&
	echo 2.99.0 >expect && test_cmp expect actual &&
	dcat v.trace | jq -c "select(.t==\"op\") | .op" >actual &&
	recs conv2d_relu_bias "select(.t==\"op\") | .op" >expect &&
	test_cmp expect actual &&
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace "$PROGS/conv2d_relu_bias.py" --out k.trace 2>err &&
	! grep warning err
'

test_expect_success 'without the msgpack package: trouble, exit 2, the package named' '
	mkdir -p nomsgpack &&
	echo "raise ImportError(\"no msgpack here\")" >nomsgpack/msgpack.py &&
	test_status 2 env PYTHONPATH="$PWD/nomsgpack:$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace \
		"$PROGS/conv2d_relu_bias.py" --out m.trace 2>err &&
	grep "needs the msgpack package" err
'

test_expect_success 'an extension that links a CUDA library dirigo does not model: unsupported, exit 3, named' '
	cat >nolib.py <<-\EOF &&
	import sys
	from dirigo_trace import kernelbench
	def build(o):
	    raise ImportError("/x/ext.so: undefined symbol: " + sys.argv[1])
	kernelbench.cmd_build = build
	sys.exit(kernelbench.main(["build", "ref.py", "opt.cu"]))
	EOF
	test_status 3 env PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" nolib.py cublasSetMathMode 2>err &&
	grep "opt.cu: unsupported: the extension calls .cublasSetMathMode., which dirigo.s recording runtime does not provide (cuBLAS)" err &&
	test_status 3 env PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" nolib.py cudaGraphLaunch 2>err &&
	grep "calls .cudaGraphLaunch., which dirigo.s recording runtime does not provide$" err
'

# More parameters than a small fixed table held (level-3 15_DenseNet121
# has 316): dmerge pairs every one.
test_expect_success 'a program with 300 parameters: traced, and dmerge pairs them all' '
	cat >many.py <<-\EOF &&
	import torch
	import torch.nn as nn
	class Model(nn.Module):
	    def __init__(self):
	        super().__init__()
	        self.ws = nn.ParameterList([nn.Parameter(torch.randn(2)) for _ in range(300)])
	    def forward(self, x):
	        for w in self.ws:
	            x = x * w
	        return x
	def get_inputs():
	    return [torch.randn(2)]
	def get_init_inputs():
	    return []
	EOF
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace many.py --name ref --out many-ref.trace 2>err &&
	PYTHONPATH="$ROOT/dtrace-cuda/python" "$PY" -m dirigo_trace many.py --name opt --out many-opt.trace 2>err &&
	test $(dcat many-ref.trace | jq -c "select(.t==\"tinput\" and .role==\"param\")" | wc -l) = 300 &&
	dmerge many-ref.trace many-opt.trace >many.obl
'

test_done
