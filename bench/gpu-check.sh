#!/bin/sh
# gpu-check.sh: on a machine with an NVIDIA GPU, trace the test pairs on the
# GPU (dtrace-cuda --gpu: the runtime shim over the real libcudart.so) and
# compare each trace with the CPU trace of the same program (dtrace-cuda
# --no-gpu: the record-only runtime): the same allocations, copies (h2d
# data by hash), memsets, PTX modules and entry points, and launches
# (kernel, grid, block, dynamic shared memory, each argument's buffer and
# offset, scalar bytes), and the same exit status.
#
#   tests/cases/*/{ref,opt}.cu     always (built with scripts/nvcc-build.sh,
#                                  cached in build/cuda-cache)
#   tests/kernelbench/*            when a python3 with a CUDA build of torch
#                                  is found (DIRIGO_PYTHON may name it) and
#                                  dtrace-cuda --kernelbench --gpu works;
#                                  then also the same torch ops
#
# Prepared to be run in one go of under 10 minutes on a lent GPU machine:
#
#     make && bench/gpu-check.sh     # prints TAP; exit 0 when all agree
#
# Without a GPU the real runtime can use, it says why and skips (exit 0).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$PATH
export DIRIGO_EXT_CACHE=${DIRIGO_EXT_CACHE:-$top/build/ext-cache}
skip() { echo "1..0 # skip $*"; exit 0; }

[ -e /dev/nvidia0 ] || skip "no GPU (/dev/nvidia0)"
command -v dtrace-cuda >/dev/null || skip "dtrace-cuda is not built (make)"
command -v jq >/dev/null || skip "jq not found"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! dtrace-cuda --gpu --name probe -o "$tmp/probe" -- true 2>"$tmp/probe.err"; then
	skip "dtrace-cuda --gpu cannot run here: $(head -c 300 "$tmp/probe.err" | tr '\n' ' ')"
fi

# proj TRACE: what must agree between a CPU and a GPU trace, as JSON lines.
proj() {
	dcat "$1" | jq -c '
		if .t == "op" then ["op", .op]
		elif .t == "alloc" then ["alloc", .buf, .bytes, .kind, .module, .symbol]
		elif .t == "free" then ["free", .buf]
		elif .t == "copy" then ["copy", .dir, .buf, .off, .bytes, .src_buf, .src_off,
		                        (if .dir == "h2d" then .hash else null end)]
		elif .t == "memset" then ["memset", .buf, .off, .bytes, .value]
		elif .t == "launch" then ["launch", .module, .kernel, .grid, .block, .shmem,
		                          [.args[] | [.param, .size, .buf, .storage, .off,
		                                      (if .buf == null and .storage == null
		                                       then .raw else null end)]]]
		elif .t == "module" then ["module", .hash, [.ptx | scan("\\.entry\\s+([A-Za-z0-9_$]+)") | .[0]]]
		elif .t == "tinput" then ["tinput", .role, .name]
		elif .t == "toutput" then ["toutput", .name]
		elif .t == "end" then ["end", .status]
		else empty end'
}

n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
same() { proj "$1" >"$1.p" && proj "$2" >"$2.p" && diff -u "$1.p" "$2.p" >&2; }

# ---- tests/cases: CUDA program pairs -------------------------------------
progs=
for d in "$top"/tests/cases/*/; do
	[ -f "$d/ref.cu" ] || continue
	for side in ref opt; do
		[ -f "$d/$side.cu" ] && progs="$progs $(basename "$d")/$side"
	done
done
# build them all first, in parallel (cached)
for p in $progs; do echo "$p"; done |
	xargs -P "$(nproc)" -I{} sh -c 'mkdir -p "$2/$(dirname {})" &&
		"$1/scripts/nvcc-build.sh" "$1/tests/cases/{}.cu" "$2/{}" 2>"$2/{}.build.err" || true' \
		sh "$top" "$tmp/bin"
for p in $progs; do
	x=$tmp/bin/$p w=$tmp/t/$p
	mkdir -p "$(dirname "$w")"
	if [ ! -x "$x" ]; then
		notok "$p: builds"; sed 's/^/# /' "$x.build.err"; continue
	fi
	timeout 120 dtrace-cuda --no-gpu --name "${p##*/}" -o "$w.cpu" -- "$x" 2>"$w.cpu.err"
	cst=$?
	timeout 120 dtrace-cuda --gpu --name "${p##*/}" -o "$w.gpu" -- "$x" 2>"$w.gpu.err"
	gst=$?
	if [ $gst -ne $cst ]; then
		notok "$p: traced on the GPU: exit $gst, on the CPU $cst"
		tail -n 5 "$w.gpu.err" | sed 's/^/# /'
	elif same "$w.cpu" "$w.gpu" 2>"$w.diff"; then
		ok "$p: the GPU trace is the CPU one"
	else
		notok "$p: the GPU trace differs from the CPU one"
		head -n 20 "$w.diff" | sed 's/^/# /'
	fi
done

# ---- tests/kernelbench: torch pairs ---------------------------------------
kb_skip=
py=${DIRIGO_PYTHON:-$("$top/dtrace-cuda/python/dirigo-python" 2>/dev/null)} || kb_skip="no python3 with torch"
if [ -z "$kb_skip" ] &&
   ! "$py" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
	kb_skip="the torch of $py is not a CUDA build or sees no GPU"
fi
if [ -z "$kb_skip" ] &&
   ! dtrace-cuda --kernelbench --gpu -o "$tmp/kbprobe" "$top/tests/kernelbench/running-example/ref.py" \
	"$top/tests/kernelbench/running-example/opt-fixed.py" 2>"$tmp/kbprobe.err" &&
   grep -q "not implemented" "$tmp/kbprobe.err"; then
	kb_skip="dtrace-cuda --kernelbench --gpu is not implemented yet"
fi
for pair in running-example:opt-bug.py running-example:opt-fixed.py scale-bias-relu:opt.cu; do
	d=${pair%%:*}; o=${pair#*:}
	if [ -n "$kb_skip" ]; then
		n=$((n + 1)); echo "ok $n # skip kernelbench $d/$o: $kb_skip"; continue
	fi
	ref=$top/tests/kernelbench/$d/ref.py opt=$top/tests/kernelbench/$d/$o
	w=$tmp/kb-$d-$o
	timeout 240 dtrace-cuda --kernelbench --no-gpu -o "$w-cpu" "$ref" "$opt" 2>"$w-cpu.err"
	cst=$?
	timeout 240 dtrace-cuda --kernelbench --gpu -o "$w-gpu" "$ref" "$opt" 2>"$w-gpu.err"
	gst=$?
	if [ $gst -ne $cst ]; then
		notok "kernelbench $d/$o: traced on the GPU: exit $gst, on the CPU $cst"
		tail -n 5 "$w-gpu.err" | sed 's/^/# /'
		continue
	fi
	for side in ref opt; do
		if same "$w-cpu/$side.trace" "$w-gpu/$side.trace" 2>"$w-$side.diff"; then
			ok "kernelbench $d/$o: $side: the same ops, launches, copies and entry points"
		else
			notok "kernelbench $d/$o: $side: the GPU trace differs"
			head -n 20 "$w-$side.diff" | sed 's/^/# /'
		fi
	done
done
echo "1..$n"
[ $fail -eq 0 ]
