#!/bin/sh
# gpu-check.sh: on a machine with an NVIDIA GPU, trace the KernelBench test
# pairs of tests/kernelbench on the GPU (dtrace-cuda --kernelbench --gpu:
# the runtime shim over the real libcudart.so) and compare each trace with
# the CPU trace of the same pair (the record-only runtime): the same torch
# ops in the same order, the same launches (kernel, grid, block, dynamic
# shared memory, which arguments are storages), the same PTX entry points.
#
# Prepared to be run later, in one go of under 10 minutes, on a lent GPU
# machine (the session that wrote it had none):
#
#     bench/gpu-check.sh            # prints TAP; exit 0 when all agree
#
# It needs a built checkout (make), nvcc, and a python3 whose torch is a
# CUDA build (DIRIGO_PYTHON may name it).  Without a GPU, without a CUDA
# torch, or while dtrace-cuda has no --gpu mode, it says why and skips
# (exit 0).  Extension builds are cached in build/ext-cache (GPU builds
# apart from CPU ones: the cache key holds torch's version).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$PATH
export DIRIGO_EXT_CACHE=${DIRIGO_EXT_CACHE:-$top/build/ext-cache}
skip() { echo "1..0 # skip $*"; exit 0; }

[ -e /dev/nvidia0 ] || command -v nvidia-smi >/dev/null 2>&1 || skip "no GPU"
nvidia-smi -L >/dev/null 2>&1 || skip "no GPU answers nvidia-smi"
command -v dtrace-cuda >/dev/null || skip "dtrace-cuda is not built (make)"
py=${DIRIGO_PYTHON:-$("$top/dtrace-cuda/python/dirigo-python")} || skip "no python3 with torch"
"$py" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null ||
	skip "the torch of $py is not a CUDA build or sees no GPU"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! dtrace-cuda --gpu --name probe -o "$tmp/probe" -- true 2>"$tmp/probe.err"; then
	grep -q "not implemented" "$tmp/probe.err" && skip "dtrace-cuda --gpu is not implemented yet"
fi

# proj TRACE: what must agree between a CPU and a GPU trace, as JSON lines.
proj() {
	dcat "$1" | jq -c '
		if .t == "op" then ["op", .op]
		elif .t == "launch" then ["launch", .kernel, .grid, .block, .shmem,
		                          [.args[] | [.param, .size, (.storage != null), (.buf != null)]]]
		elif .t == "module" then ["module", [.ptx | scan("\\.entry\\s+([A-Za-z0-9_$]+)") | .[0]]]
		elif .t == "tinput" then ["tinput", .role, .name]
		elif .t == "toutput" then ["toutput", .name]
		elif .t == "end" then ["end", .status]
		else empty end'
}

n=0 fail=0
check() {
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else fail=$((fail + 1)); echo "not ok $n - $desc"; fi
}
same() { proj "$1" >"$1.p" && proj "$2" >"$2.p" && diff -u "$1.p" "$2.p" >&2; }

for pair in running-example:opt-bug.py running-example:opt-fixed.py scale-bias-relu:opt.cu; do
	d=${pair%%:*}; o=${pair#*:}
	ref=$top/tests/kernelbench/$d/ref.py opt=$top/tests/kernelbench/$d/$o
	w=$tmp/$d-$o
	desc="$d/$o: traced on the CPU"
	check timeout 240 dtrace-cuda --kernelbench -o "$w-cpu" "$ref" "$opt"
	desc="$d/$o: traced on the GPU"
	check timeout 240 dtrace-cuda --kernelbench --gpu -o "$w-gpu" "$ref" "$opt"
	for side in ref opt; do
		desc="$d/$o: $side: the same ops, launches, geometry and entry points"
		check same "$w-cpu/$side.trace" "$w-gpu/$side.trace"
	done
done
echo "1..$n"
[ $fail -eq 0 ]
