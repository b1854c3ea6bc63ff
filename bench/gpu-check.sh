#!/bin/sh
# gpu-check.sh [OUTDIR]: the one prepared check for a lent GPU machine
# (issue 12).  It traces every test pair on the GPU and compares each GPU
# trace with the CPU trace of the same program, and writes one summary
# file, OUTDIR/summary.txt (default build/gpu-check), beside the TAP it
# prints and the traces and logs it keeps in OUTDIR.
#
#   1. tools: make, or, where the machine cannot build (no -dev packages,
#      no registry), the bin/ and lib/ carried from a build machine with
#      their shared libraries: bench/gpu-pack.sh there makes
#      build/gpu-carry.tar.xz (carry it), unpacked here;
#   2. torch 2.x with CUDA: $DIRIGO_PYTHON, else python3 when its torch is
#      a 2.x CUDA build that sees the GPU, else scripts/torch2-env.sh
#      --full build/torch2-gpu (PyPI); without one the torch parts skip;
#   3. tests/cases/*/{ref,opt}.cu: built with nvcc, traced with
#      dtrace-cuda --no-gpu and --gpu, the traces compared: allocations,
#      copies (h2d data by hash), memsets, PTX modules and their entries,
#      launches (kernel, grid, block, shared memory, each argument's
#      buffer or storage and offset, scalar bytes), the exit status (the
#      cublas-* pairs: --gpu records each product as the CPU does, then
#      hands it to the real cuBLAS, dtrace-cuda/shim/blas.c);
#   4. tests/torch/pairs/*/{ref,opt}.py: the recorder on the CPU and on
#      the GPU (--device cuda), and on the GPU under dtrace-cuda --gpu:
#      the same ops, inputs and outputs;
#   5. tests/kernelbench/*: dtrace-cuda --kernelbench --gpu against --no-gpu
#      (skipped, with the reason, while --kernelbench --gpu says it is not
#      implemented);
#   6. dreplay --gpu on the verdicts of the buggy pairs of tests/cases.
#
# Budget: under 8 minutes from a bare 16-core machine (the builds and the
# traces run in parallel; each step has its own timeout).  Exit 0 when
# everything compared agrees; 1 otherwise.  Without a GPU it says why and
# skips (exit 0).  Run it as
#
#     bench/gpu-check.sh [OUTDIR]
#
# and record the summary in bench/RESULTS.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/gpu-check}
mkdir -p "$out" && out=$(cd "$out" && pwd)
summary=$out/summary.txt
log=$out/log
: >"$log"
t0=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 4)
export DIRIGO_EXT_CACHE=${DIRIGO_EXT_CACHE:-$top/build/ext-cache}

n=0 fail=0 skips=0 todo=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
skipt() { n=$((n + 1)); skips=$((skips + 1)); echo "ok $n # skip $*"; }
note() { echo "# $*"; echo "$*" >>"$summary"; }
finish() {
	echo "1..$n"
	{
		echo "tests: $n, failed: $fail, skipped: $skips, todo: $todo"
		echo "seconds: $(( $(date +%s) - t0 ))"
	} >>"$summary"
	[ $fail -eq 0 ]
	exit $?
}
: >"$summary"
note "gpu-check on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"

