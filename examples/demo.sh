#!/bin/sh
# make demo: the whole pipeline on a bundled example.
#
# examples/fused-scale-bias-relu/ holds a reference (two kernels), an
# optimized version with one fused kernel and a bug that shows at only 1
# output location in 66, and its fixed twin.  The demo traces all three
# without a GPU, finds and confirms the bug, and checks the fixed twin.
# It exits 0 when both outcomes are as expected.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EX="$ROOT/examples/fused-scale-bias-relu"
OUT="$ROOT/build/demo"
PATH="$ROOT/bin:$PATH"
mkdir -p "$OUT" || exit 2

step() { printf '\n== %s\n' "$*" >&2; }

step "building the three programs with nvcc -cudart shared"
for p in ref opt opt-fixed; do
	"$ROOT/scripts/nvcc-build.sh" "$EX/$p.cu" "$OUT/$p" || exit 2
done

step "tracing them without a GPU (dtrace-cuda --no-gpu)"
for p in ref opt opt-fixed; do
	dtrace-cuda --no-gpu --name "$p" -o "$OUT/$p.trace" -- "$OUT/$p" 2>"$OUT/$p.log" || {
		cat "$OUT/$p.log" >&2; exit 2; }
done

run_pipeline() {   # NAME: ref vs NAME; prints the report, returns the status
	cat "$OUT/ref.trace" "$OUT/$1.trace" | dmerge | dexec | dcheck | dreplay >"$OUT/$1.out"
}

step "checking the buggy version: ref vs opt"
run_pipeline opt
st_bug=$?
step "checking the fixed twin: ref vs opt-fixed"
run_pipeline opt-fixed
st_fix=$?

echo >&2
if [ $st_bug -eq 1 ] && [ $st_fix -eq 0 ]; then
	echo "demo: the bug in opt.cu was found and confirmed (exit 1); opt-fixed.cu checked correct (exit 0)" >&2
	echo "demo: streams are in build/demo/ (dcat build/demo/opt.out | jq .)" >&2
	exit 0
fi
echo "demo: unexpected outcome: buggy pipeline exited $st_bug (want 1), fixed exited $st_fix (want 0)" >&2
exit 1