# GPU_CHECK_STANDIN=1 (tests only): no device check, for a stand-in CUDA
# runtime on LD_LIBRARY_PATH (tests/t/1001-dtrace-cuda-gpu.sh's).
if [ -z "${GPU_CHECK_STANDIN:-}" ] && [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	note "skipped: no GPU (no /dev/nvidia0, no nvidia-smi)"
	echo "1..0 # skip no GPU"
	exit 0
fi
note "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)"

# ---- 1. the tools ------------------------------------------------------------
if (cd "$top" && timeout 300 make -j"$jobs" all) >>"$log" 2>&1; then
	note "tools: built here (make)"
elif { [ -f "$top/build/gpu-carry.tar.xz" ] && tar -C "$top" -xJf "$top/build/gpu-carry.tar.xz"; } ||
     { [ -x "$top/bin/dtrace-cuda" ] && [ -e "$top/lib/libdirigo-cudart.so" ]; }; then
	if [ -d "$top/build/gpu-libs" ]; then
		export LD_LIBRARY_PATH="$top/build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		command -v jq >/dev/null || PATH=$PATH:$top/build/gpu-libs
	fi
	note "tools: make failed here (see log); using the carried bin/ and lib/"
else
	note "tools: make failed and no bin/ was carried (see $log)"
	notok "the tools build or were carried"
	finish
fi
PATH=$top/bin:$PATH
export PATH
for t in dcat dtrace-cuda dmerge dexec dcheck dreplay jq; do
	if ! "$t" --help >/dev/null 2>&1 && ! command -v "$t" >/dev/null; then
		note "tools: $t does not run here"; notok "$t runs"; finish
	fi
done
if ! dtrace-cuda --gpu --name probe -o "$out/probe.trace" -- true 2>"$out/probe.err"; then
	note "skipped: dtrace-cuda --gpu cannot run here: $(head -c 300 "$out/probe.err" | tr '\n' ' ')"
	skipt "dtrace-cuda --gpu cannot run here"
	finish
fi

# ---- 2. torch 2.x with CUDA ---------------------------------------------------
cuda_torch() {  # PY: a 2.x CUDA build of torch that sees the GPU
	"$1" -c 'import sys, torch, msgpack
sys.exit(not (torch.__version__.split(".")[0] == "2" and torch.cuda.is_available()))' 2>/dev/null
}
py= torch_skip=
for p in "${DIRIGO_PYTHON:-}" python3; do
	[ -n "$p" ] && command -v "$p" >/dev/null && cuda_torch "$p" && { py=$(command -v "$p"); break; }
done
if [ -z "$py" ]; then
	if p=$(timeout 300 "$top/scripts/torch2-env.sh" --full "$top/build/torch2-gpu" 2>>"$log") && cuda_torch "$p"; then
		py=$p
	else
		torch_skip="no torch 2.x CUDA build here and none could be installed from PyPI (see log)"
	fi
fi
if [ -n "$py" ]; then
	export DIRIGO_PYTHON=$py
	note "torch: $("$py" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))') ($py)"
else
	note "torch: $torch_skip"
fi

# proj TRACE: what must agree between a CPU and a GPU trace, as JSON lines.
# Torch records: ops by name, inputs by role and name, outputs by name;
# the runtime's records as listed at the top.
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
		elif .t == "tunsupported" then ["tunsupported", .op]
		elif .t == "end" then ["end", .status]
		else empty end'
}
same() { proj "$1" >"$1.p" && proj "$2" >"$2.p" && diff -u "$1.p" "$2.p" >&2; }
# compare NAME CPU-STATUS GPU-STATUS CPU-TRACE GPU-TRACE ERRFILE
compare() {
	if [ "$3" -ne "$2" ]; then
		notok "$1: exit $3 on the GPU, $2 on the CPU"
		tail -n 5 "$6" | sed 's/^/# /'
	elif same "$4" "$5" 2>"$5.diff"; then
		ok "$1: the GPU trace is the CPU one"
	else
		notok "$1: the GPU trace differs from the CPU one"
		head -n 20 "$5.diff" | sed 's/^/# /'
	fi
}

# ---- 3. tests/cases: CUDA program pairs -----------------------------------
progs=
for d in "$top"/tests/cases/*/; do
	[ -f "$d/ref.cu" ] || continue
	for side in ref opt; do
		[ -f "$d/$side.cu" ] && progs="$progs $(basename "$d")/$side"
	done
done
cases_t0=$(date +%s)
# build and trace them all first, in parallel; compare afterwards
for p in $progs; do echo "$p"; done |
	timeout 300 xargs -P "$jobs" -I{} sh -c '
		top=$1 o=$2 p={}; mkdir -p "$o/cases/$(dirname "$p")"; w=$o/cases/$p
		"$top/scripts/nvcc-build.sh" "$top/tests/cases/$p.cu" "$w" 2>"$w.build.err" || exit 0
		timeout 60 dtrace-cuda --no-gpu --name "${p##*/}" -o "$w.cpu" -- "$w" 2>"$w.cpu.err"
		echo $? >"$w.cpu.st"
		timeout 60 dtrace-cuda --gpu --name "${p##*/}" -o "$w.gpu" -- "$w" 2>"$w.gpu.err"
		echo $? >"$w.gpu.st"' sh "$top" "$out"
for p in $progs; do
	w=$out/cases/$p
	if [ ! -x "$w" ]; then
		notok "cases $p: builds"; sed 's/^/# /' "$w.build.err" 2>/dev/null | head -n 5; continue
	fi
	compare "cases $p" "$(cat "$w.cpu.st" 2>/dev/null || echo 124)" \
		"$(cat "$w.gpu.st" 2>/dev/null || echo 124)" "$w.cpu" "$w.gpu" "$w.gpu.err"
done
note "cases: $(echo $progs | wc -w) programs in $(( $(date +%s) - cases_t0 )) s"

# ---- 4. tests/torch/pairs: torch programs -------------------------------------
if [ -n "$py" ]; then
	torch_t0=$(date +%s)
	tprogs=
	for d in "$top"/tests/torch/pairs/*/; do
		for side in ref opt; do
			[ -f "$d/$side.py" ] && tprogs="$tprogs $(basename "$d")/$side"
		done
	done
	export PYTHONPATH="$top/dtrace-cuda/python${PYTHONPATH:+:$PYTHONPATH}"
	for p in $tprogs; do echo "$p"; done |
		timeout 300 xargs -P "$jobs" -I{} sh -c '
			top=$1 o=$2 py=$3 p={}; mkdir -p "$o/torch/$(dirname "$p")"; w=$o/torch/$p
			src=$top/tests/torch/pairs/$p.py
			timeout 60 "$py" -m dirigo_trace "$src" --out "$w.cpu" 2>"$w.cpu.err"; echo $? >"$w.cpu.st"
			timeout 60 "$py" -m dirigo_trace "$src" --device cuda --out "$w.gpu" 2>"$w.gpu.err"
			echo $? >"$w.gpu.st"
			timeout 60 dtrace-cuda --gpu --name "${p##*/}" -o "$w.shim" -- \
				"$py" -m dirigo_trace "$src" --device cuda 2>"$w.shim.err" >/dev/null
			echo $? >"$w.shim.st"' sh "$top" "$out" "$py"
	for p in $tprogs; do
		w=$out/torch/$p
		cst=$(cat "$w.cpu.st" 2>/dev/null || echo 124)
		compare "torch $p: --device cuda" "$cst" "$(cat "$w.gpu.st" 2>/dev/null || echo 124)" \
			"$w.cpu" "$w.gpu" "$w.gpu.err"
		# under the runtime the end record is dtrace-cuda's: compare the rest
		if [ "$(cat "$w.shim.st" 2>/dev/null || echo 124)" -ne "$cst" ]; then
			notok "torch $p: under dtrace-cuda --gpu: exit $(cat "$w.shim.st" 2>/dev/null), on the CPU $cst"
			tail -n 5 "$w.shim.err" | sed 's/^/# /'
		elif proj "$w.cpu" | grep -v '^\["end"' >"$w.cpu.q" &&
		     proj "$w.shim" | grep -v '^\["end"' >"$w.shim.q" &&
		     diff -u "$w.cpu.q" "$w.shim.q" >"$w.shim.diff"; then
			ok "torch $p: under dtrace-cuda --gpu: the same ops, inputs, outputs"
		else
			notok "torch $p: under dtrace-cuda --gpu: the trace differs"
			head -n 20 "$w.shim.diff" | sed 's/^/# /'
		fi
	done
	note "torch pairs: $(echo $tprogs | wc -w) programs in $(( $(date +%s) - torch_t0 )) s"
else
	skipt "torch pairs: $torch_skip"
fi

# ---- 5. tests/kernelbench ------------------------------------------------------
kb_skip=$torch_skip
if [ -z "$kb_skip" ] &&
   ! timeout 240 dtrace-cuda --kernelbench --gpu -o "$out/kbprobe" "$top/tests/kernelbench/running-example/ref.py" \
	"$top/tests/kernelbench/running-example/opt-fixed.py" 2>"$out/kbprobe.err" &&
   grep -q "not implemented" "$out/kbprobe.err"; then
	kb_skip="dtrace-cuda --kernelbench --gpu is not implemented yet"
fi
for pair in running-example:opt-bug.py running-example:opt-fixed.py scale-bias-relu:opt.cu \
            staged-copies:opt.cu staged-copies:opt-bug.cu; do
	d=${pair%%:*}; o=${pair#*:}
	if [ -n "$kb_skip" ]; then
		skipt "kernelbench $d/$o: $kb_skip"; continue
	fi
	ref=$top/tests/kernelbench/$d/ref.py opt=$top/tests/kernelbench/$d/$o
	w=$out/kb-$d-$o
	timeout 240 dtrace-cuda --kernelbench --no-gpu -o "$w-cpu" "$ref" "$opt" 2>"$w-cpu.err"
	cst=$?
	timeout 240 dtrace-cuda --kernelbench --gpu -o "$w-gpu" "$ref" "$opt" 2>"$w-gpu.err"
	gst=$?
	for side in ref opt; do
		compare "kernelbench $d/$o: $side" $cst $gst "$w-cpu/$side.trace" "$w-gpu/$side.trace" "$w-gpu.err"
	done
done
[ -n "$kb_skip" ] && note "kernelbench: skipped: $kb_skip"

# ---- 6. dreplay --gpu on the buggy pairs ---------------------------------------
for d in "$top"/tests/cases/*-bug/; do
	name=$(basename "$d")
	w=$out/cases/$name
	[ -s "$w/ref.cpu" ] && [ -s "$w/opt.cpu" ] || continue
	timeout 120 sh -c 'dmerge "$1/ref.cpu" "$1/opt.cpu" | dexec | dcheck >"$1/pair.ver"' sh "$w" 2>"$w/pair.err"
	timeout 120 dreplay --gpu "$w/pair.ver" >"$w/pair.gpu.rep" 2>"$w/pair.gpu.err"
	st=$?
	msg=$(grep -m1 -- "--gpu" "$w/pair.gpu.err" | cut -c1-200)
	if [ $st -eq 1 ]; then
		ok "dreplay --gpu $name: the witness confirmed on the GPU"
	elif grep -q "not implemented" "$w/pair.gpu.err"; then
		n=$((n + 1)); todo=$((todo + 1))
		echo "not ok $n - dreplay --gpu $name: exit $st # TODO $msg"
	else
		notok "dreplay --gpu $name: exit $st: $msg"
	fi
done
finish
